// Einsum-7: the equation names each input's dimensions by letters ("..." for any number of them); the
// output takes the dimensions its subscript names (by default the letters seen once, in alphabetical order,
// after the "..." dimensions). Equal letters must have equal dimensions (in a graph read from ONNX, a letter's
// dimension of 1 in one input broadcasts to another input's); "..." dimensions broadcast.
#include <algorithm>
#include <array>
#include <optional>

#include <fmt/format.h>

#include "model/ops/rules.hpp"

namespace reshape1::model::detail {
namespace {

/// One subscript: its letters in order, and where "..." stands (nullopt when absent).
struct subscript {
  std::string letters;
  std::optional<std::size_t> ellipsis;  ///< index into letters where "..." goes
};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

subscript parse_subscript(const op& o, std::string_view text) {
  subscript s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.substr(i, 3) != "..." || s.ellipsis)
        refuse(o, fmt::format("the subscript '{}' has a stray '.' or more than one '...'", text));
      s.ellipsis = s.letters.size();
      i += 2;
      continue;
    }
    if (!is_letter(c)) refuse(o, fmt::format("the subscript '{}' has '{}', not a letter", text, c));
    s.letters.push_back(c);
  }
  return s;
}

void einsum(op& o) {
  if (o.in.empty()) refuse(o, "Einsum needs at least one input");
  o.need(1, 1);
  o.out[0].type = o.in[0]->type;
  const std::string_view equation = o.l.text("equation", "");
  const auto arrow = equation.find("->");
  const auto left = equation.substr(0, arrow);
  std::vector<subscript> inputs;
  for (std::size_t start = 0;;) {
    const auto comma = left.find(',', start);
    inputs.push_back(parse_subscript(o, left.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (inputs.size() != o.in.size())
    refuse(o, fmt::format("the equation '{}' has {} input subscripts for {} inputs", equation, inputs.size(),
                          o.in.size()));
  const bool any_ellipsis =
      std::any_of(inputs.begin(), inputs.end(), [](const subscript& s) { return s.ellipsis.has_value(); });
  subscript output;
  if (arrow != std::string_view::npos) {
    output = parse_subscript(o, equation.substr(arrow + 2));
    for (std::size_t i = 0; i < output.letters.size(); ++i) {
      const char c = output.letters[i];
      if (output.letters.find(c, i + 1) != std::string::npos)
        refuse(o, fmt::format("the output subscript repeats '{}'", c));
      if (std::none_of(inputs.begin(), inputs.end(),
                       [&](const subscript& s) { return s.letters.find(c) != std::string::npos; }))
        refuse(o, fmt::format("the output letter '{}' is in no input subscript", c));
    }
    if (output.ellipsis && !any_ellipsis) refuse(o, "the output has '...' but no input has");
  } else {  // implicit: the letters seen once, sorted; "..." first
    std::array<int, 128> count{};
    for (const auto& s : inputs)
      for (char c : s.letters) ++count[static_cast<unsigned char>(c)];
    for (int c = 0; c < 128; ++c)
      if (count[static_cast<std::size_t>(c)] == 1) output.letters.push_back(static_cast<char>(c));
    if (any_ellipsis) output.ellipsis = 0;
  }

  // Each letter's dimension, merged over its occurrences; the "..." dimensions broadcast together.
  std::array<std::optional<dimension>, 128> dims{};
  partial_shape ellipsis_dims = partial_shape(std::vector<dimension>{});
  bool ranks_known = true;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& s = o.shape(k);
    const auto& sub = inputs[k];
    if (!s.rank_known()) {
      ranks_known = false;
      continue;
    }
    if (sub.ellipsis ? s.size() < sub.letters.size() : s.size() != sub.letters.size())
      refuse(o, fmt::format("input {} {} has rank {} but its subscript names {} dimensions{}", k, to_string(s),
                            s.size(), sub.letters.size(), sub.ellipsis ? " and '...'" : ""));
    const std::size_t extra = s.size() - sub.letters.size();
    const std::size_t at = sub.ellipsis.value_or(sub.letters.size());
    // A letter repeated in one subscript (a diagonal) takes equal dimensions; across inputs, ONNX's Einsum as
    // ONNX Runtime runs it broadcasts a letter's dimension of 1 to another input's (numpy's einsum does too),
    // where OpenVINO's asks for equal ones.
    std::array<std::optional<dimension>, 128> own{};
    for (std::size_t i = 0; i < sub.letters.size(); ++i) {
      const auto& d = s[i < at ? i : i + extra];
      auto& slot = own[static_cast<unsigned char>(sub.letters[i])];
      slot = slot ? merge(o, *slot, d, fmt::format("the dimensions of '{}'", sub.letters[i])) : d;
    }
    for (std::size_t c = 0; c < own.size(); ++c) {
      if (!own[c]) continue;
      auto& slot = dims[c];
      if (!slot) slot = own[c];
      else if (o.g.format() != model_format::onnx) slot = merge(o, *slot, *own[c], fmt::format("the dimensions of '{}'", static_cast<char>(c)));
      else slot = broadcast(o, partial_shape(std::vector<dimension>{*slot}), partial_shape(std::vector<dimension>{*own[c]}))[0];
    }
    if (sub.ellipsis) {
      const partial_shape part(std::vector<dimension>(s.begin() + static_cast<std::ptrdiff_t>(at),
                                                      s.begin() + static_cast<std::ptrdiff_t>(at + extra)));
      ellipsis_dims = broadcast(o, ellipsis_dims, part);
    }
  }
  if (!ranks_known && output.ellipsis) return;  // the number of "..." dimensions is unknown
  std::vector<dimension> out;
  const std::size_t at = output.ellipsis.value_or(output.letters.size());
  for (std::size_t i = 0; i <= output.letters.size(); ++i) {
    if (i == at && output.ellipsis) out.insert(out.end(), ellipsis_dims.begin(), ellipsis_dims.end());
    if (i == output.letters.size()) break;
    const auto& slot = dims[static_cast<unsigned char>(output.letters[i])];
    out.push_back(slot ? *slot : dimension());
  }
  o.out[0].shape = partial_shape(std::move(out));
}

constexpr rule_entry einsum_table[] = {{"Einsum", 7, einsum, batch::einsum, no_values}};

}  // namespace

std::span<const rule_entry> einsum_rules() { return einsum_table; }

}  // namespace reshape1::model::detail

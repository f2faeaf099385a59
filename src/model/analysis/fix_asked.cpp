// What a fix is asked and proven at (fix_planner.hpp): the shapes asked by their inputs' names, the sizes
// they free, the samples a proof checks beside them.
#include "model/analysis/fix_planner.hpp"

#include <algorithm>
#include <numeric>
#include <variant>
#include <tuple>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "model/ops/rules.hpp"
#include "model/ops/sizes.hpp"
#include "model/options.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model::detail {
namespace {

using reshape1::detail::fail;

std::string batch_name(const dimension& d) { return to_string(d); }

}  // namespace

void fix_planner::name_shapes_asked() {
  // Every shape by its input's name (a shape given without one is the only input's, `#ID` the input's
  // with that id), so that a sample can take the place of the shape asked.
  // (A sample's option is not keyed by name in Python, where it is a list: its name and shape follow it.)
  const auto named_as = [&](option key, const std::string& name, const std::string& text) {
    const auto s = options_.spelling;
    return key == option::shape ? spell(s, key, name, text)
                                : fmt::format("{} {}{}{}", spell(s, key), name, name.empty() ? "" : "=", text);
  };
  const auto input_of = [&](const std::string& name, option key, const std::string& text) -> const input_report& {
    const auto it = std::find_if(original_inputs_.begin(), original_inputs_.end(), [&](const input_report& in) {
      return name.empty() ? original_inputs_.size() == 1 : in.name == name || fmt::format("#{}", in.id) == name;
    });
    if (it == original_inputs_.end() && name.empty())
      fail(errc::invalid_argument, {},
           fmt::format("{} without a name: the model has {} inputs", named_as(key, name, text), original_inputs_.size()),
           fmt::format("name the input the shape is for ({})",
                       options_.spelling == option_spelling::command_line ? "NAME=SHAPE" : "{NAME: SHAPE}"));
    if (it == original_inputs_.end())
      fail(errc::invalid_argument, {}, fmt::format("{}: the model has no input named '{}'", named_as(key, name, text), name),
           fmt::format("name one of the inputs the shapes are asked for with {}", spell(options_.spelling, option::shape)));
    return *it;
  };
  for (auto& [name, shape] : options_.shapes) {
    const auto& in = input_of(name, option::shape, to_string(shape));
    // Rewriting patterns keeps every tensor's rank: a new rank is no new size.
    if (shape.rank_known() && in.declared.rank_known() && shape.size() != in.declared.size())
      fail(errc::invalid_argument, {},
           fmt::format("{}: rank {}, and input '{}' is declared with rank {} ({})",
                       spell(options_.spelling, option::shape, name, to_string(shape)), shape.size(), in.name,
                       in.declared.size(), to_string(in.declared)),
           "fix rewrites sizes, not ranks: give a shape of the declared rank");
    name = in.name;
  }
  for (auto& sample : options_.check_shapes) {
    // A size named in the shapes asked (`?@S`) is one value in a sample, wherever it is.
    std::map<std::uintptr_t, std::pair<std::int64_t, std::string>> named;
    for (auto& [name, shape] : sample) {
      const auto text = to_string(shape);
      const auto& in = input_of(name, option::check_shape, text);
      const auto asked = std::find_if(options_.shapes.begin(), options_.shapes.end(), [&](const auto& x) { return x.first == in.name; });
      const auto& range = asked != options_.shapes.end() ? asked->second : in.declared;
      // A sample is one of the shapes asked: each dimension a value the shape asked allows.
      bool inside = shape.rank_known() && range.rank_known() && shape.size() == range.size();
      for (std::size_t d = 0; inside && d < shape.size(); ++d)
        inside = shape[d].is_static() && range[d].range().contains(shape[d].lo());
      if (!inside)
        fail(errc::invalid_argument, {},
             fmt::format("{}: not one of the shapes asked for input '{}' ({})", named_as(option::check_shape, name, text),
                         in.name, to_string(range)),
             fmt::format("give a static shape that {} allows",
                         asked != options_.shapes.end() ? spell(options_.spelling, option::shape, in.name)
                                                        : std::string("its declared shape")));
      for (std::size_t d = 0; d < shape.size(); ++d) {
        const auto sym = range[d].symbol();
        if (!sym) continue;
        const auto where = fmt::format("dimension {} of input '{}'", d, in.name);
        const auto [it, first] = named.try_emplace(sym.id(), shape[d].lo(), where);
        if (!first && it->second.first != shape[d].lo())
          fail(errc::invalid_argument, {},
               fmt::format("{}: not one of the shapes asked: {} is {} and {} is {}, both the size {}",
                           named_as(option::check_shape, name, text), it->second.second, it->second.first, where,
                           shape[d].lo(), sym.name()),
               fmt::format("give the dimensions the shapes asked name {} one value", sym.name()));
      }
      name = in.name;
    }
  }
}

void fix_planner::find_free_sizes() {
  // The sizes that change: each dimension the request does not keep at its declared value, one per
  // symbol (`?@H` in two inputs is one size).
  free_sizes_.clear();
  std::map<std::uintptr_t, std::size_t> by_symbol;
  std::vector<std::size_t> generated;  // the sizes named INPUT_AXIS
  for (const auto& in : original_inputs_) {
    const bool asked = std::any_of(options_.shapes.begin(), options_.shapes.end(),
                                   [&](const auto& x) { return x.first == in.name; });
    if (!asked || !in.requested.rank_known() || !in.declared.rank_known() || in.requested.size() != in.declared.size())
      continue;
    for (std::size_t d = 0; d < in.requested.size(); ++d) {
      const auto& r = in.requested[d];
      const auto& was = in.declared[d];
      if (r.is_static() && was.is_static() && r.lo() == was.lo()) continue;
      if (const auto sym = r.symbol(); sym && by_symbol.contains(sym.id())) {
        auto& same = free_sizes_[by_symbol[sym.id()]];
        // One name is one size: the rewritten model declares the dimensions equal, so they must be equal
        // at the declared shapes, where it must still run as it did.
        // (Not a structured binding: clang 14, the wasm and fuzz presets', cannot capture one.)
        const std::string& first_input = same.dims.front().first;
        const std::size_t first_axis = same.dims.front().second;
        const auto& first = std::find_if(original_inputs_.begin(), original_inputs_.end(),
                                         [&](const input_report& x) { return x.name == first_input; })->declared[first_axis];
        if (first.is_static() && was.is_static() && first.lo() != was.lo()) {
          const auto asked_text = [&](const std::string& name) {
            const auto it = std::find_if(options_.shapes.begin(), options_.shapes.end(),
                                         [&](const auto& x) { return x.first == name; });
            return spell(options_.spelling, option::shape, name, to_string(it->second));
          };
          fail(errc::invalid_argument, {},
               fmt::format("{}: the size {} is dimension {} of input '{}', {} at the declared shapes, and dimension {} "
                           "of input '{}', {}: one name is one size",
                           asked_text(in.name), sym.name(), first_axis, first_input, first.lo(), d, in.name, was.lo()),
               "give sizes that differ at the declared shapes names of their own (?@H and ?@W)");
        }
        same.dims.emplace_back(in.name, d);
        continue;
      }
      free_size f;
      // The name asked (`?@H`), else the one the model declares (an ONNX dim_param), else INPUT_AXIS.
      f.name = r.symbol()     ? std::string(r.symbol().name())
               : was.symbol() ? std::string(was.symbol().name())
                              : fmt::format("{}_{}", in.name, d);
      f.fixed = r.is_static();
      f.dims.emplace_back(in.name, d);
      pick_samples(f, r, was);
      if (const auto sym = r.symbol()) by_symbol[sym.id()] = free_sizes_.size();
      if (!r.symbol() && !was.symbol()) generated.push_back(free_sizes_.size());
      free_sizes_.push_back(std::move(f));
    }
  }
  // A name made up (INPUT_AXIS) gives way to one asked or declared (`?@x_3` beside an unnamed `?`): two
  // sizes under one name would declare them equal.
  for (const auto k : generated) {
    const auto taken = [&](const std::string& name) {
      for (std::size_t j = 0; j < free_sizes_.size(); ++j)
        if (j != k && free_sizes_[j].name == name) return true;
      return false;
    };
    const auto base = free_sizes_[k].name;
    for (int n = 2; taken(free_sizes_[k].name); ++n) free_sizes_[k].name = fmt::format("{}_{}", base, n);
  }
}

void fix_planner::pick_samples(free_size& f, const dimension& asked, const dimension& was) const {
  // Multiples of the declared size keep what it divides (strides, windows): 2 and 3 times it in turn
  // at the first sample, 3 and 4 at the second, then the next multiples (or, inside an interval that
  // holds none, other members of it) until the value is another than every other size's at that
  // sample and than its own at the first: a height taken for a width, or a size for another, shows.
  const std::int64_t lo = std::max<std::int64_t>(asked.lo(), 1);
  const std::int64_t hi = asked.hi() == interval::unbounded ? std::int64_t{1} << 40 : std::max(asked.hi(), lo);
  const std::int64_t base = was.is_static() && was.lo() > 0 ? was.lo() : std::max<std::int64_t>(lo, 16);
  for (std::size_t k = 0; k < 2; ++k) {
    const auto taken = [&](std::int64_t v) {
      return std::any_of(free_sizes_.begin(), free_sizes_.end(), [&](const free_size& x) { return x.samples[k] == v; }) ||
             (k == 1 && v == f.samples[0]);
    };
    if (asked.is_static()) {
      f.samples[k] = asked.lo();
      continue;
    }
    const auto other = static_cast<std::int64_t>(free_sizes_.size() % 2);
    std::vector<std::int64_t> candidates;
    for (std::int64_t m = 2 + static_cast<std::int64_t>(k) + other; m <= 16; ++m)
      if (base <= hi / m) candidates.push_back(base * m);
    for (std::int64_t step = 0; step < 8; ++step)
      for (const auto c : {hi - step, lo + step, lo + (hi - lo) / 2 + step}) candidates.push_back(c);
    f.samples[k] = std::clamp(base, lo, hi);  // an interval of the declared size alone
    for (const auto c : candidates)
      if (c >= lo && c <= hi && c != base && !taken(c)) {
        f.samples[k] = c;
        break;
      }
  }
}

void fix_planner::make_proofs() {
  proofs_.clear();
  if (!sizes()) {
    for (const auto& b : options_.check_batches) proofs_.push_back({{"batch", batch_name(b)}, request(b)});
    return;
  }
  name_shapes_asked();
  find_free_sizes();
  const auto shapes_text = [](const std::vector<std::pair<std::string, partial_shape>>& shapes) {
    std::string t;
    for (const auto& [name, shape] : shapes) t += fmt::format("{}{}={}", t.empty() ? "" : " ", name, to_string(shape));
    return t;
  };
  proofs_.push_back({{"shapes", shapes_text(options_.shapes)}, request(dimension())});
  // A sample: the shapes asked, each changing size at one value.
  const auto sample = [&](std::vector<std::pair<std::string, partial_shape>> shapes) {
    auto r = request(dimension());
    for (auto& [name, shape] : shapes) {
      const auto it = std::find_if(r.shapes.begin(), r.shapes.end(), [&key = name](const auto& x) { return x.first == key; });
      if (it != r.shapes.end()) it->second = std::move(shape);
      else r.shapes.emplace_back(name, std::move(shape));
    }
    std::vector<std::pair<std::string, partial_shape>> given;
    for (const auto& x : r.shapes) given.push_back(x);
    // (Concrete sizes asked are their own sample: each point is checked once.)
    const auto text = shapes_text(given);
    if (std::none_of(proofs_.begin(), proofs_.end(), [&](const proof_point& p) { return p.at.value == text; }))
      proofs_.push_back({{"shapes", text}, std::move(r)});
  };
  // A default sample: sample `k` of every size that changes.
  const auto at_sample = [&](std::size_t k) {
    std::vector<std::pair<std::string, partial_shape>> shapes;
    for (const auto& in : original_inputs_) {
      std::vector<dimension> dims;
      bool any = false;
      for (const auto& f : free_sizes_)
        for (const auto& [name, axis] : f.dims)
          if (name == in.name) {
            if (dims.empty()) dims.assign(in.requested.begin(), in.requested.end());
            dims[axis] = dimension(f.samples[k]);
            any = true;
          }
      if (any) shapes.emplace_back(in.name, partial_shape(dims));
    }
    return shapes;
  };
  if (!options_.check_shapes.empty()) {
    // The inputs a sample leaves out take the first default sample: a sample is all static.
    for (const auto& x : options_.check_shapes) {
      auto shapes = at_sample(0);
      for (const auto& [name, shape] : x) {
        const auto it = std::find_if(shapes.begin(), shapes.end(), [&key = name](const auto& y) { return y.first == key; });
        if (it != shapes.end()) it->second = shape;
        else shapes.emplace_back(name, shape);
      }
      sample(std::move(shapes));
    }
    return;
  }
  if (free_sizes_.empty()) return;
  for (std::size_t k = 0; k < 2; ++k) sample(at_sample(k));
}

}  // namespace reshape1::model::detail

// The accessors of layer and graph. Whichever reader made the graph parsed every attribute once, into
// the storage layers view (storage.hpp): these only look them up, and say what is wrong with one a rule
// cannot use.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/graph.hpp"
#include "model/graph/storage.hpp"

namespace reshape1::model {

using reshape1::detail::fail;

const attribute* layer::find(std::string_view n) const noexcept {
  // The first character settles most comparisons without a call to memcmp (an XML name is never empty).
  for (const auto& a : attributes)
    if (a.name.size() == n.size() && !n.empty() && a.name[0] == n[0] && a.name == n) return &a;
  return nullptr;
}

std::string layer::where() const { return fmt::format("layer '{}' (id {})", name, id); }

std::string_view layer::op_type() const { return text("onnx_op", type); }

int layer::op_version() const {
  const auto* a = find("onnx_version");
  return a != nullptr && a->is_integers && a->integers.size() == 1 ? static_cast<int>(a->integers[0]) : opset;
}

namespace {
[[noreturn]] void bad_attribute(const layer& l, std::string_view n, std::string_view what, std::string hint = {}) {
  fail(errc::bad_file, {}, fmt::format("{}: attribute '{}' {}", l.where(), n, what), std::move(hint));
}
const attribute& need(const layer& l, std::string_view n) {
  const auto* a = l.find(n);
  if (a == nullptr) fail(errc::bad_file, {}, fmt::format("{}: missing attribute '{}' in <data>", l.where(), n), {});
  return *a;
}
}  // namespace

std::int64_t layer::integer(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_integers || a.integers.size() != 1) bad_attribute(*this, n, fmt::format("is '{}', not an integer", a.text));
  return a.integers[0];
}

std::int64_t layer::integer(std::string_view n, std::int64_t fallback) const {
  return find(n) == nullptr ? fallback : integer(n);
}

std::span<const std::int64_t> layer::integers(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_integers) bad_attribute(*this, n, fmt::format("is '{}', not a list of integers", a.text));
  return a.integers;
}

std::vector<std::int64_t> layer::integers(std::string_view n, std::vector<std::int64_t> fallback) const {
  if (find(n) == nullptr) return fallback;
  const auto list = integers(n);
  return {list.begin(), list.end()};
}

std::vector<double> layer::reals(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.is_reals) bad_attribute(*this, n, fmt::format("is '{}', not a list of numbers", a.text));
  if (a.is_integers) return {a.integers.begin(), a.integers.end()};
  return {a.reals.begin(), a.reals.end()};
}

bool layer::flag(std::string_view n) const {
  const auto& a = need(*this, n);
  if (!a.boolean)
    bad_attribute(*this, n, fmt::format("is '{}'", a.text), "write true, false, 1 or 0");
  return *a.boolean;
}

bool layer::flag(std::string_view n, bool fallback) const { return find(n) == nullptr ? fallback : flag(n); }

std::string_view layer::text(std::string_view n, std::string_view fallback) const {
  const auto* a = find(n);
  return a == nullptr ? fallback : std::string_view(a->text);
}

element_type layer::element(std::string_view n) const {
  const auto& a = need(*this, n);
  const auto t = detail::precision(a.text);
  if (!t) fail(errc::unknown_element_type, {}, fmt::format("{}: element type '{}' is unknown", where(), a.text), {});
  return *t;
}

const layer* graph::find(std::int64_t id) const noexcept {
  const auto it = std::lower_bound(by_id_.begin(), by_id_.end(), std::pair<std::int64_t, std::size_t>(id, 0));
  return it == by_id_.end() || it->first != id ? nullptr : &layers_[it->second];
}

std::span<const std::byte> graph::const_bytes(const layer& l) const {
  // The readers checked that every Const's bytes lie in the weights; a layer that is not the graph's own
  // (or a Const the graph holds no bytes for) gets none, not a view past their end.
  const auto offset = static_cast<std::uint64_t>(l.integer("offset"));
  const auto size = static_cast<std::uint64_t>(l.integer("size"));
  if (offset > bin_bytes_.size() || size > bin_bytes_.size() - offset) return {};
  return bin_bytes_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
}

}  // namespace reshape1::model

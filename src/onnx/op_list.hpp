// Internal: the closed list of ONNX operator versions reshape1 knows (src/onnx/op_list.tsv, compiled in):
// every schema version of the default domain up to opset 26, and the com.microsoft ops ONNX Runtime's CPU
// provider runs, each with whether ONNX Runtime runs it and (where transcribed) its attributes' names, how
// many inputs and outputs its nodes take and which of them may be named "". A node's version is looked up
// here; its translation (lowering.hpp) is the table row that covers that version.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "reshape1/element_type.hpp"

namespace reshape1::onnx::detail {

/// How ONNX Runtime runs an operator version (`deprecated`: ONNX deprecated the op at that version, and
/// ONNX Runtime refuses a node of it).
enum class ort_runs { no, kernel, function, deprecated };

/// How many inputs (or outputs) a node of an operator version may have, the optional ones counted whether
/// given or named "" (ONNX's count, which ONNX Runtime checks when it loads a model).
struct arity {
  int least = 0;
  int most = 0;  ///< unbounded: std::numeric_limits<int>::max()
  /// The positions below `least` a node may name "" (bit k for position k): an optional input or output
  /// before a required one. A required one named "" is refused by ONNX's checker and ONNX Runtime.
  std::uint64_t optional_below_least = 0;
  [[nodiscard]] bool holds(int n) const noexcept { return least <= n && n <= most; }
  /// Whether position `k` may be named "" (every one from `least` on may: those are optional).
  [[nodiscard]] bool may_be_empty(int k) const noexcept {
    return k >= least || (k >= 0 && k < 64 && ((optional_below_least >> k) & 1U) != 0);
  }
};

/// One type parameter of an operator version, as ONNX Runtime checks it when it loads a model: the inputs bound
/// to it (all of one element type), the outputs of that type, and the types it takes. A group of outputs only
/// is a fixed type (Shape's i64).
struct type_group {
  std::uint64_t inputs = 0;   ///< bit k: input position k
  std::uint64_t outputs = 0;  ///< bit k: output k
  std::uint32_t types = 0;    ///< bit static_cast<int>(t): element type t
  [[nodiscard]] bool takes(element_type t) const noexcept { return ((types >> static_cast<int>(t)) & 1U) != 0; }
};

struct listed_op {
  std::string_view domain;  ///< "ai.onnx" (the default domain), "ai.onnx.ml" or "com.microsoft"
  std::string_view op_type;
  int since = 0;  ///< the since_version of the schema
  ort_runs ort = ort_runs::no;
  /// The schema's attribute names, comma-separated ("" for none); nullopt where the list does not name them.
  std::optional<std::string_view> attributes;
  /// How many inputs and outputs a node may have; nullopt where the list does not say (nothing is refused).
  std::optional<arity> inputs, outputs;
  /// The type parameters, where the list gives them (nothing is checked otherwise).
  std::optional<std::vector<type_group>> types;
  /// Whether `name` is one of `attributes`; true where the list does not name them (nothing is refused).
  [[nodiscard]] bool has_attribute(std::string_view name) const noexcept;
  /// The group of input (`output` false) or output position k; nullptr where the list gives none. Where the count
  /// is unbounded, every position from the least on is in the group of position `least` (a list's members).
  [[nodiscard]] const type_group* group_of(int k, bool output) const noexcept;
};

/// The newest opset of the default domain the list covers.
inline constexpr int newest_opset = 26;
/// The newest version of ai.onnx.ml the list covers (ONNX Runtime 1.30's newest: TreeEnsemble-5).
inline constexpr int newest_ml_opset = 5;

/// The list, sorted by domain, op_type, since. Read once; a malformed list is a fault of reshape1's own
/// build, and stops the process naming the line.
[[nodiscard]] std::span<const listed_op> op_list();

/// `text` parsed as op_list.tsv is: for the list's own test. The process stops, naming the line, on a
/// malformed line, a domain other than the three, a version out of order or given twice.
[[nodiscard]] std::span<const listed_op> parse_op_list(std::string_view text);

/// The schema a node of (domain, op_type) runs in a model that imports `opset` of that domain: the listed
/// version with the newest since at or below it. nullptr when there is none (no such op, or not yet).
[[nodiscard]] const listed_op* schema_at(std::string_view domain, std::string_view op_type, int opset) noexcept;

/// The since of (domain, op_type)'s first listed version; 0 when the list has none.
[[nodiscard]] int first_version(std::string_view domain, std::string_view op_type) noexcept;

/// A node's domain as the list names it: "" and "ai.onnx" are "ai.onnx".
[[nodiscard]] constexpr std::string_view listed_domain(std::string_view domain) noexcept {
  return domain.empty() ? std::string_view("ai.onnx") : domain;
}

}  // namespace reshape1::onnx::detail

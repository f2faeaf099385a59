// Internal: which declared dims of an ONNX model fix frees, from the graph propagated at two probes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "lowering.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::onnx::detail {

/// What a declared dim becomes that the two probes give otherwise.
struct dim_freeing {
  /// The dim_param of a dim that is `x` at one probe and `y` at the other (x != y), or nullopt to clear it.
  std::function<std::optional<std::string>(std::int64_t x, std::int64_t y)> as;
  /// New sizes only (nullopt for the batch): a dim the same at both probes but declared as another value is
  /// set to that value where every new size was asked as a value (true), and cleared otherwise (false): it
  /// may still follow a size (a Slice's end up to a size both samples pass).
  std::optional<bool> sizes_as_values;
};

/// The Parameter named `name` in `g`, the rewritten graph (a cloned initializer may have moved the
/// layers after it), by its index; the last of that name.
std::optional<std::size_t> parameter_named(const model::graph& g, const std::string& name);

/// Calls `f` with dimension `axis` of each graph input of `m` named `name` that declares one.
template <class F>
void for_input_dim(::onnx::ModelProto& m, const std::string& name, std::size_t axis, F f) {
  for (auto& v : *m.mutable_graph()->mutable_input())
    if (v.name() == name && v.type().tensor_type().has_shape() &&
        v.type().tensor_type().shape().dim_size() > static_cast<int>(axis))
      f(*v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(static_cast<int>(axis)));
}

/// The outputs' and value_info's declared dims (the If branches' and bodies' too) freed as `as` says,
/// from `g` propagated with its inputs `at_a` and `at_b`. Whether any changed.
/// `m` is the model being written and `lowered` the one `g` was lowered from (`m` itself or the file `m` is a
/// copy of), with its tensor `names` and `bodies`; each dim freed is listed in `freed`.
bool free_outputs(::onnx::ModelProto& m, const ::onnx::ModelProto& lowered, const model::graph& g,
                  const std::unordered_map<std::string, model::source>& names, const std::vector<body_names>& bodies,
                  const std::vector<model::input_shape>& at_a, const std::vector<model::input_shape>& at_b,
                  const dim_freeing& how, std::vector<std::string>& freed);

}  // namespace reshape1::onnx::detail

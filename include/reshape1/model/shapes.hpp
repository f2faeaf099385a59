// reshape1::model: what `reshape1 shapes` reports, for an OpenVINO IR and an ONNX model alike: every tensor a
// layer computes and the shape propagation gives it, with the sizes the model does not name given names.
// The entry points (onnx::shapes, onnx::write_shapes) are in reshape1/onnx.hpp, the component that reads
// and writes both formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "reshape1/element_type.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model {

struct shapes_options {
  /// Shapes given to inputs in place of the ones they declare, by input name (`#ID` by id; an empty name
  /// is the only input of a one-input model), as check_batch's request takes them: `?`, intervals, named
  /// sizes `?@H`.
  std::vector<std::pair<std::string, partial_shape>> shapes{};
  /// An IR's weights: empty for the .xml's path with .bin (model::weights_of). error(invalid_argument) for
  /// an ONNX model.
  std::filesystem::path bin{};
  /// For an ONNX model in memory: the directory its external data is looked for in (as onnx::read's).
  std::filesystem::path base_dir{};
  /// Also make the copy of the model that declares every tensor's shape (shapes_report::output), for
  /// write_shapes or the caller.
  bool copy = false;
  /// How errors name these fields: as the API's (`model_bin=FILE`) or as the command line's (`--bin FILE`).
  option_spelling spelling = option_spelling::api;
};

/// One tensor: an input of the model, or an output of a layer (an ONNX node's output; an IR layer's port).
struct tensor_shape {
  /// ONNX: the tensor's name in the file. IR: the layer's name and the port's id, `name:port` (an IR names
  /// ports by number).
  std::string name;
  std::int64_t id = 0;     ///< the layer that computes it (ONNX: its node's index, as findings give it)
  std::string layer;       ///< that layer's name (ONNX: its node's)
  std::string op;          ///< `Type-N`, the op as the file names it (ONNX: op_type and since_version)
  std::size_t output = 0;  ///< which of the layer's outputs (IR: the port's id)
  /// What propagation gives it. A dynamic dimension the model names keeps its name (an ONNX dim_param, a
  /// size `?@H` given in `shapes`); every other dynamic dimension is named after the tensor and axis where
  /// it first appears (`conv_out_2`), so that two tensors of one size carry one name.
  partial_shape shape = partial_shape::dynamic();
  std::optional<element_type> type;
  /// The shape the file declares for it (ONNX: an input, an output or a value_info; an IR: every port),
  /// nullopt where it declares none.
  std::optional<partial_shape> declared;
  /// For a tensor of a body (an ONNX Loop's or Scan's, an IR TensorIterator's or Loop's): the layers whose
  /// bodies hold it, outermost first (as findings name them; an ONNX Scan-8 is two, one over the batch and
  /// one over the sequence). `id` is then the layer's id in the innermost body. Empty at the top level.
  std::vector<enclosing_layer> within{};
};

/// Why propagation knows nothing more past a layer: no rule for its op (`not_covered`), or the rule
/// refused its inputs (`rule_error`, with the message).
struct shapes_gap {
  std::int64_t id = 0;
  std::string name, op;
  bool not_covered = false;
  std::string reason;
};

struct shapes_summary {
  std::size_t tensors = 0;
  std::size_t rank_known = 0;  ///< tensors whose rank is known
  std::size_t all_static = 0;  ///< tensors whose every dimension is a number
};

struct shapes_report {
  /// The model's inputs first, then each layer's outputs in the file's order (an ONNX If's branches where
  /// the If is; a body after its layer's outputs: an ONNX Loop's or Scan's, its inputs then its nodes'
  /// outputs, an IR TensorIterator's or Loop's, its layers' ports). Values the file holds (Consts, an ONNX
  /// model's initializers and Constant nodes) are not listed.
  std::vector<tensor_shape> tensors;
  std::vector<shapes_gap> gaps;
  shapes_summary summary;
  /// With shapes_options::copy, a copy of the model that declares every listed tensor's shape. ONNX: the
  /// bytes of one whose graph outputs and value_info declare them, a body's in its body (a name as a
  /// dim_param; onnx_output::freed lists nothing). IR: an .xml whose ports declare them, a body's too
  /// (numbers, -1, intervals: an IR has no names for
  /// sizes) and whose Parameters given a shape take it, with the weights unchanged (ir_output::appended is
  /// empty). Empty without `copy`.
  std::optional<std::variant<ir_output, onnx_output>> output;
};

}  // namespace reshape1::model

// Internal: edits of an ONNX model's protobuf that fix makes (fix.cpp): where a node and its graph are in
// the file, a tensor's values written in place, the names a graph already gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "reshape1/model/graph.hpp"
#include "skim.hpp"

namespace reshape1::onnx::detail {

/// Where a pattern's value is stored: an initializer, or the `value` of a Constant node, in `graph`.
struct holder {
  ::onnx::TensorProto* tensor = nullptr;
  std::string name;  ///< the tensor's name (the Constant node's output)
  bool constant_node = false;
  ::onnx::GraphProto* graph = nullptr;
  /// A Constant node's `value_ints` or `value_int` seen without editing: the tensor it stands for, which
  /// `tensor` points at.
  std::shared_ptr<::onnx::TensorProto> made;
};

/// A tensor held in an external file, written into the model itself (raw_data) from the bytes the reader
/// read: the fixed model holds a rewritten tensor, and the data file stays as it is for the tensors that
/// are not rewritten (and for the original model, which may share it).
void write_inline(::onnx::TensorProto& t, std::span<const std::byte> bytes);

/// Element `element` of an int64 or int32 tensor set to `value`, where the tensor holds it (raw_data or its
/// typed field).
void set_value(::onnx::TensorProto& t, std::size_t element, std::int64_t value);

/// How many values an int64 or int32 tensor holds: in `external` (its bytes, when an external file holds
/// them), else in the file (raw_data or its typed field).
std::size_t element_count(const ::onnx::TensorProto& t, std::span<const std::byte> external);

/// Every name the graph (subgraphs included) gives a tensor: initializers, inputs and node outputs, each passed to
/// `name` as the graph holds it (a view of it lives as long as the graph).
void for_each_defined(const ::onnx::GraphProto& g, const std::function<void(const std::string&)>& name);
/// for_each_defined's names, gathered.
void taken_names(const ::onnx::GraphProto& g, std::set<std::string>& taken);

/// Where a node is: its index in the graph `path` leads to (each step a node index and the index of the
/// attribute that holds the subgraph). An If's branches are lowered into the graph around them, so their
/// Reshapes are rewritten as that graph's are.
struct node_ref {
  std::vector<std::pair<int, int>> path;
  int index = 0;
};

/// The graph `path` leads to.
::onnx::GraphProto* graph_at(::onnx::ModelProto& m, const std::vector<std::pair<int, int>>& path);

/// The node `r` names, or nullptr when the file has no such node.
::onnx::NodeProto* node_at(::onnx::ModelProto& m, const node_ref& r);

/// Each graph the lowering put into the top one: the top graph and its If branches, nested ones too.
void inlined_graphs(::onnx::ModelProto& m, std::vector<std::pair<int, int>>& path,
                    const std::function<void(::onnx::GraphProto&, const std::vector<std::pair<int, int>>&)>& visit);

/// The path to the graph `target` (a Loop's or Scan's body), searched through every graph attribute.
std::optional<std::vector<std::pair<int, int>>> path_to(const ::onnx::ModelProto& m, const ::onnx::GraphProto* target);

/// The node of type `op` whose first output the layer `layer` computes, in the graph at `start` (the top
/// graph, or a body) or one of its If branches; `names` binds that graph's tensor names to its layers.
/// (An If whose condition is a constant binds its outputs to its branch's layers: the type tells them apart.)
std::optional<node_ref> locate(::onnx::ModelProto& m, std::vector<std::pair<int, int>> start,
                               const std::unordered_map<std::string, model::source>& names, std::size_t layer,
                               std::string_view op);

/// The names `g` reads: its outputs, and every input of a node one of whose outputs it reads (of the nodes
/// of its subgraphs too, which may read the graph's names).
std::set<std::string> read_names(const ::onnx::GraphProto& g);
/// What drop_unread took out of a graph.
struct unread_dropped {
  std::set<std::string> names;  ///< the tensors the file read that nothing reads now, and the nodes' taken out
  std::vector<int> nodes;       ///< the indices the nodes taken out had, last first
  /// The large initializers left out of the parse (skimmed_model::left_out), by their indices now.
  std::unordered_map<std::size_t, left_out_field> left_out;
};
/// What the rewrites left unread in `edited` (a copy of the top graph `file`, rewritten), taken out: the
/// nodes and initializers that computed or held only tensors `file` read and `edited` no longer does (a
/// computed pattern's old initializer, the nodes that built it), and their value_info. ONNX Runtime warns on
/// every load of a model with an initializer no node reads. What the file already left unread is the
/// author's to keep, and so is everything such a node reads. An initializer that is also a graph input, or
/// whose weights were left out of the parse (`left_out`), stays.
unread_dropped drop_unread(const ::onnx::GraphProto& file, ::onnx::GraphProto& edited,
                           const std::unordered_map<std::size_t, left_out_field>& left_out);

/// The initializer or Constant node that holds the tensor `name` as node `reader` sees it: in its own
/// graph, else in the graphs around it, as ONNX scopes names (a branch's or a body's tensors are not
/// seen from outside it; a body's input of that name hides the ones around it). A name given twice is
/// the last one, as the reader and ONNX Runtime take it (a Constant node's after every initializer).
/// A Constant node of `value_ints` or `value_int` holds the int64 tensor they stand for: with `edit`, the
/// node is made to hold it as its `value` (what fix writes into); without, `holder::made` is a copy.
std::optional<holder> holder_of(::onnx::ModelProto& m, const std::string& name, const node_ref& reader,
                                bool edit);

/// The tensor `name` is, as node `reader` sees it, past the Identity nodes that pass it on (the lowering reads
/// an Identity as the tensor it passes on): the name of the first tensor no Identity computes.
std::string through_identities(::onnx::ModelProto& m, std::string name, const node_ref& reader);

/// `base`, or `base_2`, `base_3`... : the first that `taken` does not hold; it is taken then.
std::string unique_name(std::set<std::string>& taken, const std::string& base);

}  // namespace reshape1::onnx::detail

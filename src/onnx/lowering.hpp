// Internal: ONNX nodes lowered to registry ops, as OpenVINO's ONNX frontend lowers them. The reader
// (read.cpp) owns the protobuf and the graph being built; each translation (lower/<family>.cpp) reads one
// node's attributes and inputs through `node_context` (lower/context.cpp) and adds the layers that compute
// its outputs.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/graph/build.hpp"
#include "onnx/op_list.hpp"
#include "reshape1/element_type.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::onnx::detail {

using model::source;

/// Where a tensor's external data `location` is, in `directory` (the model's): refused (error(bad_file)
/// naming `file` and `tensor`) when it is empty, absolute, goes up, holds a NUL, cannot be resolved, leads
/// out through a symbolic link, or when `directory` is empty (a model read from memory); the hint names
/// the option that gives a directory as `spelling` writes it.
[[nodiscard]] std::filesystem::path external_path(const std::filesystem::path& directory, const std::string& location,
                                                  const std::string& file, const std::string& tensor,
                                                  model::option_spelling spelling);

/// The directory a model file lies in, where its external data is looked for ("." for a bare name). A
/// model read from memory is given none (an empty path), and its external data is refused.
[[nodiscard]] std::filesystem::path directory_of(const std::filesystem::path& file);

/// The dims of a declared tensor type: a size, or a dynamic dimension for a dim_param or an unset dim.
/// With `names` (the top graph's declarations), a dim_param that reads as a symbol's name
/// (model::detail::reads_as_symbol; `floor(H/2)` or `batch size` would not read back) is that symbol:
/// dimensions the model declares with one name are one size, and reports show it (`[?@batch,?@seq]`).
/// Never a body's: a Loop's or Scan's graph may reuse a name for another size.
[[nodiscard]] std::optional<std::vector<dimension>> declared_dims(const ::onnx::TypeProto& type, bool names = false);
/// Dims as a Parameter's `shape` attribute: a size, a symbol (`?@H`), or -1 for a dynamic dimension.
[[nodiscard]] std::string dims_text(const std::vector<dimension>& dims);

/// ONNX's TensorProto.DataType as reshape1's element type; nullopt for types reshape1 has no name for.
[[nodiscard]] std::optional<element_type> element_of(int onnx_type) noexcept;
/// The ONNX data type of `t` (element_of the other way); nullopt for a type ONNX's reader does not read.
[[nodiscard]] std::optional<int> onnx_type_of(element_type t) noexcept;
/// An ONNX data type as messages name it: reshape1's name ("f32"), or "ONNX data type N" where it has none.
[[nodiscard]] std::string onnx_type_name(int onnx_type);
/// A node's op version as messages name it: `Relu-14`, `com.microsoft.FusedMatMul-1` (its schema's domain,
/// and the version it is of).
[[nodiscard]] std::string version_name(const ::onnx::NodeProto& node, const listed_op& schema);

/// Whether a tensor of `count` elements is small enough, and shaped so, that its values are kept where the
/// parse holds them: up to max_value_elements, or up to max_grid_elements for a grid, a table of positions
/// or a scale (rank 2 at most, or a leading 1), not a convolution's weights ([O,I,kh,kw] with O above 1),
/// most of a network's tensors of that size. (tensors.cpp)
[[nodiscard]] bool kept_shape(const ::onnx::TensorProto& t, std::uint64_t count);

/// The length of each initializer's raw_data that the parse left out (skim.hpp), by the parsed tensor.
using left_out_raw = std::unordered_map<const ::onnx::TensorProto*, std::uint64_t>;

class graph_lowering;

/// The tensor names of a Loop's or Scan's body, for fix, which writes the body's declared dims: a body is
/// a graph of its own, so its names are not among the model's. `layers` are the Loop and TensorIterator
/// layers that lead to it, outermost first, each an index into the layers of the graph before it (the
/// model's, then a body's); `names` gives the layer output of the body's graph that computes each name.
struct body_names {
  const ::onnx::GraphProto* graph = nullptr;
  std::string node;  ///< the node that holds the body
  std::string op;    ///< its op type
  std::vector<std::size_t> layers;
  std::unordered_map<std::string, source> names;
};

/// A tensor's data as raw little-endian bytes: a view of the parsed model's raw_data when it has one (no
/// copy), else bytes converted from the typed fields or read from an external file, owned here. Moving
/// keeps `bytes` valid (a vector's move keeps its buffer); copying would not, so there is none.
struct tensor_data {
  std::vector<std::byte> owned;
  std::span<const std::byte> bytes;

  tensor_data() = default;
  tensor_data(tensor_data&&) noexcept = default;
  tensor_data& operator=(tensor_data&&) noexcept = default;
  tensor_data(const tensor_data&) = delete;
  tensor_data& operator=(const tensor_data&) = delete;
};

struct held_values;

/// What a tensor name of the graph being lowered stands for: the layer output that computes it, and what the
/// file says of it.
struct known_value {
  source at;
  std::optional<std::size_t> rank;                ///< declared or constant rank
  const ::onnx::TensorProto* constant = nullptr;  ///< the initializer or Constant value behind it
  std::optional<element_type> type;               ///< declared (graph input, value_info) or constant element type
  /// Not a tensor but a sequence or an optional the lowering follows (lower/sequence.cpp): what it holds. `at` is
  /// then a placeholder Const no translation reads (a node that takes it as a tensor is not covered).
  std::shared_ptr<const held_values> held = nullptr;
};

/// A sequence's tensors in order, or an optional's (none or one), where the graph gives them at lowering time:
/// SequenceConstruct's inputs, a SequenceInsert at a constant position, a SplitToSequence of known lengths.
struct held_values {
  bool optional = false;
  std::vector<known_value> items;
  /// The items' element type (a sequence may be empty: SequenceEmpty's dtype), where known.
  std::optional<element_type> type;
  /// False for a sequence or optional the lowering does not follow, read from a body's enclosing graph.
  bool followed = true;
  /// A sequence of maps (ai.onnx.ml.ZipMap's: one map per row of `items[0]`, the tensor it was made of). That
  /// tensor stands for it where a graph gives it out, so that the batch analysis sees a map per sample; no op
  /// reshape1 translates reads one.
  bool maps = false;
};

/// One node being lowered: its inputs (as layer outputs), attributes and version, and the layers it adds.
class node_context {
 public:
  node_context(graph_lowering& g, const ::onnx::NodeProto& node, std::size_t index, int version)
      : g_(g), node_(node), index_(index), version_(version) {}

  [[nodiscard]] const ::onnx::NodeProto& node() const noexcept { return node_; }
  [[nodiscard]] int version() const noexcept { return version_; }
  /// Input i, or nullopt when the node has no input i or it is named "" (an optional input left out).
  [[nodiscard]] std::optional<source> input(std::size_t i) const;
  /// Input i, which the node must have (error(bad_file) naming the node otherwise).
  [[nodiscard]] source need(std::size_t i) const;
  [[nodiscard]] std::size_t inputs() const noexcept { return static_cast<std::size_t>(node_.input_size()); }
  [[nodiscard]] std::size_t outputs() const noexcept { return static_cast<std::size_t>(node_.output_size()); }
  /// Whether output i exists and is used by name (an output named "" is not produced).
  [[nodiscard]] bool has_output(std::size_t i) const;
  /// What input i stands for, a tensor or a sequence or an optional the lowering follows (lower/sequence.cpp);
  /// nullptr when the node has no input i or it is named "".
  [[nodiscard]] const known_value* input_value(std::size_t i) const;
  /// Node output i stands for `v` (an input's value passed on, or a sequence or an optional made here).
  void output_value(std::size_t i, known_value v);
  /// Node output i is the sequence or optional `held`.
  void output_held(std::size_t i, held_values held);
  /// `v` where a tensor is needed: itself, or for a sequence or an optional a layer no rule covers, fed by what it
  /// holds, `why` saying what it is (graph_lowering::opaque_of).
  source opaque(const known_value& v, const std::string& why);

  [[nodiscard]] const ::onnx::AttributeProto* attribute(std::string_view name) const;
  [[nodiscard]] std::int64_t i(std::string_view name, std::int64_t fallback) const;
  [[nodiscard]] std::optional<std::int64_t> i(std::string_view name) const;
  [[nodiscard]] float f(std::string_view name, float fallback) const;
  [[nodiscard]] std::string s(std::string_view name, std::string_view fallback) const;
  [[nodiscard]] std::optional<std::vector<std::int64_t>> ints(std::string_view name) const;
  [[nodiscard]] std::optional<std::vector<float>> floats(std::string_view name) const;

  /// The values of input i when a Const (initializer or Constant node) feeds it, as integers.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> constant_ints(std::size_t i) const;
  /// The values of input i when a Const of a real or integer type feeds it, as doubles.
  [[nodiscard]] std::optional<std::vector<double>> constant_reals(std::size_t i) const;
  /// The dims of input i when a Const feeds it.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> constant_dims(std::size_t i) const;
  /// Input i's Const under other dims of the same element count (what a folded Reshape of it gives);
  /// nullopt when no Const feeds it or the counts differ.
  std::optional<source> constant_as(std::size_t i, const std::vector<std::int64_t>& dims);
  /// The length of input i along `axis` (from the end where negative) when it is fixed whatever the sizes the model
  /// is asked about: a Const's. (Not a graph input's declared size: `check --batch` and `--shape` change those, and a
  /// translation that counted on one would fail at another size where the model runs.)
  [[nodiscard]] std::optional<std::int64_t> known_length(std::size_t i, std::int64_t axis) const;
  /// The dims a graph input feeding input i declares (nullopt for any other tensor): what ONNX Runtime's shape
  /// inference checks when it loads the model.
  [[nodiscard]] std::optional<std::vector<dimension>> declared_input_dims(std::size_t i) const;
  /// The value type of the map a graph input feeding input i declares (read.cpp: a Parameter of no shape stands for
  /// a map); nullopt for any other input.
  [[nodiscard]] std::optional<element_type> map_value_type(std::size_t i) const;
  /// The rank of input i when the model declares it (graph input, value_info, or a Const), or the translation of the
  /// node that computes it gives it (ai.onnx.ml's: lower/ml.cpp).
  [[nodiscard]] std::optional<std::size_t> rank(std::size_t i) const;

  using attributes = std::vector<std::pair<std::string, std::string>>;
  /// Adds a layer of registry op (type, opset) fed by `in`, with `outputs` outputs; returns its first.
  source add(std::string_view type, int opset, std::vector<source> in, attributes a = {}, std::size_t outputs = 1);
  /// A Const of i64 values (`dims` empty: a scalar when one value, else 1-D).
  source i64(std::vector<std::int64_t> values, std::optional<std::vector<std::int64_t>> dims = std::nullopt);
  /// A Const of f32 values, 1-D (or a scalar when `scalar`).
  source f32(std::vector<float> values, bool scalar = false);
  /// A Const holding an ONNX tensor (a Constant node's value).
  source constant_tensor(const ::onnx::TensorProto& t);
  /// A Const holding an ONNX sparse tensor made dense (graph_lowering::sparse_constant).
  source sparse_constant(const ::onnx::SparseTensorProto& t);
  /// Node output i is a Const holding `t`, whose values translations of later nodes may read.
  void output_constant(std::size_t i, const ::onnx::TensorProto& t);
  /// Likewise for a tensor the translation made (a Constant's `value_ints` as the tensor it stands for):
  /// the lowering keeps it as long as it keeps the node's.
  void output_constant(std::size_t i, ::onnx::TensorProto&& t);
  /// The element type of input i when a Const feeds it.
  [[nodiscard]] std::optional<element_type> constant_type(std::size_t i) const;
  /// The element type of input i when the model declares it (graph input, value_info) or a Const gives it.
  [[nodiscard]] std::optional<element_type> declared_type(std::size_t i) const;
  /// Node output i is layer output s.
  void output(std::size_t i, source s);

  /// Refuses the node: error(bad_file) naming it, with `hint` apart (`what` may quote names that hold "; ",
  /// where a message in one piece has its hint).
  [[noreturn]] void bad(const std::string& what, std::string hint = {}) const;
  /// Leaves the node to a layer no rule covers (its outputs unknown): `check` reports it as not covered
  /// and `check --batch` cannot tell past it. `why` says what is missing.
  void not_covered(const std::string& why);

  /// Lowers a subgraph (an If branch) into the graph being built, reading the tensors around it by name;
  /// returns what its outputs stand for.
  std::vector<known_value> inline_subgraph(const ::onnx::GraphProto& sub);
  /// One run of SequenceMap's body: inline_subgraph of `sub` with its inputs standing for `inputs`, in order, and
  /// every name `sub` (and the graphs in it) defines bound again as it was before, once its outputs are read.
  std::vector<known_value> run_body(const ::onnx::GraphProto& sub, std::span<const known_value> inputs);
  /// The most body nodes SequenceMap runs lower in a model: each run is its body inlined again, so a chain of maps
  /// of long sequences would otherwise cost their product.
  static constexpr std::size_t most_mapped_nodes = 65536;
  /// Counts `nodes` more body nodes lowered as SequenceMap runs against most_mapped_nodes (one count for the model's
  /// graph and the bodies lowered apart); false, counting nothing, where they would pass it.
  bool take_mapped_nodes(std::size_t nodes);
  /// Whether the graph being lowered, or one around it, defines the tensor `name` (so far).
  [[nodiscard]] bool defined_around(const std::string& name) const;
  /// Holds the nodes of a subgraph that is not lowered (the branch a constant condition does not take) to the
  /// checks ONNX Runtime makes of every node when it loads a model, run or not: see graph_lowering::check_not_run.
  void check_not_run(const ::onnx::GraphProto& sub);
  /// A subgraph lowered into a graph of its own (a Loop's or a Scan's body): see graph_lowering::lower_body.
  struct lowered_body;
  using axes = std::vector<std::optional<std::int64_t>>;
  [[nodiscard]] lowered_body lower_body(const ::onnx::GraphProto& sub, const axes& squeezed, const axes& unsqueezed);
  /// A body that runs `inner` (a TensorIterator's, from lower_body) on one entry of its inputs' axis 0 at a
  /// time, as Scan-8 runs its body on each batch entry: a Parameter per input, the first `sliced` of them
  /// (an entry [1, ...]) squeezed at axis 0, the rest whole; each of the `outputs` of the TensorIterator
  /// unsqueezed at axis 0 into a Result. `names` are `inner`'s, led here by the layer that runs it.
  [[nodiscard]] lowered_body per_entry_body(std::size_t inputs, std::size_t sliced,
                                            std::shared_ptr<const model::subgraph> inner, std::size_t outputs,
                                            std::vector<body_names> names);
  /// Adds a layer of a registry op that runs `body` (Loop-5), fed by `in`; returns its first output.
  /// `names` are the body's (and its own bodies') tensor names, kept when the lowering is asked for them.
  source add_with_body(std::string_view type, int opset, std::vector<source> in,
                       std::shared_ptr<const model::subgraph> body, std::size_t outputs, std::vector<body_names> names);
  /// A boolean scalar Const.
  source boolean(bool value);

  // Shape helpers built from ops, for translations that need a rank or dimensions only known at run time.
  /// ShapeOf(x), i64.
  source shape_of(source x);
  /// Rank of x as a 0-D i64 tensor.
  source rank_of(source x);
  /// Range(from, rank(x) + end_offset) (1-D i64): the axes from `from` on.
  source axes_from(source x, std::int64_t from);

 private:
  graph_lowering& g_;
  const ::onnx::NodeProto& node_;
  std::size_t index_;
  int version_;
};

using translation = void (*)(node_context&);

/// Refuses a node whose element types ONNX Runtime refuses when it loads the model, where they are known (types.cpp).
void refuse_wrong_types(const node_context& c, const listed_op* schema);
/// The element type an ai.onnx.ml node's output k has by its attributes or input (a classifier's labels: strings
/// or int64; LabelEncoder's values), where they choose it (lower/ml.cpp); nullopt where they do not.
[[nodiscard]] std::optional<element_type> ml_output_type(const node_context& c, int k);

/// One row of the ONNX table: (op_type, since_version) in its domain, and its translation. A row covers the
/// versions of the op list (op_list.hpp) from its since up to the next row's. A row without a translation
/// names why reshape1 leaves the op to "cannot tell" (`why`: its outputs depend on data no rule reads).
struct onnx_entry {
  std::string_view op_type;
  int since;
  translation fn;
  std::string_view domain = "ai.onnx";
  std::string_view why = {};
};
/// A row that leaves (op_type, since) to "cannot tell", saying why.
[[nodiscard]] constexpr onnx_entry untranslated(std::string_view op_type, int since, std::string_view why,
                                                std::string_view domain = "ai.onnx") noexcept {
  return {op_type, since, nullptr, domain, why};
}
/// The table, sorted by domain, op_type, then since_version.
[[nodiscard]] std::span<const onnx_entry> onnx_table() noexcept;
/// The row that covers a version of the op list: the one with the newest since at or below it.
[[nodiscard]] const onnx_entry* find_translation(std::string_view domain, std::string_view op_type, int since) noexcept;
/// The checks ONNX Runtime makes of the graphs a node holds (an If's branches, a Loop's or a Scan's body) when
/// it loads the model, for a node that is not lowered: their output counts, then their nodes
/// (node_context::check_not_run). Nothing for another node. (control_flow.cpp)
void check_graphs(node_context& c);

/// A subgraph lowered into a graph of its own, ready for a port map: its ids are its own.
struct node_context::lowered_body {
  model::graph network;
  std::vector<std::int64_t> parameters;  ///< the body Parameter of each graph input, in order
  std::vector<std::int64_t> results;     ///< the body Result of each graph output, in order
  /// The element type each graph output is computed or declared of, in order, where known.
  std::vector<std::optional<element_type>> result_types;
  /// The tensors of the enclosing graphs the body reads by name: what computes each outside, and the body
  /// Parameter that stands for it inside (an invariant input of the node).
  std::vector<std::pair<source, std::int64_t>> captured;
  /// When the lowering keeps names (graph_lowering::bodies): this body's, then its own bodies', their
  /// `layers` not yet led by the layer that will run this body.
  std::vector<body_names> names;
};

/// The lowering of one graph (the model's, or a subgraph's).
class graph_lowering {
 public:
  graph_lowering(const std::string& file, int opset, model::detail::graph_builder& builder,
                 std::vector<std::byte>& weights)
      : file_(file), opset_(opset), b_(builder), weights_(weights) {}

  using known = known_value;
  /// What computes the tensor `name`: a name this graph binds, else (in a Loop body) one of the graphs
  /// around it, which `outer` makes a Parameter of the body.
  [[nodiscard]] const known* find(const std::string& name) const;
  /// In a Loop body: resolves a name the body does not bind (set by lower_body).
  std::function<const known*(const std::string&)> outer;
  /// Where the names of the bodies lowered here go (fix asks for them), or nullptr.
  std::vector<body_names>* bodies = nullptr;
  /// Lowers `g` into a graph of its own, as OpenVINO's Loop and TensorIterator hold their bodies: a
  /// Parameter per graph input (read through a Squeeze of the axis `squeezed` gives it, when it does: a
  /// Scan's body sees a slice without its scan axis, OpenVINO's one of size 1), a Result per graph output
  /// (after an Unsqueeze of the axis `unsqueezed` gives it: ONNX stacks scan outputs along a new axis),
  /// and a Parameter per tensor of the enclosing graphs the body reads by name. `node` names the layers
  /// the lowering adds.
  [[nodiscard]] node_context::lowered_body lower_body(const ::onnx::GraphProto& g, const node_context::axes& squeezed,
                                                      const node_context::axes& unsqueezed, const std::string& node);
  /// node_context::per_entry_body, for node `node` of op `op`.
  [[nodiscard]] node_context::lowered_body per_entry_body(std::size_t inputs, std::size_t sliced,
                                                          std::shared_ptr<const model::subgraph> inner,
                                                          std::size_t outputs, std::vector<body_names> names,
                                                          const std::string& node, const std::string& op);
  /// Every tensor name bound so far (subgraphs' included) and the layer output that computes it; not the names of
  /// sequences and optionals.
  void export_names(std::unordered_map<std::string, source>& out) const {
    for (const auto& [name, k] : names_)
      if (k.held == nullptr) out.emplace(std::string(name), k.at);  // a sequence or an optional has no tensor shape
  }
  /// Gives the layer outputs that compute the graph's tensors the element types ONNX gives those tensors (declared,
  /// or as the op list says the node gives them), where none is declared: what `shapes` reports and writes. A
  /// translation's own layers may compute in another type (Reciprocal of f16 divides an f32 one by it).
  void type_outputs();
  /// Binds a tensor name (a string of the ModelProto, which outlives the lowering) to what computes it.
  void bind(const std::string& name, known k);
  /// What `name` is bound to in this lowering's own scope (not the graphs around it), if anything.
  [[nodiscard]] std::optional<known> own_binding(std::string_view name) const;
  /// Binds `name` to `k` again, or unbinds it (nullopt): own_binding's value put back.
  void rebind(std::string_view name, std::optional<known> k);
  /// The body nodes SequenceMap runs have lowered in this model so far (node_context::take_mapped_nodes), one count
  /// for the model's graph and the bodies lowered apart.
  std::shared_ptr<std::size_t> mapped_nodes = std::make_shared<std::size_t>(0);
  /// A layer no rule covers that stands for `v` where a tensor is needed of a sequence or an optional (a graph's
  /// output, a body's, an If's merge): fed by every tensor it holds, `why` saying what it is. `v` itself when it is
  /// a tensor.
  source opaque_of(const known& v, const std::string& why, const std::string& name);
  /// Adds a layer; `name` and `byte` say which node it lowers.
  source add(std::string_view type, int opset, std::vector<source> in, node_context::attributes a,
             std::size_t outputs, const std::string& name);
  /// A Const layer holding `t` (an initializer or a Constant node's value), named `name`.
  source constant(const ::onnx::TensorProto& t, const std::string& name);
  /// A Const holding a sparse tensor (a sparse_initializer, a Constant's sparse_value) as the dense one ONNX Runtime
  /// makes of it when it loads the model: its values written where its indices say, zeros elsewhere (its shape only
  /// where too large for a rule to read, or of strings or sub-byte elements). Refused as ONNX Runtime refuses it:
  /// values not 1-D, indices neither [NNZ] nor [NNZ, rank] nor of an integer type, an index outside the shape.
  source sparse_constant(const ::onnx::SparseTensorProto& t, const std::string& name);
  /// A Const holding a tensor of strings: its shape only.
  source string_constant(const ::onnx::TensorProto& t, const std::string& name);
  /// A Const of raw little-endian bytes.
  source constant_bytes(element_type type, std::span<const std::int64_t> dims, std::span<const std::byte> bytes,
                        const std::string& name);
  /// A Const of shape `dims` over the bytes the Const `of` already holds (the same element count), so
  /// that giving an initializer another shape copies nothing; nullopt when `of` is not such a Const.
  std::optional<source> constant_view(source of, std::span<const std::int64_t> dims, const std::string& name);
  /// Lowers a graph's nodes (and, for a subgraph, its initializers) into the graph being built. At the
  /// top level the layer that computes a node's first output takes the node's index as its id; the other
  /// layers a node adds are auxiliary.
  /// A node's row and the version of the op list it runs (the model's import of its domain where the list
  /// has none); `why` says what leaves it to "cannot tell" when there is no row or the row translates
  /// nothing.
  struct looked_up {
    const onnx_entry* entry;
    int version;
    std::string why;
    /// Where `why` is a refusal (the op does not exist at the model's opset), not a gap in the translations:
    /// what to do about it.
    std::string refusal_hint = {};
    /// The version of the op list the node is (nullptr when the list has none for it).
    const listed_op* schema = nullptr;
  };
  [[nodiscard]] looked_up look_up(const ::onnx::NodeProto& node) const;
  /// What ONNX Runtime checks of every node when it loads a model, lowered or not: the op exists at the model's
  /// opset and is not deprecated (`row`'s refusal), its attributes, its input and output counts.
  static void refuse_as_loaded(const node_context& c, const looked_up& row);
  void lower_nodes(const ::onnx::GraphProto& g, bool top);
  /// The nodes of `g`, which is not lowered, held to what ONNX Runtime checks of every node when it loads the
  /// model: that the op exists at the model's opset and is not deprecated, its attributes and its input and
  /// output counts, the output counts of the graphs an If, a Loop or a Scan holds, and so on into those graphs.
  /// (Not what a translation checks of shapes and values: ONNX Runtime does not run the node.)
  void check_not_run(const ::onnx::GraphProto& g);
  /// Gives the outputs of the node `c` lowers the element types its version's type parameters give them (the list's
  /// types; Cast's `to`, the random ops' `dtype`, ConstantOfShape's value for the first output of those ops), where
  /// the model declares none; refuses one the model declares of another type, as ONNX Runtime does.
  void infer_output_types(const node_context& c, const listed_op* schema);
  /// The order g's nodes are lowered in: the file's, but for a weight's name given twice (initializers and
  /// Constant nodes), whose last Constant node comes first and whose other Constant nodes are left out, so
  /// that every node reads the last definition, as ONNX Runtime (which makes Constant nodes initializers)
  /// does. Refuses any other name defined twice in g, naming both definitions.
  std::vector<int> lowering_order(const ::onnx::GraphProto& g) const;
  /// A graph's initializers, as Consts bound to their names.
  void initializers(const ::onnx::GraphProto& g);

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] int opset() const noexcept { return opset_; }
  [[nodiscard]] model::detail::graph_builder& builder() noexcept { return b_; }
  /// Whether the values of a tensor of `count` elements are kept for the rules and analyses to read: up to
  /// max_value_elements, the most propagation reads; up to max_grid_elements where the parse holds its data
  /// already (not left out of it, not in an external file) and it is shaped as a grid, a table or a scale
  /// (rank 2 at most, or a leading 1), for the analyses at new sizes, which read a grid or a range counted
  /// along a size from a constant (copying it costs no more than its length, at most 64 KiB of raw_data,
  /// skim.hpp's min_left_out).
  [[nodiscard]] bool kept_for_rules(const ::onnx::TensorProto& t, std::uint64_t count) const;
  /// Checks that a tensor's data (raw_data, its typed fields, or its external file) is as long as its shape
  /// and type say; with `read`, returns the data as raw little-endian bytes (else nothing). `what` names
  /// the tensor in an error (and for a tensor in an external file); a valid model's tensors inside the
  /// file format no names.
  tensor_data tensor_bytes(const ::onnx::TensorProto& t, const std::function<std::string()>& what,
                           bool read = true) const;
  /// Finds a tensor's external data (refusing a location outside the model's directory) and returns its
  /// length; copies it into `into` when given.
  std::function<std::uint64_t(const ::onnx::TensorProto&, const std::string&, std::vector<std::byte>* into)> external;
  /// Tensors parsed without their raw_data, too long for any rule to read (skim.hpp): its length, checked
  /// as the raw_data's would be.
  const left_out_raw* left_out = nullptr;
  std::int64_t next_id = 0;
  /// The version the model imports of each domain other than the default one.
  std::unordered_map<std::string, int> domain_versions;
  /// The ranks value_info and the graph outputs declare, by tensor name.
  std::unordered_map<std::string_view, std::size_t> declared_ranks;  // names view the ModelProto
  /// The element types value_info and the graph outputs declare, by tensor name.
  std::unordered_map<std::string_view, element_type> declared_types;
  /// The names the subgraphs inlined here define (If branches, SequenceMap runs): their own tensors, which the
  /// graph's value_info and outputs declare nothing of.
  std::unordered_set<std::string_view> inlined;
  /// Keeps a tensor a translation made, where the names bound to it can point (a deque does not move it).
  const ::onnx::TensorProto& keep(::onnx::TensorProto&& t) { return made_.emplace_back(std::move(t)); }

 private:
  source const_layer(element_type type, std::span<const std::int64_t> dims, std::string offset, std::string size,
                     const std::string& name);

  std::string file_;
  int opset_;
  model::detail::graph_builder& b_;
  std::vector<std::byte>& weights_;
  std::unordered_map<std::string_view, known> names_;  // names view the ModelProto, which outlives this
  std::deque<::onnx::TensorProto> made_;
};

/// The version of the default domain ("" or "ai.onnx") a model imports; error(bad_file) naming `file` when it
/// imports none (1 for a model from before opset_import).
[[nodiscard]] int default_opset(const ::onnx::ModelProto& m, const std::string& file);

/// Whether a node is of the default domain ("" or "ai.onnx").
[[nodiscard]] inline bool default_domain(const ::onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

/// Parses an ONNX file's bytes (error(bad_file) naming `file` when protobuf cannot, error(unsupported)
/// from 2 GiB on).
void parse_model(std::span<const std::byte> bytes, const std::string& file, ::onnx::ModelProto& m);
/// error(unsupported) for a file from 2 GiB on, which protobuf cannot parse whole.
void check_model_size(std::span<const std::byte> bytes, const std::string& file);

/// Inlines the model's local functions (ModelProto.functions) into the graphs that call them, as ONNX Runtime
/// does: each call becomes the function's nodes (named `CALL/NODE`, their inner tensors `CALL/TENSOR`), and
/// the functions are cleared. Nodes other than calls keep their objects, so pointers into them stay valid.
/// error(bad_file) naming `file` for a recursive function, one defined twice, a call with more inputs or
/// outputs than its function; error(unsupported) past a million inlined nodes.
void inline_functions(::onnx::ModelProto& m, const std::string& file);

struct skimmed_model;
/// The initializers of `m`, parsed from `skimmed`'s bytes (or a serialisation of an edit of them that
/// keeps their order), and the values of its Constant nodes (parsed from `skimmed`'s bytes themselves),
/// whose raw_data was left out, with its length.
[[nodiscard]] left_out_raw left_out_of(const ::onnx::ModelProto& m, const skimmed_model& skimmed);

/// Lowers a parsed model; `names`, when given, receives each tensor name's layer output (for fix, which
/// writes shapes back into the file by name), and `bodies` the names of each Loop's and Scan's body.
/// `left_out`: the top graph's initializers parsed without their raw_data, and its length. External data is
/// looked for in `directory`; `spelling` is how a refusal's hint names the option that gives another.
[[nodiscard]] model::graph lower(const ::onnx::ModelProto& m, const std::string& file,
                                 const std::filesystem::path& directory, model::option_spelling spelling,
                                 std::unordered_map<std::string, source>* names,
                                 std::vector<body_names>* bodies = nullptr, const left_out_raw* left_out = nullptr);

}  // namespace reshape1::onnx::detail

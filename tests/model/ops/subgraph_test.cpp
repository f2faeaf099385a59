// TensorIterator-1 and Loop-5 through their bodies: the hand-made fixtures of tests/data/models (made by
// make_recurrent.py there), variants of them edited here, and bodies that are not well-formed.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include <fmt/format.h>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "rule_util.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

const fs::path models = fs::path(RESHAPE1_TEST_DATA) / "models";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A fixture, possibly edited, written to a temporary directory.
class body : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reshape1-body-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void use(const char* name) {
    xml_ = slurp(models / name / "model.xml");
    bin_ = slurp(models / name / "model.bin");
  }
  /// Replaces the one occurrence of `from` in the .xml.
  void edit(const std::string& from, const std::string& to) {
    const auto at = xml_.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    ASSERT_EQ(xml_.find(from, at + 1), std::string::npos) << from;
    xml_.replace(at, from.size(), to);
  }
  /// Overwrites the first bytes of the Const named `name` in the .bin.
  void poke(const std::string& name, const std::string& bytes) {
    const auto at = xml_.find("name=\"" + name + "\"");
    ASSERT_NE(at, std::string::npos) << name;
    const auto offset = xml_.find("offset=\"", at) + 8;
    const auto value = std::stoul(xml_.substr(offset, xml_.find('"', offset) - offset));
    bin_.replace(value, bytes.size(), bytes);
  }
  model::graph load() {
    std::ofstream(dir_ / "m.xml") << xml_;
    std::ofstream(dir_ / "m.bin", std::ios::binary) << bin_;
    return model::read_ir(dir_ / "m.xml", dir_ / "m.bin");
  }
  template <class F>
  void expect_unreadable(F edits, const std::string& part) {
    edits();
    try {
      (void)load();
      ADD_FAILURE() << "read; expected an error containing: " << part;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::bad_file) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }

  std::string xml_, bin_;
  fs::path dir_;
};

std::size_t index_of(const model::graph& g, std::int64_t id) {
  return static_cast<std::size_t>(g.find(id) - g.layers().data());
}

std::string i64_bytes(std::int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

TEST_F(body, tensor_iterator_with_an_lstm_cell_propagates_at_its_declared_shapes) {
  use("tensor-iterator-lstm");
  const auto g = load();
  const auto* ti = g.find(3);
  ASSERT_TRUE(ti && ti->body);
  EXPECT_EQ(ti->body->inputs.size(), 3u);
  EXPECT_EQ(ti->body->outputs.size(), 3u);
  EXPECT_EQ(ti->body->back_edges.size(), 2u);
  EXPECT_EQ(ti->body->inputs[0].axis, 1);
  EXPECT_EQ(ti->body->network.layers().size(), 14u);

  const auto p = model::propagate(g);
  const auto& out = p.outputs[index_of(g, 3)];
  EXPECT_EQ(to_string(out[0].shape), "[1,5,8]");  // 5 iterations of [1,1,8], concatenated on axis 1
  EXPECT_EQ(to_string(out[1].shape), "[1,8]");
  const auto* inner = p.body(index_of(g, 3));
  ASSERT_NE(inner, nullptr);
  const auto& b = ti->body->network;
  EXPECT_EQ(to_string(inner->outputs[index_of(b, 0)][0].shape), "[1,1,16]");  // one step of X
  EXPECT_EQ(to_string(inner->outputs[index_of(b, 4)][0].shape), "[1,16]");    // the Reshape inside

  const auto r = model::check(g, p);
  EXPECT_EQ(r.summary.layers.count, 21u);  // 7 outside, 14 in the body
  EXPECT_EQ(r.summary.layers.propagated, 21u);
  EXPECT_EQ(r.summary.layers.shape_mismatches, 0u);
  EXPECT_EQ(r.summary.layers.not_covered, 0u);
  EXPECT_EQ(r.summary.layers.rule_errors, 0u);
  EXPECT_TRUE(r.layers.empty());
  ASSERT_EQ(r.reshapes.size(), 1u);  // the Reshape in the body is checked
  EXPECT_EQ(r.reshapes[0].name, "step");
  EXPECT_EQ(r.reshapes[0].result, model::verdict::ok);
  EXPECT_EQ(r.reshapes[0].within, (std::vector<model::enclosing_layer>{{3, "lstm", "TensorIterator"}}));
  EXPECT_FALSE(r.summary.failed());
}

TEST_F(body, tensor_iterator_iterations_follow_the_sliced_input) {
  use("tensor-iterator-lstm");
  const auto g = load();
  auto at = [&](const char* x, const char* h) {
    const std::vector<model::input_shape> given{
        {index_of(g, 0), parse_shape(x)}, {index_of(g, 1), parse_shape(h)}, {index_of(g, 2), parse_shape(h)}};
    const auto p = model::propagate(g, given);
    return to_string(p.outputs[index_of(g, 3)][0].shape);
  };
  EXPECT_EQ(at("[2,7,16]", "[2,8]"), "[2,7,8]");
  EXPECT_EQ(at("[1,3..6,16]", "[1,8]"), "[1,3..6,8]");
  // The batch keeps the symbol of x's dimension 0 through the body; the unknown step count has none.
  EXPECT_EQ(at("[?,?,16]", "[?,8]"), "[?@x.0,?,8]");
  EXPECT_EQ(at("[...]", "[1,8]"), "[1,?,8]");  // a sliced input of unknown rank: the count is unknown
}

TEST_F(body, a_shape_mismatch_in_the_body_is_found_and_named) {
  use("tensor-iterator-lstm");
  edit("<layer id=\"10\" name=\"y_t\" type=\"Unsqueeze\" version=\"opset1\"><input><port id=\"0\" "
       "precision=\"FP32\"><dim>1</dim><dim>8</dim></port><port id=\"1\" precision=\"FP32\"><dim>1</dim></port></input>"
       "<output><port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>1</dim><dim>8</dim>",
       "<layer id=\"10\" name=\"y_t\" type=\"Unsqueeze\" version=\"opset1\"><input><port id=\"0\" "
       "precision=\"FP32\"><dim>1</dim><dim>8</dim></port><port id=\"1\" precision=\"FP32\"><dim>1</dim></port></input>"
       "<output><port id=\"2\" precision=\"FP32\"><dim>1</dim><dim>1</dim><dim>9</dim>");
  const auto r = model::check(load());
  ASSERT_EQ(r.layers.size(), 1u);
  EXPECT_EQ(r.layers[0].issue, model::layer_issue::shape_mismatch);
  EXPECT_EQ(r.layers[0].name, "y_t");
  EXPECT_EQ(r.layers[0].within, (std::vector<model::enclosing_layer>{{3, "lstm", "TensorIterator"}}));
  EXPECT_TRUE(r.summary.failed());
}

TEST_F(body, batch_follows_into_the_body) {
  use("tensor-iterator-lstm");
  const auto ok = model::check_batch(load(), {.batch = dimension(4)});
  EXPECT_TRUE(ok.summary.reshapes());
  // The body's Reshape hard-codes the batch: [1,16] cannot take [4,1,16], so the TensorIterator fails.
  poke("flatten_pattern", i64_bytes(1) + i64_bytes(16));
  const auto g = load();
  const auto declared = model::check(g);
  ASSERT_EQ(declared.reshapes.size(), 1u);
  EXPECT_TRUE(declared.reshapes[0].blocks_reshape);
  EXPECT_FALSE(declared.reshapes[0].within.empty());
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_FALSE(r.summary.reshapes());
  ASSERT_GE(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].issue, model::batch_issue::fails);
  EXPECT_EQ(r.findings[0].id, 3);
  EXPECT_NE(r.findings[0].what.find("in its body, layer 'step' (id 4)"), std::string::npos) << r.findings[0].what;
}

TEST_F(body, loop_with_a_known_trip_count) {
  use("loop-trip-count");
  const auto g = load();
  const auto p = model::propagate(g);
  const auto& out = p.outputs[index_of(g, 3)];
  EXPECT_EQ(to_string(out[0].shape), "[1,4]");
  EXPECT_EQ(to_string(out[1].shape), "[1,3,4]");  // 3 iterations of [1,1,4] on axis 1
  const auto r = model::check(g, p);
  EXPECT_EQ(r.summary.layers.count, 19u);
  EXPECT_EQ(r.summary.layers.shape_mismatches, 0u);
  EXPECT_EQ(r.summary.layers.not_covered + r.summary.layers.rule_errors, 0u);
  ASSERT_EQ(r.reshapes.size(), 1u);
  EXPECT_EQ(r.reshapes[0].within, (std::vector<model::enclosing_layer>{{3, "accumulate", "Loop"}}));
  const auto batch = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_TRUE(batch.summary.reshapes());
  ASSERT_EQ(batch.outputs.size(), 2u);
  EXPECT_EQ(to_string(batch.outputs[1].reshaped), "[4,3,4]");
}

TEST_F(body, loop_iterations_follow_the_trip_count_and_conditions) {
  auto steps = [&] {
    const auto g = load();
    return to_string(model::propagate(g).outputs[index_of(g, 3)][1].shape);
  };
  use("loop-trip-count");
  poke("trip_count", i64_bytes(5));
  EXPECT_EQ(steps(), "[1,5,4]");
  use("loop-trip-count");
  poke("start", std::string(1, '\0'));  // the first iteration does not run
  EXPECT_EQ(steps(), "[1,0,4]");
  use("loop-trip-count");
  poke("again", std::string(1, '\0'));  // the body stops after one iteration
  EXPECT_EQ(steps(), "[1,1,4]");
  use("loop-trip-count");
  poke("trip_count", i64_bytes(-1));  // no bound, a condition that stays true: unknown
  EXPECT_EQ(steps(), "[1,?,4]");
  // A declared [1,3,4] that the trip count contradicts is a shape_mismatch.
  use("loop-trip-count");
  poke("trip_count", i64_bytes(2));
  const auto r = model::check(load());
  EXPECT_EQ(r.summary.layers.shape_mismatches, 1u);  // the Loop's output
}

TEST_F(body, a_back_edge_whose_shape_grows_is_widened) {
  use("loop-trip-count");
  // The body concatenates the accumulator with a [1,1] Const: [1,4] becomes [1,5], [1,6]...
  edit("<layer id=\"3\" name=\"next\" type=\"Add\" version=\"opset1\"><data auto_broadcast=\"numpy\"/>",
       "<layer id=\"3\" name=\"next\" type=\"Concat\" version=\"opset1\"><data axis=\"1\"/>");
  edit("<layer id=\"2\" name=\"one\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1\"",
       "<layer id=\"2\" name=\"one\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,1\"");
  const auto g = load();
  const auto p = model::propagate(g);
  const auto& out = p.outputs[index_of(g, 3)];
  ASSERT_TRUE(out[0].shape.rank_known());
  EXPECT_EQ(out[0].shape.size(), 2u);
  EXPECT_FALSE(out[0].shape[1].is_static());
  EXPECT_TRUE(out[0].shape[1].range().contains(5));
}

TEST_F(body, bodies_that_cannot_be_read) {
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<input external_port_id=\"1\" internal_layer_id=\"1\"/>",
                               "<input external_port_id=\"1\" internal_layer_id=\"4\"/>"); },
                    "names body layer 4, which is not a Parameter");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<output external_port_id=\"5\" internal_layer_id=\"13\"/>",
                               "<output external_port_id=\"9\" internal_layer_id=\"13\"/>"); },
                    "names port 9, which the layer does not have");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"12\" to-layer=\"1\"/>", "<edge from-layer=\"8\" to-layer=\"1\"/>"); },
                    "a back edge goes from a body Result to a body Parameter; 8 to 1 does not");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"1\"/>", ""); },
                    "in the body of layer 'lstm' (id 3): nothing is connected to input port 1");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"9\" from-port=\"0\" to-layer=\"10\" to-port=\"1\"/>",
                               "<edge from-layer=\"99\" from-port=\"0\" to-layer=\"10\" to-port=\"1\"/>"); },
                    "in the body of layer 'lstm' (id 3): edge from layer 99 port 0 to layer 10 port 1: layer 99 "
                    "does not exist");
  // A body's edges are linked and ordered by the model's own rules: ports, self-feeding and cycles too.
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"9\" from-port=\"0\" to-layer=\"10\" to-port=\"1\"/>",
                               "<edge from-layer=\"9\" from-port=\"0\" to-layer=\"10\" to-port=\"7\"/>"); },
                    "in the body of layer 'lstm' (id 3): edge from layer 9 port 0 to layer 10 port 7: layer 'y_t' "
                    "(id 10) has no input port 7");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"9\" from-port=\"0\" to-layer=\"10\" to-port=\"1\"/>",
                               "<edge from-layer=\"10\" from-port=\"2\" to-layer=\"10\" to-port=\"1\"/>"); },
                    "layer 'y_t' (id 10): in the body of layer 'lstm' (id 3): the layer feeds its own input");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("<edge from-layer=\"5\" from-port=\"0\" to-layer=\"8\" to-port=\"3\"/>",
                               "<edge from-layer=\"10\" from-port=\"2\" to-layer=\"8\" to-port=\"3\"/>"); },
                    "in the body of layer 'lstm' (id 3): the layer is on a cycle of edges");
  use("tensor-iterator-lstm");
  expect_unreadable([&] { edit("part_size=\"1\" start=\"0\" end=\"-1\" stride=\"1\"/><input",
                               "part_size=\"0\" start=\"0\" end=\"-1\" stride=\"1\"/><input"); },
                    "part_size 0 must be positive");
}

TEST_F(body, a_tensor_iterator_refuses_what_its_body_refuses) {
  use("tensor-iterator-lstm");
  const auto g = load();
  // H0 of another batch than X: the LSTMCell in the body refuses it.
  const std::vector<model::input_shape> given{{index_of(g, 1), parse_shape("[3,8]")}};
  const auto p = model::propagate(g, given);
  ASSERT_EQ(p.lost.size(), 1u);
  EXPECT_EQ(p.lost[0].layer, index_of(g, 3));
  EXPECT_NE(p.lost[0].message.find("in its body, layer 'cell' (id 8)"), std::string::npos) << p.lost[0].message;
  const auto r = model::check(g, p);
  EXPECT_EQ(r.summary.layers.rule_errors, 2u);  // the TensorIterator, and the LSTMCell in its body
}


/// TensorIterators nested `depth` deep, each passing [1,2] through to its output; with `growing`, each body
/// also doubles a fed-back state ([1,2], [1,4], [1,8]...), so that every level iterates and widens.
std::string nested(int depth, bool growing = false) {
  const std::string port = "<port id=\"{}\" precision=\"FP32\"><dim>1</dim><dim>2</dim></port>";
  auto p = [&](int id) { return fmt::format(fmt::runtime(port), id); };
  std::string inner = "<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,2\" "
                      "element_type=\"f32\"/><output>" + p(0) + "</output></layer>";
  std::string edges = "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>";
  std::string body = "<body><layers>" + inner +
                     "<layer id=\"2\" name=\"r\" type=\"Result\" version=\"opset1\"><input>" + p(0) +
                     "</input></layer></layers><edges>" + edges + "</edges></body>";
  // The doubling state: Parameter 3 -> Concat 4 (with itself) -> Result 5, fed back to 3.
  const std::string state =
      "<layer id=\"3\" name=\"s\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,2\" element_type=\"f32\"/>"
      "<output>" + p(0) + "</output></layer><layer id=\"4\" name=\"twice\" type=\"Concat\" version=\"opset1\">"
      "<data axis=\"1\"/><input>" + p(0) + p(1) + "</input><output><port id=\"2\" precision=\"FP32\"><dim>1</dim>"
      "<dim>-1</dim></port></output></layer><layer id=\"5\" name=\"s/sink\" type=\"Result\" version=\"opset1\">"
      "<input><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>-1</dim></port></input></layer>";
  const std::string state_edges = "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"0\"/>"
                                  "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"4\" to-port=\"1\"/>"
                                  "<edge from-layer=\"4\" from-port=\"2\" to-layer=\"5\" to-port=\"0\"/>";
  if (growing) {
    body.insert(body.find("</layers>"), state);
    body.insert(body.find("</edges>"), state_edges);
  }
  for (int level = 0; level < depth; ++level) {
    const std::string ti = fmt::format("<layer id=\"1\" name=\"ti{}\" type=\"TensorIterator\" version=\"opset1\">"
                                       "<input>{}{}</input><output>{}</output><port_map>"
                                       "<input external_port_id=\"0\" internal_layer_id=\"0\"/>{}"
                                       "<output external_port_id=\"1\" internal_layer_id=\"2\"/></port_map>{}{}</layer>",
                                       level, p(0), growing ? p(2) : "", p(1),
                                       growing ? "<input external_port_id=\"2\" internal_layer_id=\"3\"/>" : "",
                                       growing ? "<back_edges><edge from-layer=\"5\" to-layer=\"3\"/></back_edges>" : "",
                                       body);
    body = "<body><layers>" + inner + ti + "<layer id=\"2\" name=\"r\" type=\"Result\" version=\"opset1\"><input>" +
           p(0) + "</input></layer>" + (growing ? state : "") +
           "</layers><edges><edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
           "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"2\" to-port=\"0\"/>" +
           (growing ? state_edges + "<edge from-layer=\"3\" from-port=\"0\" to-layer=\"1\" to-port=\"2\"/>" : "") +
           "</edges></body>";
  }
  // The model: the outermost body, unwrapped.
  const auto layers = body.substr(body.find("<layers>"), body.rfind("</layers>") + 9 - body.find("<layers>"));
  const auto model_edges = body.substr(body.rfind("<edges>"), body.rfind("</edges>") + 8 - body.rfind("<edges>"));
  return "<?xml version=\"1.0\"?>\n<net name=\"nested\" version=\"11\">" + layers + model_edges + "</net>\n";
}

TEST_F(body, nested_bodies_propagate_and_their_findings_name_every_enclosing_layer) {
  xml_ = nested(3);
  bin_.clear();
  const auto g = load();
  const auto r = model::check(g);
  EXPECT_EQ(r.summary.layers.count, 3u + 3u + 3u + 2u);  // the model, and the bodies of ti2, ti1, ti0
  EXPECT_EQ(r.summary.layers.propagated, r.summary.layers.count);
  EXPECT_FALSE(r.summary.failed());
  // A declared output that the innermost body contradicts.
  const auto innermost = xml_.rfind("<layer id=\"0\" name=\"p\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,2\" "
                                   "element_type=\"f32\"/><output><port id=\"0\" precision=\"FP32\"><dim>1</dim><dim>2");
  ASSERT_NE(innermost, std::string::npos);
  xml_.replace(xml_.find("<dim>2", innermost), 6, "<dim>3");  // the innermost Parameter declares [1,3]
  const auto bad = model::check(load());
  ASSERT_EQ(bad.layers.size(), 1u);
  EXPECT_EQ(bad.layers[0].issue, model::layer_issue::shape_mismatch);
  EXPECT_EQ(bad.layers[0].within.size(), 3u);
  EXPECT_EQ(bad.layers[0].within[0].name, "ti2");
  EXPECT_EQ(bad.layers[0].within[2].name, "ti0");
}

TEST_F(body, bodies_nested_too_deep_are_refused) {
  xml_ = nested(17);
  bin_.clear();
  expect_unreadable([] {}, "is nested more than 16 deep");
  xml_ = nested(16);
  EXPECT_NO_THROW((void)load());
}


TEST_F(body, nested_back_edges_that_keep_growing_stay_within_a_budget) {
  // Every level iterates its body several rounds, and each round iterates the level below: without a
  // budget the work would grow as rounds^depth.
  xml_ = nested(12, true);
  bin_.clear();
  const auto g = load();
  const auto r = model::check(g);
  EXPECT_EQ(r.summary.layers.rule_errors + r.summary.layers.not_covered, 0u);
  EXPECT_EQ(r.summary.layers.shape_mismatches, 0u);
  const auto p = model::propagate(g);
  EXPECT_EQ(to_string(p.outputs[index_of(g, 4)][0].shape), "[1,4]");  // the model's own Concat: no iteration
  const auto* inner = p.body(index_of(g, 1));
  ASSERT_NE(inner, nullptr);
  const auto& body_graph = g.find(1)->body->network;
  // The doubling Concat in ti11's body: never a static size (unknown once the budget is spent).
  const auto& state = inner->outputs[index_of(body_graph, 4)][0].shape;
  EXPECT_TRUE(!state.rank_known() || !state[1].is_static()) << to_string(state);
}

TEST_F(body, a_body_parameter_fed_by_weights_is_not_on_the_data_path) {
  // The sliced input comes from a Const: the body's Reshape that writes 1 for the first dimension does not
  // hard-code a batch (the same Reshape fed by the model's input does; see batch_follows_into_the_body).
  use("tensor-iterator-lstm");
  edit("<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"1,5,16\" element_type=\"f32\"/>",
       "<layer id=\"0\" name=\"x\" type=\"Const\" version=\"opset1\"><data element_type=\"f32\" shape=\"1,5,16\" "
       "offset=\"0\" size=\"320\"/>");
  poke("flatten_pattern", i64_bytes(1) + i64_bytes(16));
  const auto r = model::check(load());
  ASSERT_EQ(r.reshapes.size(), 1u);
  EXPECT_EQ(r.reshapes[0].result, model::verdict::ok);
  EXPECT_FALSE(r.reshapes[0].blocks_reshape);
  EXPECT_TRUE(r.reshapes[0].warnings.empty());
  EXPECT_EQ(r.summary.layers.shape_mismatches, 0u);
}

// The rows of TensorIterator-1, Loop-5 and IfMerge-1 run on their own (rule_util.hpp's run_layer), on the
// layers of the fixtures with tensors given to their inputs.
const model::layer& layer_named(const model::graph& g, std::string_view name) {
  for (const auto& l : g.layers())
    if (l.name == name) return l;
  throw std::logic_error(std::string(name));
}

model::tensor scalar(std::int64_t v, element_type t) {
  auto x = values({v}, "[]");
  x.type = t;
  return x;
}

TEST(subgraph, tensor_iterator_1_slices_and_concatenates_along_its_axes) {
  const auto g =
      model::read_ir(models / "tensor-iterator-lstm" / "model.xml", models / "tensor-iterator-lstm" / "model.bin");
  const auto& ti = layer_named(g, "lstm");
  // x [1, 5, 16] sliced along axis 1: five iterations; y concatenates each [1, 1, 8] along axis 1.
  const auto out = run_layer(g, ti, {of("[1,5,16]"), of("[1,8]"), of("[1,8]")}, 3);
  EXPECT_EQ(shape_of(out, 0), "[1,5,8]");
  EXPECT_EQ(shape_of(out, 1), "[1,8]");
  EXPECT_EQ(shape_of(out, 2), "[1,8]");
  EXPECT_EQ(out[0].type, element_type::f32);
  // A batch of 4 and sequences of 2..7: as many iterations.
  const auto dynamic = run_layer(g, ti, {of("[4,2..7,16]"), of("[4,8]"), of("[4,8]")}, 3);
  EXPECT_EQ(shape_of(dynamic, 0), "[4,2..7,8]");
  EXPECT_EQ(shape_of(dynamic, 1), "[4,8]");
}

TEST(subgraph, loop_5_counts_iterations_from_its_trip_count_and_conditions) {
  const auto g = model::read_ir(models / "loop-trip-count" / "model.xml", models / "loop-trip-count" / "model.bin");
  const auto& loop = layer_named(g, "accumulate");
  // Trip count 3, a true condition and a body whose condition stays true: three iterations.
  const auto bool_true = scalar(1, element_type::boolean), bool_false = scalar(0, element_type::boolean);
  const auto out = run_layer(g, loop, {scalar(3, element_type::i64), bool_true, of("[1,4]")}, 2);
  EXPECT_EQ(shape_of(out, 0), "[1,4]");
  EXPECT_EQ(shape_of(out, 1), "[1,3,4]");
  // The trip count's value decides the concatenated dimension (why the row declares every input's values).
  EXPECT_EQ(shape_of(run_layer(g, loop, {scalar(5, element_type::i64), bool_true, of("[1,4]")}, 2), 1), "[1,5,4]");
  EXPECT_EQ(shape_of(run_layer(g, loop, {scalar(5, element_type::i64), bool_false, of("[1,4]")}, 2), 1), "[1,0,4]");
  const auto unknown = run_layer(g, loop, {of("[]", element_type::i64), bool_true, of("[1,4]")}, 2);
  EXPECT_EQ(shape_of(unknown, 1), "[1,?,4]");
  try {
    (void)run_layer(g, loop, {of("[2]", element_type::i64), bool_true, of("[1,4]")}, 2);
    ADD_FAILURE() << "a trip count of two elements was not refused";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_shape) << e.what();
    EXPECT_NE(std::string(e.what()).find("the trip count [2] must be a scalar"), std::string::npos) << e.what();
  }
}

TEST(subgraph, if_merge_1_takes_the_branch_a_known_condition_chooses) {
  const auto cond = [](std::int64_t v) { return scalar(v, element_type::boolean); };
  EXPECT_EQ(shape_of(run("IfMerge", 1, {}, {cond(1), of("[1,3]"), of("[1,5]")})), "[1,3]");
  EXPECT_EQ(shape_of(run("IfMerge", 1, {}, {cond(0), of("[1,3]"), of("[1,5]")})), "[1,5]");
  // Unknown: what both allow (the hull of 3 and 5; an unknown rank for two ranks).
  const auto both = run("IfMerge", 1, {}, {of("[]", element_type::boolean), of("[1,3]"), of("[1,5]")});
  EXPECT_EQ(shape_of(both), "[1,3..5]");
  EXPECT_EQ(both[0].type, element_type::f32);
  EXPECT_EQ(shape_of(run("IfMerge", 1, {}, {of("[]", element_type::boolean), of("[1,3]"), of("[3]")})), "[...]");
  // The chosen branch's values come along.
  const auto v = run("IfMerge", 1, {}, {cond(0), values({1, 2}), values({7, 8, 9})});
  EXPECT_EQ(shape_of(v), "[3]");
  EXPECT_EQ(model::detail::exact_values(v[0].value), (std::vector<std::int64_t>{7, 8, 9}));
}

}  // namespace
}  // namespace reshape1::test

// The weights of an ONNX model are parsed by their length only (src/onnx/skim.hpp): what reading the
// model says must be what it said when protobuf parsed every byte.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "../../fix_parts.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"
#include "io/files.hpp"
#include "onnx/skim.hpp"

namespace reshape1::test {
namespace {

constexpr std::int64_t width = 20000;  // 80,000 bytes of f32: above the 64 KiB left out

/// y = Reshape(x + w, [1, -1]), x [1, width], w an f32 initializer of `dims` holding `raw` bytes.
std::string model_with_weight(std::vector<std::int64_t> dims, std::size_t raw) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* x = g->add_input();
  x->set_name("x");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(1);
  xt->mutable_shape()->add_dim()->set_dim_value(1);
  xt->mutable_shape()->add_dim()->set_dim_value(width);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  for (const auto d : dims) w->add_dims(d);
  w->set_raw_data(std::string(raw, '\x01'));
  auto* p = g->add_initializer();
  p->set_name("p");
  p->set_data_type(7);
  p->add_dims(2);
  p->add_int64_data(1);
  p->add_int64_data(-1);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("s");
  auto* r = g->add_node();
  r->set_op_type("Reshape");
  r->set_name("flat");
  r->add_input("s");
  r->add_input("p");
  r->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string error_of(const std::string& model) {
  try {
    (void)onnx::read(bytes_of(model), "m.onnx");
  } catch (const error& e) {
    return std::string(name(e.code())) + ": " + e.what();
  }
  return "read";
}

/// A length-delimited field of protobuf's wire format.
std::string field(int number, const std::string& payload) {
  std::string out;
  const auto varint = [&](std::uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  };
  varint(static_cast<std::uint64_t>(number) << 3 | 2);
  varint(payload.size());
  return out + payload;
}

TEST(onnx_skim, a_large_weight_is_read_by_its_length) {
  const auto g = onnx::read(bytes_of(model_with_weight({width}, width * 4)), "m.onnx");
  const auto report = model::check(g);
  EXPECT_FALSE(report.summary.failed());
  bool found = false;
  for (const auto& l : g.layers())
    if (l.name == "w") {
      found = true;
      ASSERT_EQ(l.outputs.size(), 1u);
      EXPECT_EQ(to_string(l.outputs[0].shape()), "[20000]");
    }
  EXPECT_TRUE(found);
}

TEST(onnx_skim, a_large_weight_of_the_wrong_length_is_refused_as_before) {
  EXPECT_EQ(error_of(model_with_weight({width + 1}, width * 4)),
            "bad_file: m.onnx: tensor 'w': 80000 bytes of data for a f32 tensor of 20001 elements (80004 bytes)");
  // A tensor small enough for a rule to read, with far more data than its shape holds.
  EXPECT_EQ(error_of(model_with_weight({2}, width * 4)),
            "bad_file: m.onnx: tensor 'w': 80000 bytes of data for a f32 tensor of 2 elements (8 bytes)");
}

// protobuf keeps the last of a field written twice: the reader must see that one, whichever was left out.
TEST(onnx_skim, the_last_raw_data_of_a_tensor_counts) {
  ::onnx::ModelProto m;
  const auto base = model_with_weight({2}, 8);
  ASSERT_TRUE(m.ParseFromString(base));
  const auto with_second_raw = [&](const std::string& first, const std::string& second) {
    ::onnx::ModelProto copy = m;
    auto* w = copy.mutable_graph()->mutable_initializer(0);
    w->set_raw_data(first);
    auto g = copy.graph();
    copy.clear_graph();
    // The initializer's bytes with one more raw_data field after the first, the graph put back around them.
    std::string graph_bytes;
    for (int k = 0; k < g.initializer_size(); ++k) {
      auto t = g.initializer(k).SerializeAsString();
      if (k == 0) t += field(9, second);
      graph_bytes += field(5, t);
    }
    g.clear_initializer();
    graph_bytes += g.SerializeAsString();
    return copy.SerializeAsString() + field(7, graph_bytes);
  };
  const std::string small(8, '\x02'), large(width * 4, '\x02');
  // The large one last: w [2] holds 80,000 bytes, refused.
  EXPECT_EQ(error_of(with_second_raw(small, large)),
            "bad_file: m.onnx: tensor 'w': 80000 bytes of data for a f32 tensor of 2 elements (8 bytes)");
  // The small one last: the large one before it is gone, and w is read.
  EXPECT_EQ(error_of(with_second_raw(large, small)), "read");
}

// fix parses the model without its weights and puts them back into the fixed bytes: those must be what a
// parse and a serialisation of the whole edited model give, the weights where protobuf writes them.
TEST(onnx_skim, fix_puts_the_weights_back_where_protobuf_writes_them) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(model_with_weight({width}, width * 4)));
  auto* w = m.mutable_graph()->mutable_initializer(0);
  std::string weights(width * 4, '\0');
  for (std::size_t k = 0; k < weights.size(); ++k) weights[k] = static_cast<char>(k * 7 + 3);
  w->set_raw_data(weights);
  w->set_doc_string("a field numbered after raw_data");  // 12: raw_data (9) goes before it
  w->set_data_location(::onnx::TensorProto::DEFAULT);      // 14
  const auto bytes = m.SerializeAsString();
  const auto report = onnx::fix(bytes_of(bytes), "m.onnx");
  ASSERT_TRUE(report.fixed);
  ASSERT_EQ(report.changes.size(), 1u);
  ::onnx::ModelProto fixed;
  ASSERT_TRUE(fixed.ParseFromString(onnx_output(report).model));
  EXPECT_EQ(fixed.graph().initializer(0).raw_data(), weights);
  EXPECT_EQ(fixed.graph().initializer(0).doc_string(), "a field numbered after raw_data");
  EXPECT_EQ(fixed.graph().initializer(1).int64_data(0), 0);  // the pattern's batch, [1,-1] -> [0,-1]
  // protobuf writes the parsed model back byte for byte: the weights are where it puts them.
  EXPECT_EQ(fixed.SerializeAsString(), onnx_output(report).model);
  // The weight's tensor is the original's, field for field.
  EXPECT_EQ(fixed.graph().initializer(0).SerializeAsString(), m.graph().initializer(0).SerializeAsString());
}

/// The same model with w the value of a Constant node (op type `op`, domain `domain`) instead of an
/// initializer; `twice`: the attribute's tensor written in two fields, which protobuf merges (dims
/// appended, the last raw_data kept): the bytes are put together by hand, as protobuf writes one field.
std::string model_with_constant(std::vector<std::int64_t> dims, std::size_t raw, const std::string& op = "Constant",
                                const std::string& domain = "", bool twice = false) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(model_with_weight(std::move(dims), raw)));
  auto g = m.graph();
  m.clear_graph();
  const auto w = g.initializer(0);
  g.mutable_initializer()->DeleteSubrange(0, 1);
  ::onnx::NodeProto c;
  c.set_op_type(op);
  c.set_domain(domain);
  c.set_name("weights");
  c.add_output("w");
  ::onnx::AttributeProto a;
  a.set_name("value");
  a.set_type(::onnx::AttributeProto::TENSOR);
  std::string tensors = field(5, w.SerializeAsString());
  if (twice) {
    ::onnx::TensorProto first = w;
    first.clear_dims();
    first.set_raw_data(std::string(8, '\x02'));
    tensors = field(5, first.SerializeAsString()) + tensors;
  }
  std::string nodes = field(1, c.SerializeAsString() + field(5, a.SerializeAsString() + tensors));
  for (const auto& n : g.node()) nodes += field(1, n.SerializeAsString());
  g.clear_node();
  return m.SerializeAsString() + field(7, nodes + g.SerializeAsString());
}

// Exported models often hold their weights in Constant nodes (PP-OCRv4 rec: 10 of its 11 MB): those are
// left out of the parse as an initializer's are, and read as they were.
TEST(onnx_skim, a_constant_nodes_large_value_is_read_by_its_length) {
  const auto model = model_with_constant({width}, width * 4);
  const auto s = onnx::detail::skim(bytes_of(model), "m.onnx", {.constants = true});
  ASSERT_EQ(s.constants_left_out.size(), 1u);
  EXPECT_EQ(s.constants_left_out.begin()->first, (std::pair<std::size_t, std::size_t>{0, 0}));
  EXPECT_EQ(s.constants_left_out.begin()->second.length, std::uint64_t{width * 4});
  EXPECT_TRUE(s.left_out.empty());
  ::onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(s.bytes));
  EXPECT_FALSE(parsed.graph().node(0).attribute(0).t().has_raw_data());
  EXPECT_EQ(parsed.graph().node(0).attribute(0).t().dims(0), width);
  // Without the option (fix, shapes -o: put_back restores initializers only), Constant nodes stay whole.
  EXPECT_TRUE(onnx::detail::skim(bytes_of(model), "m.onnx").bytes.empty());

  const auto g = onnx::read(bytes_of(model), "m.onnx");
  EXPECT_FALSE(model::check(g).summary.failed());
  bool found = false;
  for (const auto& l : g.layers())
    if (l.name == "w") {
      found = true;
      EXPECT_EQ(to_string(l.outputs[0].shape()), "[20000]");
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(error_of(model_with_constant({width + 1}, width * 4)),
            "bad_file: m.onnx: tensor 'w': 80000 bytes of data for a f32 tensor of 20001 elements (80004 bytes)");
  EXPECT_EQ(error_of(model_with_constant({2}, width * 4)),
            "bad_file: m.onnx: tensor 'w': 80000 bytes of data for a f32 tensor of 2 elements (8 bytes)");
}

// Only a value the reader reads knowing what was left out is left out: a Constant of the default domain,
// its tensor given once.
TEST(onnx_skim, only_a_constant_nodes_own_value_is_left_out) {
  for (const auto& [op, domain, twice] : {std::tuple<std::string, std::string, bool>{"Custom", "", false},
                                          {"Constant", "com.example", false}, {"Constant", "", true}}) {
    const auto model = model_with_constant({width}, width * 4, op, domain, twice);
    const auto s = onnx::detail::skim(bytes_of(model), "m.onnx", {.constants = true});
    EXPECT_TRUE(s.bytes.empty()) << op << " " << domain << " " << twice;
    EXPECT_TRUE(s.constants_left_out.empty()) << op << " " << domain << " " << twice;
  }
  // ai.onnx is the default domain by its other name.
  EXPECT_EQ(onnx::detail::skim(bytes_of(model_with_constant({width}, width * 4, "Constant", "ai.onnx")), "m.onnx",
                               {.constants = true})
                .constants_left_out.size(),
            1u);
  // The merged tensor is read as protobuf merges it: dims appended ([20000]), the last raw_data kept.
  EXPECT_EQ(error_of(model_with_constant({width}, width * 4, "Constant", "", true)), "read");
}

TEST(onnx, a_tensor_too_large_for_any_storage_is_named_with_its_file) {
  EXPECT_EQ(error_of(model_with_weight({std::int64_t{1} << 31, std::int64_t{1} << 31}, 16)),
            "bad_file: m.onnx: tensor 'w': 4611686018427387904 elements of f32 need more than 2^64 bytes");
}

TEST(onnx_skim, a_file_cut_inside_a_weight_is_not_a_model) {
  const auto whole = model_with_weight({width}, width * 4);
  EXPECT_EQ(error_of(whole.substr(0, whole.size() / 2)),
            "bad_file: m.onnx: not an ONNX model: protobuf cannot parse it as a ModelProto");
}

// A model over 1 MiB is mapped, not read: when another program cuts the file short while reshape1 reads
// it, the reads of the lost pages fault. The walk that leaves the weights out, and the parse of a file
// whose weights it cannot leave out, read guarded: error(io) naming the file, not SIGBUS.
TEST(onnx_skim, a_file_that_shrinks_while_it_is_read_is_a_clean_error) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("reshape1_shrink_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto file = dir / "m.onnx";
  // One model whose weight is left out of the parse (raw_data), one whose weight protobuf parses
  // (float_data: nothing for the walk to leave out, the file read again into memory), one whose weight is
  // a Constant node's value.
  ::onnx::ModelProto typed;
  ASSERT_TRUE(typed.ParseFromString(model_with_weight({width}, width * 4)));
  auto* w = typed.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  for (std::int64_t k = 0; k < width * 20; ++k) w->add_float_data(1.0F);
  w->clear_dims();
  w->add_dims(width * 20);
  const std::vector<std::string> models{model_with_weight({width * 20}, width * 80), typed.SerializeAsString(),
                                        model_with_constant({width * 20}, width * 80)};
  for (const auto& model : models) {
    ASSERT_GT(model.size(), std::size_t{1} << 20);
    for (const std::uintmax_t kept : {std::uintmax_t{0}, std::uintmax_t{4096}}) {
      // read_any and fix map the file twice (its first bytes tell the format, then the read): cut at the
      // second.
      const std::vector<std::tuple<std::string, std::function<void()>, int>> runs{
          {"read", [&] { (void)onnx::read(file); }, 1},
          {"fix", [&] { (void)onnx::fix(file); }, 2},
          {"read_any", [&] { (void)onnx::read_any(file); }, 2}};
      for (const auto& [what, run, cut_at] : runs) {
        std::ofstream(file, std::ios::binary) << model;
        int mapped = 0;
        io::detail::on_mapped([&, cut_at = cut_at](const fs::path& p) {
          if (++mapped == cut_at) fs::resize_file(p, kept);
        });
        try {
          run();
          ADD_FAILURE() << what << ": no error";
        } catch (const error& e) {
          EXPECT_EQ(e.code(), errc::io) << what;
          EXPECT_NE(std::string(e.what()).find("m.onnx: the file became shorter while it was being read"),
                    std::string::npos)
              << what << ": " << e.what();
        }
        io::detail::on_mapped({});
      }
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace reshape1::test

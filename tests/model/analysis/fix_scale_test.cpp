// fix at the scale of real models, as a deterministic guard (the times are in bench/fix_scale): K copies
// of the shared YOLO11n side by side, 8 Reshapes to rewrite in each. fix keeps every rewrite, with no cap
// on their number, and the shape rules it runs grow with the layers and the checked batches, not with the
// rewrites times the layers. And a chain of Reshapes, each seen once the one before it is rewritten.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "../../fix_parts.hpp"
#include "../ir_builder.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/engine.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

/// Writes `copies` disjoint copies of `xml` into dir/m.xml (ids shifted, names suffixed; the copies share
/// the .bin, which is linked or copied beside it). Returns the number of layers.
std::size_t write_copies(const fs::path& xml, int copies, const fs::path& dir) {
  pugi::xml_document d;
  EXPECT_TRUE(d.load_file(xml.c_str(), pugi::parse_default | pugi::parse_declaration));
  auto net = d.child("net");
  auto layers = net.child("layers"), edges = net.child("edges");
  long long stride = 0;
  for (const auto& l : layers.children("layer")) stride = std::max(stride, l.attribute("id").as_llong() + 1);
  const std::vector<pugi::xml_node> first_layers(layers.children("layer").begin(), layers.children("layer").end());
  const std::vector<pugi::xml_node> first_edges(edges.children("edge").begin(), edges.children("edge").end());
  for (int k = 1; k < copies; ++k) {
    for (const auto& l : first_layers) {
      auto c = layers.append_copy(l);
      c.attribute("id").set_value(l.attribute("id").as_llong() + k * stride);
      c.attribute("name").set_value(fmt::format("{}/copy{}", l.attribute("name").value(), k).c_str());
    }
    for (const auto& e : first_edges) {
      auto c = edges.append_copy(e);
      c.attribute("from-layer").set_value(e.attribute("from-layer").as_llong() + k * stride);
      c.attribute("to-layer").set_value(e.attribute("to-layer").as_llong() + k * stride);
    }
  }
  EXPECT_TRUE(d.save_file((dir / "m.xml").c_str()));
  std::error_code ec;
  fs::create_hard_link(fs::path(xml).replace_extension(".bin"), dir / "m.bin", ec);
  if (ec) fs::copy_file(fs::path(xml).replace_extension(".bin"), dir / "m.bin");
  return first_layers.size() * static_cast<std::size_t>(copies);
}

/// A scratch directory per test, as ir_builder.hpp's fixture gives.
using fixing_at_scale = ir;

// K = 20, 160 rewrites, and K = 34, 272 (past the 256 at which the old fix stopped and blamed the model).
// The shape rules fix runs, per layer and per checked batch plus two (the propagations at the declared
// inputs, and the first look at a dynamic batch), stay under a constant c = 6 at both sizes: the work grows
// with the layers, not with the rewrites times the layers, and a judgement runs only the rules of the
// layers its rewrites reach (c was 12 when each judgement propagated the whole model). bench/README.md
// gives the measured value.
TEST_F(fixing_at_scale, twenty_copies_of_yolo11n_every_rewrite_kept_in_linear_work) {
  const auto xml = shared_model("yolo11n-int8-ov2025.2/yolo11n.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  for (const int copies : {20, 34}) {
    SCOPED_TRACE(copies);
    const auto dir = dir_ / std::to_string(copies);
    fs::create_directories(dir);
    const auto layers = write_copies(xml, copies, dir);
    const model::fix_options options;  // checked at 1, 2, 8 and ?
    const auto before = model::detail::rule_calls();
    const auto r = onnx::fix(dir / "m.xml", with_bin(options, dir / "m.bin"));
    const auto calls = model::detail::rule_calls() - before;
    EXPECT_TRUE(r.fixed);
    EXPECT_TRUE(r.refusals.empty());
    EXPECT_EQ(r.changes.size(), 8u * static_cast<std::size_t>(copies));
    EXPECT_EQ(r.checked.size(), 4u);
    for (const auto& line : r.checked) EXPECT_TRUE(line.find(": yes") != std::string::npos) << line;
    const double per = static_cast<double>(calls) / static_cast<double>(layers * (4 + 2));
    RecordProperty(fmt::format("rule_calls_per_layer_and_batch_k{}", copies), fmt::format("{:.2f}", per));
    EXPECT_LE(per, 6.0) << calls << " rule calls for " << layers << " layers";
  }
}

/// A chain of `k` channel shuffles on [1,8,4,4] (bench/fix_scale/make_chain.py makes the same): Reshape to
/// [1,2,4,4,4], Transpose, Reshape back, both patterns Consts that write the declared batch 1.
ir_builder chain_of_shuffles(int k) {
  ir_builder b;
  int at = b.parameter("[1,8,4,4]");
  for (int i = 0; i < k; ++i) {
    const int split = b.reshape(at, b.i64({1, 2, 4, 4, 4}), true, "[1,8,4,4]", "[5]", "[1,2,4,4,4]");
    const int t = b.layer("Transpose", "", {"[1,2,4,4,4]", "[5]"}, {"[1,4,2,4,4]"});
    b.edge(split, t, 0);
    b.edge(b.i64({0, 2, 1, 3, 4}), t, 1);
    at = b.reshape(t, b.i64({1, 8, 4, 4}), true, "[1,4,2,4,4]", "[4]", "[1,8,4,4]");
  }
  b.result(at, "[1,8,4,4]");
  return b;
}

// Reshapes one after another: at another batch only the first fails, and each next one is seen once the
// one before it is rewritten, so fix takes a round per Reshape. A round's judgement runs again only the
// layers whose inputs the rewrite changed: the rewritten Reshape and the few up to the next one that
// fails, not the whole rest of the chain. So the rules per layer stay the same as the chain grows four
// times longer (they grew with its length when every layer after a rewrite ran again; bench/README.md
// gives the figures).
TEST_F(fixing_at_scale, a_chain_of_reshapes_runs_each_layer_a_bounded_number_of_times) {
  double per_16 = 0;
  for (const int k : {16, 64}) {
    SCOPED_TRACE(k);
    const auto b = chain_of_shuffles(k);
    (void)load(b.xml(), b.bin());
    const auto before = model::detail::rule_calls();
    const auto r = onnx::fix(dir_ / "m.xml", {.bin = dir_ / "m.bin"});
    const auto calls = model::detail::rule_calls() - before;
    EXPECT_TRUE(r.fixed);
    EXPECT_EQ(r.changes.size(), 2u * static_cast<std::size_t>(k));
    const auto layers = 2 + 5 * static_cast<std::size_t>(k);
    const double per = static_cast<double>(calls) / static_cast<double>(layers * (4 + 2));
    RecordProperty(fmt::format("chain_rule_calls_per_layer_and_batch_k{}", k), fmt::format("{:.2f}", per));
    if (k == 16) per_16 = per;
    else EXPECT_LE(per, per_16 * 1.25) << calls << " rule calls for " << layers << " layers";
  }
}

}  // namespace
}  // namespace reshape1::test

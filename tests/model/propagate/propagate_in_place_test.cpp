// Propagation in place, which fix judges its rewrites with: made an edited graph's in place, a propagation
// is that graph's whole propagation (tensors, lost layers, which layers follow the inputs), and undone it
// is the one it was; a layer after an edit runs only when what it reads changed. The edit is fix's own kind on the shared YOLO11n: every Reshape whose pattern is a
// Const, but the attention block's, gets a clone of it with element 0 set to 0, and special_zero set. At
// batch 2 the attention Reshape, upstream of the edits, fails: a lost layer the propagation keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/files.hpp"
#include "../ir_builder.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/graph/edit.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/propagate/in_place.hpp"
#include "model/propagate/engine.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::test {
namespace {

namespace md = model::detail;

/// What a propagation knows, as text: per layer its outputs' dimension ranges (symbols are named afresh
/// in each propagation), types and value bounds, whether it follows the inputs, and its body's; then the
/// lost layers.
std::string text_of(const model::graph& g, const model::propagation& p) {
  std::string s;
  const auto layers = g.layers();
  EXPECT_EQ(p.outputs.size(), layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    s += fmt::format("{}{}:", layers[i].id, p.follows_inputs[i] ? "*" : "");
    for (const auto& t : p.outputs[i]) {
      if (t.shape.rank_known()) {
        s += " [";
        for (const auto& d : t.shape) s += fmt::format("{},", to_string(dimension(d.range())));
        s += "]";
      } else {
        s += " [...]";
      }
      s += t.type ? fmt::format(" {}", name(*t.type)) : " ?";
      if (t.value)
        for (const auto& e : t.value->elements) s += fmt::format(" {}..{}", e.lo, e.hi);
    }
    s += "\n";
    if (const auto* body = p.body(i); body != nullptr && layers[i].body)
      s += fmt::format("body of {} {{\n{}}}\n", layers[i].id, text_of(layers[i].body->network, *body));
  }
  for (const auto& x : p.lost) s += fmt::format("lost {}: {}\n", layers[x.layer].id, x.message);
  return s;
}

TEST(propagation_in_place, is_the_edited_graphs_and_undoes) {
  const auto xml = shared_model("yolo11n-int8-ov2025.2/yolo11n.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  const auto bin = fs::path(xml).replace_extension(".bin");
  const auto g = model::read_ir(xml, bin);
  const auto layers = g.layers();
  const auto declared = model::propagate(g);

  // fix's edits: a clone of each pattern Const for its Reshape, element 0 rewritten, special_zero set.
  std::vector<md::graph_edit> edits;
  std::vector<std::byte> appended;
  std::int64_t next_id = 0;
  for (const auto& l : layers) next_id = std::max(next_id, l.id + 1);
  const auto bin_size = fs::file_size(bin);
  for (const auto& l : layers) {
    if (md::part_of(l) != md::op_part::reshape || l.sources.size() < 2 || !l.sources[1]) continue;
    if (std::string_view(l.name).find(".attn/") != std::string_view::npos) continue;
    const auto& c = layers[l.sources[1]->layer];
    if (md::part_of(c) != md::op_part::constant) continue;
    const auto bytes = g.const_bytes(c);
    if (bytes.size() < 8) continue;
    edits.push_back({.what = md::graph_edit::kind::clone_layer, .layer = c.id, .name = std::string(c.name) + "/clone",
                     .id = next_id, .consumer = l.id, .port = 1});
    const auto at = appended.size();
    appended.insert(appended.end(), bytes.begin(), bytes.end());
    std::fill(appended.begin() + static_cast<std::ptrdiff_t>(at), appended.begin() + static_cast<std::ptrdiff_t>(at + 8),
              std::byte{0});
    edits.push_back({.what = md::graph_edit::kind::set_attribute, .layer = next_id, .name = "offset",
                     .text = std::to_string(bin_size + at)});
    edits.push_back({.what = md::graph_edit::kind::set_attribute, .layer = l.id, .name = "special_zero", .text = "true"});
    ++next_id;
  }
  ASSERT_EQ(edits.size(), 3u * 5u) << "YOLO11n has 5 Reshapes with a Const pattern outside its attention block";
  const auto weights = std::make_shared<const io::detail::mapped_file>(bin, appended);
  const auto next = md::graph_editor::edited(g, edits, [&](const auto&) { return std::pair<std::shared_ptr<const void>, std::span<const std::byte>>(weights, weights->bytes()); });
  ASSERT_GT(next.layers().size(), layers.size());
  const auto redo = md::layers_to_redo(g, next);
  const auto edited = static_cast<std::size_t>(std::count(redo.begin(), redo.end(), md::redo_always));
  const auto again = edited + static_cast<std::size_t>(std::count(redo.begin(), redo.end(), md::redo_if_inputs_changed));
  EXPECT_EQ(edited, 5u * 2u) << "the clones and the Reshapes";
  // The layers that read an edited one: they run whatever their inputs (a rule may read a Const's bytes).
  std::size_t readers = 0;
  for (std::size_t i = 0; i < next.layers().size(); ++i)
    readers += redo[i] == md::redo_if_inputs_changed &&
               std::any_of(next.layers()[i].sources.begin(), next.layers()[i].sources.end(),
                           [&](const auto& s) { return s && redo[s->layer] == md::redo_always; });
  EXPECT_GT(again, edited) << "and what follows them";
  EXPECT_LT(again, layers.size()) << "some layers are not run again";

  // At the declared shapes, and at batch 2 (where the Reshapes that hard-code batch 1 fail before the edit).
  std::optional<std::size_t> input;
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (md::part_of(layers[i]) == md::op_part::parameter) input = i;
  ASSERT_TRUE(input);
  std::vector<dimension> at2(declared.outputs[*input][0].shape.begin(), declared.outputs[*input][0].shape.end());
  at2[0] = dimension(2);
  for (const auto& given : {std::vector<model::input_shape>{}, std::vector<model::input_shape>{{*input, partial_shape(at2)}}}) {
    SCOPED_TRACE(given.empty() ? "declared" : "batch 2");
    auto p = model::propagate(g, given);
    const auto before = text_of(g, p);
    const auto calls = md::rule_calls();
    md::undo_log undo;
    md::propagate_in_place(next, given, p, redo, undo);
    const auto ran = md::rule_calls() - calls;
    if (given.empty()) {
      // At the declared shapes the edits change no Reshape's results (0 copies the declared batch), so
      // nothing runs past the layers that read them.
      EXPECT_EQ(ran, edited + readers) << "only the edited layers and their readers run their rules";
    } else {
      EXPECT_GT(ran, edited + readers) << "the layers after the edits run, as their inputs changed";
      EXPECT_LE(ran, again) << "only the marked layers run their rules";
    }
    EXPECT_EQ(text_of(next, p), text_of(next, model::propagate(next, given)));
    if (!given.empty()) {
      EXPECT_TRUE(std::any_of(p.lost.begin(), p.lost.end(), [&](const auto& x) { return !redo[x.layer]; }))
          << "a layer lost at batch 2 that is not run again";
    }
    md::undo_in_place(g, p, std::move(undo));
    EXPECT_EQ(text_of(g, p), before);
  }
}

// Edits inside a body (what fix needs to rewrite a Reshape there): the hand-made TensorIterator's body
// flattens each step with a Reshape [0,-1]; its pattern Const (body id 3) is cloned for it (body id 100)
// and given [1,-1], which writes the batch 1. The graph edited in memory, the text edited_xml writes read
// back, and the propagation made in place all agree, and the original is left as it was.
TEST(propagation_in_place, reaches_into_a_body) {
  const fs::path dir = fs::path(RESHAPE1_TEST_DATA) / "models" / "tensor-iterator-lstm";
  const auto xml = dir / "model.xml", bin = dir / "model.bin";
  const auto g = model::read_ir(xml, bin);
  const auto* ti = g.find(3);
  ASSERT_TRUE(ti != nullptr && ti->body);
  const std::vector<std::int64_t> pattern{1, -1};
  std::vector<std::byte> appended(16);
  std::memcpy(appended.data(), pattern.data(), 16);
  const auto bin_size = fs::file_size(bin);
  using kind = md::graph_edit::kind;
  const std::vector<md::graph_edit> edits{
      {.what = kind::clone_layer, .layer = 3, .name = "flatten_pattern/clone", .id = 100, .consumer = 4, .port = 1,
       .within = {3}},
      {.what = kind::set_attribute, .layer = 100, .name = "offset", .text = std::to_string(bin_size), .within = {3}},
      {.what = kind::set_attribute, .layer = 4, .name = "special_zero", .text = "false", .within = {3}}};
  const auto weights = std::make_shared<const io::detail::mapped_file>(bin, appended);
  const auto next = md::graph_editor::edited(g, edits, [&](const auto&) { return std::pair<std::shared_ptr<const void>, std::span<const std::byte>>(weights, weights->bytes()); });

  // In memory: the body has the clone, feeding the Reshape, with the new bytes; the original body is untouched.
  const auto& body = next.find(3)->body->network;
  ASSERT_NE(body.find(100), nullptr);
  EXPECT_EQ(body.find(100)->name, "flatten_pattern/clone");
  ASSERT_TRUE(body.find(4)->sources[1].has_value());
  EXPECT_EQ(body.layers()[body.find(4)->sources[1]->layer].id, 100);
  const auto bytes = body.const_bytes(*body.find(100));
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(std::memcmp(bytes.data(), pattern.data(), 16), 0);
  EXPECT_FALSE(body.find(4)->flag("special_zero"));
  EXPECT_EQ(ti->body->network.find(100), nullptr);
  EXPECT_TRUE(ti->body->network.find(4)->flag("special_zero"));

  // Written: the clone right after its original inside the body, and the body's edge re-pointed.
  const io::detail::mapped_file text(xml);
  auto written = md::graph_editor::edited_xml(g, text.bytes(), edits);
  EXPECT_NE(written.find("name=\"flatten_pattern/clone\""), std::string::npos);
  const auto back = md::read_ir_in_memory(std::move(written), "edited.xml", weights, "edited.bin");
  const auto& back_body = back.find(3)->body->network;
  ASSERT_NE(back_body.find(100), nullptr);
  EXPECT_EQ(back_body.layers()[back_body.find(4)->sources[1]->layer].id, 100);
  EXPECT_EQ(back.find(100), nullptr) << "the clone is in the body, not at the top";

  // Propagated: the TensorIterator runs again (its body changed) and gives what a fresh propagation does,
  // at the declared shapes and at batch 2, where the body's Reshape [1,-1] now breaks the step.
  const auto redo = md::layers_to_redo(g, next);
  EXPECT_EQ(redo[static_cast<std::size_t>(next.find(3) - next.layers().data())], md::redo_always);
  // The read-back has the clone where the text puts it (after its original), edited() at the end: the
  // same lines, in another order.
  const auto lines = [](const std::string& t) {
    std::vector<std::string> v;
    std::istringstream in(t);
    for (std::string line; std::getline(in, line);) v.push_back(line);
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(lines(text_of(back, model::propagate(back))), lines(text_of(next, model::propagate(next))));
  const auto input = static_cast<std::size_t>(g.find(0) - g.layers().data());
  for (const auto& given :
       {std::vector<model::input_shape>{}, std::vector<model::input_shape>{{input, partial_shape{2, 5, 16}}}}) {
    SCOPED_TRACE(given.empty() ? "declared" : "batch 2");
    auto p = model::propagate(g, given);
    const auto before = text_of(g, p);
    md::undo_log undo;
    md::propagate_in_place(next, given, p, redo, undo);
    EXPECT_EQ(text_of(next, p), text_of(next, model::propagate(next, given)));
    if (!given.empty()) {
      EXPECT_NE(text_of(next, p), before) << "the edit changes the body at batch 2";
    }
    md::undo_in_place(g, p, std::move(undo));
    EXPECT_EQ(text_of(g, p), before);
  }
  EXPECT_TRUE(model::check_batch(g, {.batch = dimension(2)}).summary.reshapes());
  EXPECT_FALSE(model::check_batch(next, {.batch = dimension(2)}).summary.reshapes());
  // check_batch in place, as fix judges a rewrite: the edited graph's findings, then the original's back.
  for (const auto& b : {dimension(2), dimension()}) {
    md::batch_runs runs;
    const auto was = md::check_batch_keeping(g, {.batch = b}, runs).summary_line();
    md::batch_undo undo;
    md::declared_in_place(next, runs, redo, undo);
    const auto r = md::check_batch_in_place(next, {.batch = b}, runs, redo, undo);
    EXPECT_EQ(r.summary_line(), model::check_batch(next, {.batch = b}).summary_line());
    // The body's Reshape is named in its body, with the element that writes the batch: what fix rewrites.
    EXPECT_TRUE(std::any_of(r.findings.begin(), r.findings.end(), [](const model::batch_finding& f) {
      return f.within.size() == 1 && f.within[0].id == 3 && f.id == 4 && f.pattern_index == std::optional<std::size_t>(0);
    }));
    md::undo_runs(g, runs, std::move(undo));
    EXPECT_EQ(md::check_batch_keeping(g, {.batch = b}, runs).summary_line(), was);
  }
  EXPECT_EQ(model::check_batch(back, {.batch = dimension(2)}).summary_line(),
            model::check_batch(next, {.batch = dimension(2)}).summary_line());
}

}  // namespace
}  // namespace reshape1::test

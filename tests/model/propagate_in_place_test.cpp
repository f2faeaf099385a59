// Propagation in place, which fix judges its rewrites with: made an edited graph's in place, a propagation
// is that graph's whole propagation (tensors, lost layers, which layers follow the inputs), and undone it
// is the one it was; a layer after an edit runs only when what it reads changed. The edit is fix's own kind on the shared YOLO11n: every Reshape whose pattern is a
// Const, but the attention block's, gets a clone of it with element 0 set to 0, and special_zero set. At
// batch 2 the attention Reshape, upstream of the edits, fails: a lost layer the propagation keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/files.hpp"
#include "ir_builder.hpp"
#include "model/analysis/batch_internal.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::test {
namespace {

namespace md = model::detail;

/// What a propagation knows, as text: per layer its outputs' dimension ranges (symbols are named afresh
/// in each propagation), types and value bounds, whether it follows the inputs; then the lost layers.
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
  const auto next = md::graph_editor::edited(g, edits, std::make_shared<const io::detail::mapped_file>(bin, appended));
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

}  // namespace
}  // namespace reshape1::test

// onnx::fix and write_fixed on an IR (`reshape1 fix`): hand-made models for each rewrite and each refusal, a shared
// Const, a Concat-computed pattern, a folded batch; the outcome on every shared model; and the written
// files read back independently (pugixml and byte comparisons): untouched Consts keep their offsets and
// bytes, only the listed layers change, and the fixed model reshapes at 2, 8 and ? with the same shapes at
// the declared batch.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "../../fix_parts.hpp"
#include "../ir_builder.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

/// "267 [1,-1]->[0,-1]; 280 ...": each change.
std::string changes(const model::fix_report& r) {
  std::string s;
  for (const auto& c : r.changes)
    s += fmt::format("{}{} {}->{}{}", s.empty() ? "" : "; ", c.id, c.old_pattern, c.new_pattern,
                     ir_edit(c).special_zero_set ? " special_zero" : "");
  return s;
}
std::string refused(const model::fix_report& r) {
  std::string s;
  for (const auto& x : r.refusals) s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", x.id, x.reason);
  return s;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Every shape of every layer at the declared inputs, by id, without symbols.
std::map<std::int64_t, std::string> shapes(const model::graph& g) {
  const auto p = model::propagate(g);
  std::map<std::int64_t, std::string> r;
  for (std::size_t i = 0; i < g.layers().size(); ++i) {
    std::string s;
    for (const auto& t : p.outputs[i]) {
      std::vector<dimension> dims;
      if (t.shape.rank_known())
        for (const auto& d : t.shape) dims.emplace_back(d.range());
      s += (t.shape.rank_known() ? to_string(partial_shape(std::move(dims))) : "[...]") + " ";
    }
    r[g.layers()[i].id] = s;
  }
  return r;
}

/// Writes the fix next to `dir`, then reads both models back independently and checks what may differ.
void expect_written_as_reported(const fs::path& xml, const model::fix_report& r, const fs::path& dir) {
  const auto bin = fs::path(xml).replace_extension(".bin");
  const auto out_xml = dir / "fixed.xml", out_bin = dir / "fixed.bin";
  const auto input_xml_bytes = read_bytes(xml), input_bin_bytes = read_bytes(bin);
  onnx::write_fixed(r, xml, out_xml);
  EXPECT_EQ(read_bytes(xml), input_xml_bytes) << "the input .xml changed";
  EXPECT_EQ(read_bytes(bin), input_bin_bytes) << "the input .bin changed";

  // The new .bin is the old bytes, then the new constants.
  const auto new_bin = read_bytes(out_bin);
  ASSERT_EQ(new_bin.size(), input_bin_bytes.size() + ir_output(r).appended.size());
  EXPECT_EQ(new_bin.substr(0, input_bin_bytes.size()), input_bin_bytes);

  // The parsed trees: the same layers with the same attributes, but for the listed Reshapes (special_zero)
  // and Consts (offset, size), and the clones; the same edges but for those that feed a clone.
  pugi::xml_document before, after;
  ASSERT_TRUE(before.load_file(xml.c_str()));
  ASSERT_TRUE(after.load_file(out_xml.c_str()));
  std::set<std::string> changed_consts, changed_reshapes, clones, originals;
  for (const auto& c : r.changes) {
    changed_consts.insert(std::to_string(ir_edit(c).const_id));
    changed_reshapes.insert(std::to_string(c.id));
    if (ir_edit(c).cloned_from) {
      clones.insert(std::to_string(ir_edit(c).const_id));
      originals.insert(std::to_string(*ir_edit(c).cloned_from));
    }
  }
  const auto describe = [](const pugi::xml_node& n, const std::set<std::string>& skip) {
    std::string s = n.name();
    for (const auto& a : n.attributes())
      if (!skip.contains(a.name())) s += fmt::format(" {}={}", a.name(), a.value());
    for (const auto& c : n.children())
      if (c.type() == pugi::node_element) s += "{" + std::string(c.name()) + "}";
    return s;
  };
  std::map<std::string, pugi::xml_node> old_layers;
  for (const auto& l : before.child("net").child("layers").children("layer")) old_layers[l.attribute("id").value()] = l;
  std::size_t seen = 0;
  for (const auto& l : after.child("net").child("layers").children("layer")) {
    const std::string id = l.attribute("id").value();
    if (clones.contains(id)) continue;
    ++seen;
    ASSERT_TRUE(old_layers.contains(id)) << "layer " << id << " is new but not a listed clone";
    const auto& o = old_layers[id];
    EXPECT_EQ(describe(l, {}), describe(o, {})) << "layer " << id;
    std::set<std::string> skip;
    if (changed_consts.contains(id)) skip = {"offset", "size"};
    if (changed_reshapes.contains(id)) skip = {"special_zero"};
    EXPECT_EQ(describe(l.child("data"), skip), describe(o.child("data"), skip)) << "layer " << id;
    if (std::string(l.attribute("type").value()) == "Const" && !changed_consts.contains(id)) {
      // An untouched Const: the same offset, size and bytes.
      const auto offset = l.child("data").attribute("offset").as_ullong();
      const auto size = l.child("data").attribute("size").as_ullong();
      EXPECT_EQ(offset, o.child("data").attribute("offset").as_ullong());
      EXPECT_EQ(new_bin.substr(offset, size), input_bin_bytes.substr(offset, size)) << "Const " << id;
    }
  }
  EXPECT_EQ(seen, old_layers.size());
  std::multiset<std::string> old_edges, new_edges;
  const auto edge = [](const pugi::xml_node& e) {
    return fmt::format("{}:{}->{}:{}", e.attribute("from-layer").value(), e.attribute("from-port").value(),
                       e.attribute("to-layer").value(), e.attribute("to-port").value());
  };
  for (const auto& e : before.child("net").child("edges").children("edge")) old_edges.insert(edge(e));
  for (const auto& e : after.child("net").child("edges").children("edge")) {
    if (clones.contains(e.attribute("from-layer").value())) continue;
    new_edges.insert(edge(e));
  }
  for (const auto& e : new_edges) EXPECT_TRUE(old_edges.contains(e)) << "new edge " << e;
  EXPECT_EQ(old_edges.size() - new_edges.size(), clones.size());

  // The rewritten model: the same shapes at the declared inputs, and it reshapes.
  const auto original = model::read_ir(xml, bin);
  const auto fixed = model::read_ir(out_xml, out_bin);
  EXPECT_EQ(shapes(fixed), [&] {
    auto s = shapes(original);
    for (const auto& c : clones) s[std::stoll(c)] = shapes(fixed)[std::stoll(c)];
    return s;
  }());
  for (const auto& b : {dimension(2), dimension(8), dimension()}) {
    const auto at = model::check_batch(fixed, {.batch = b});
    EXPECT_TRUE(at.summary.reshapes()) << at.summary_line();
  }
}

class fixing : public ir {
 protected:
  model::fix_report fix(const ir_builder& b, model::fix_options options = {}) {
    (void)load(b.xml(), b.bin());  // writes m.xml and m.bin
    return onnx::fix(dir_ / "m.xml", with_bin(options, dir_ / "m.bin"));
  }
  fs::path xml() const { return dir_ / "m.xml"; }
  fs::path out() {
    const auto d = dir_ / "out";
    fs::create_directories(d);
    return d;
  }
  /// The model `r` writes, read back from the file and checked with input `x` at `shape`.
  model::batch_report written_at(const model::fix_report& r, const char* shape) {
    onnx::write_fixed(r, xml(), out() / "f.xml");
    const auto fixed = model::read_ir(out() / "f.xml", out() / "f.bin");
    return model::check_batch(fixed, {.shapes = {{"x", parse_shape(shape)}}});
  }
  /// Input x of `dims` (shape attribute `shape`: the same without brackets) and an f32 Const of `values`
  /// meeting it in the elementwise `op` named `name`, given out: the Const's id.
  static int constant_meeting_x(ir_builder& b, const char* op, const std::string& shape, const std::string& dims,
                                const std::vector<float>& values, const char* name) {
    const int x = b.parameter(dims, "x");
    std::vector<std::int64_t> bits;  // (the builder packs each as its type's bits)
    for (const auto v : values) bits.push_back(std::bit_cast<std::uint32_t>(v));
    const int c = b.constant(element_type::f32, shape, bits, dims);
    const int l = b.layer(op, "auto_broadcast=\"numpy\"", {dims, dims}, {dims}, name);
    b.edge(x, l, 0);
    b.edge(c, l, 1);
    b.result(l, dims);
    return c;
  }
  /// The values layer `name` of the model `r` writes reads at its input 1, at x's declared shape `declared`
  /// (propagated through the layers written): `values`, every one, as f32.
  void expect_reads(const model::fix_report& r, const char* declared, std::string_view name,
                    const std::vector<float>& values) {
    (void)written_at(r, declared);
    const auto fixed = model::read_ir(out() / "f.xml", out() / "f.bin");
    const auto p = model::propagate(fixed);
    const auto l = std::find_if(fixed.layers().begin(), fixed.layers().end(), [&](const auto& x) { return x.name == name; });
    ASSERT_NE(l, fixed.layers().end());
    const auto& read = p.input(fixed, *l, 1);
    ASSERT_TRUE(read.value.has_value());
    ASSERT_TRUE(read.value->is_real());
    ASSERT_EQ(read.value->reals.size(), values.size());
    for (std::size_t k = 0; k < values.size(); ++k) EXPECT_EQ(read.value->reals[k], static_cast<double>(values[k])) << k;
    EXPECT_EQ(read.type, element_type::f32);
  }
};


TEST_F(fixing, a_model_that_reshapes_needs_nothing) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  b.result(b.reshape(x, b.i64({0, -1}), true, "[1,6,4]", "[2]", "[1,24]"), "[1,24]");
  const auto r = fix(b);
  EXPECT_TRUE(r.nothing_to_do);
  EXPECT_TRUE(r.fixed);
  EXPECT_TRUE(r.changes.empty() && ir_output(r).xml.empty() && ir_output(r).appended.empty());
  EXPECT_EQ(r.checked.size(), 4u);
  EXPECT_THROW(onnx::write_fixed(r, xml(), out() / "f.xml"), error);
}

// [1,-1] with special_zero=false and no 0: special_zero becomes true and the 1 becomes 0.
TEST_F(fixing, a_constant_batch_becomes_a_copy) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int c = b.i64({1, -1});
  const int r1 = b.reshape(x, c, false, "[1,6,4]", "[2]", "[1,24]");
  b.result(r1, "[1,24]");
  const auto r = fix(b);
  EXPECT_FALSE(r.nothing_to_do);
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [1,-1]->[0,-1] special_zero", r1));
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(ir_edit(r.changes[0]).const_id, c);
  EXPECT_EQ(r.changes[0].old_value, 1);
  EXPECT_EQ(r.changes[0].new_value, 0);
  EXPECT_FALSE(ir_edit(r.changes[0]).cloned_from);
  EXPECT_EQ(r.refusals.size(), 0u);
  EXPECT_EQ(r.checked, (std::vector<std::string>{"reshapes to batch 1: yes", "reshapes to batch 2: yes",
                                                 "reshapes to batch 8: yes", "reshapes to batch ?: yes"}));
  expect_written_as_reported(xml(), r, out());
  pugi::xml_document written;
  ASSERT_TRUE(written.load_file((out() / "fixed.xml").c_str()));
  const auto reshape = written.child("net").child("layers").find_child_by_attribute("layer", "id", std::to_string(r1).c_str());
  EXPECT_STREQ(reshape.child("data").attribute("special_zero").value(), "true");
}

// The progress a caller is given has its totals: the round's rewrites judged of how many it plans, and the
// batch proven of how many are checked.
TEST_F(fixing, progress_gives_each_count_with_its_total) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int r1 = b.reshape(x, b.i64({1, -1}), false, "[1,6,4]", "[2]", "[1,24]");
  const int r2 = b.reshape(r1, b.i64({1, 6, 4}), false, "[1,24]", "[3]", "[1,6,4]");
  b.result(r2, "[1,6,4]");
  std::vector<model::fix_progress> seen;
  std::vector<std::string> batches;
  model::fix_options options;
  options.progress = [&](const model::fix_progress& p) {
    seen.push_back(p);
    batches.emplace_back(p.batch);
  };
  const auto r = fix(b, options);
  ASSERT_TRUE(r.fixed) << refused(r);
  std::vector<std::string> proving;
  bool judged = false;
  for (std::size_t k = 0; k < seen.size(); ++k) {
    const auto& p = seen[k];
    EXPECT_LE(p.round_tried, p.round_rewrites);
    if (p.stage == "judging rewrites") {
      judged = true;
      EXPECT_GE(p.round_rewrites, 1u);
      EXPECT_GE(p.round_tried, 1u);
      // The round's last report has judged all of it.
      const bool last_of_round = k + 1 == seen.size() || seen[k + 1].round != p.round || seen[k + 1].stage != p.stage;
      if (last_of_round) {
        EXPECT_EQ(p.round_tried, p.round_rewrites) << "round " << p.round;
      }
    }
    if (p.stage == "proving") proving.push_back(fmt::format("{} {}/{}", batches[k], p.batch_index, p.batches));
  }
  EXPECT_TRUE(judged);
  EXPECT_EQ(proving, (std::vector<std::string>{"1 1/4", "2 2/4", "8 3/4", "? 4/4"}));
}

// Each candidate is read back from memory, with the .bin mapped and the new constants after it: fix writes
// no temporary copy of the model (one per candidate, the size of the .bin, before), so it needs no
// temporary directory at all.
TEST_F(fixing, candidates_are_read_back_without_temporary_files) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int r1 = b.reshape(x, b.i64({1, -1}), false, "[1,6,4]", "[2]", "[1,24]");
  const int r2 = b.reshape(r1, b.i64({1, 24}), false, "[1,24]", "[2]", "[1,24]");
  b.result(r2, "[1,24]");
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before == nullptr ? "" : before;
  ASSERT_EQ(::setenv("TMPDIR", (dir_ / "no-such-directory").c_str(), 1), 0);
  const auto r = fix(b);
  if (before == nullptr) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", saved.c_str(), 1);
  }
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [1,-1]->[0,-1] special_zero; {} [1,24]->[0,24] special_zero", r1, r2));
  expect_written_as_reported(xml(), r, out());
  EXPECT_FALSE(fs::exists(dir_ / "no-such-directory"));
}

// A pattern without -1, all fixed values: 0 (with special_zero set, as the pattern has no 0) comes before -1.
TEST_F(fixing, a_pattern_without_minus_one) {
  ir_builder b;
  const int x = b.parameter("[1,4,8]");
  const int r1 = b.reshape(x, b.i64({1, 32}), false, "[1,4,8]", "[2]", "[1,32]");
  b.result(r1, "[1,32]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [1,32]->[0,32] special_zero", r1));
  expect_written_as_reported(xml(), r, out());
}

/// The Const layers of a written model, by id.
std::set<std::string> const_ids(const fs::path& xml) {
  pugi::xml_document d;
  EXPECT_TRUE(d.load_file(xml.c_str()));
  std::set<std::string> ids;
  for (const auto& l : d.child("net").child("layers").children("layer"))
    if (std::string_view(l.attribute("type").value()) == "Const") ids.insert(l.attribute("id").value());
  return ids;
}

// Two Reshapes share one Const and both need the same change: it is rewritten once, in place, and stays
// one Const.
TEST_F(fixing, a_shared_const_rewritten_the_same_way_stays_one) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int c = b.i64({1, -1});
  const int r1 = b.reshape(x, c, true, "[1,6,4]", "[2]", "[1,24]");
  const int y = b.parameter("[1,3,2]");
  const int r2 = b.reshape(y, c, true, "[1,3,2]", "[2]", "[1,6]");
  b.result(r1, "[1,24]");
  b.result(r2, "[1,6]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [1,-1]->[0,-1]; {} [1,-1]->[0,-1]", r1, r2));
  for (const auto& change : r.changes) {
    EXPECT_EQ(ir_edit(change).const_id, c);
    EXPECT_FALSE(ir_edit(change).cloned_from);
    EXPECT_EQ(change.why.find("cloned"), std::string::npos) << change.why;
  }
  expect_written_as_reported(xml(), r, out());
  EXPECT_EQ(const_ids(out() / "fixed.xml"), const_ids(xml()));
  EXPECT_EQ(ir_output(r).appended.size(), 16u);  // the new [0,-1], once
}

// The same, when the second Reshape only shows once the first is rewritten (it reads its output): the
// clone the first got in the first round is merged back once the second is rewritten the same way.
TEST_F(fixing, a_clone_rewritten_like_its_original_is_merged_back) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int c = b.i64({1, -1});
  const int r1 = b.reshape(x, c, true, "[1,6,4]", "[2]", "[1,24]");
  const int r2 = b.reshape(r1, c, true, "[1,24]", "[2]", "[1,24]");
  b.result(r2, "[1,24]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [1,-1]->[0,-1]; {} [1,-1]->[0,-1]", r1, r2));
  for (const auto& change : r.changes) {
    EXPECT_EQ(ir_edit(change).const_id, c);
    EXPECT_FALSE(ir_edit(change).cloned_from);
  }
  expect_written_as_reported(xml(), r, out());
  EXPECT_EQ(const_ids(out() / "fixed.xml"), const_ids(xml()));
}

// A Const shared by a Reshape that needs the change and one that must keep it: the first gets a clone,
// the second keeps the original.
TEST_F(fixing, a_shared_const_is_cloned) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int c = b.i64({1, -1});
  const int r1 = b.reshape(x, c, true, "[1,6,4]", "[2]", "[1,24]");
  const int w = b.constant(element_type::f32, "1,3,2", std::vector<std::int64_t>(6, 0), "[1,3,2]");
  const int r2 = b.reshape(w, c, true, "[1,3,2]", "[2]", "[1,6]");
  b.result(r1, "[1,24]");
  b.result(r2, "[1,6]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(ir_edit(r.changes[0]).cloned_from, c);
  EXPECT_GT(ir_edit(r.changes[0]).const_id, r2);  // a new id
  EXPECT_NE(r.changes[0].why.find("feeds other layers too, so it was cloned"), std::string::npos);
  expect_written_as_reported(xml(), r, out());
  // The clone feeds the first Reshape's pattern; the original still feeds the second.
  pugi::xml_document written;
  ASSERT_TRUE(written.load_file((out() / "fixed.xml").c_str()));
  std::multiset<std::string> edges;
  for (const auto& e : written.child("net").child("edges").children("edge"))
    if (e.attribute("to-port").as_int() == 1)
      edges.insert(fmt::format("{}->{}", e.attribute("from-layer").value(), e.attribute("to-layer").value()));
  EXPECT_EQ(edges, (std::multiset<std::string>{fmt::format("{}->{}", ir_edit(r.changes[0]).const_id, r.changes[0].id),
                                               fmt::format("{}->{}", c, r2)}));
}

// The edges written another way (single quotes, to-layer first, spread over lines): the clone's edge is
// still the one re-pointed, and every other byte of the file is the input's.
TEST_F(fixing, edges_written_another_way_are_rewritten_in_place) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int c = b.i64({1, -1});
  const int r1 = b.reshape(x, c, true, "[1,6,4]", "[2]", "[1,24]");
  const int w = b.constant(element_type::f32, "1,3,2", std::vector<std::int64_t>(6, 0), "[1,3,2]");
  const int r2 = b.reshape(w, c, true, "[1,3,2]", "[2]", "[1,6]");
  b.result(r1, "[1,24]");
  b.result(r2, "[1,6]");
  std::string text = b.xml();
  const auto edges = text.find("<edges>");
  ASSERT_NE(edges, std::string::npos);
  std::string tail = text.substr(edges);
  for (std::size_t at = 0; (at = tail.find("<edge from-layer=\"", at)) != std::string::npos; ++at) {
    // <edge from-layer="A" from-port="B" to-layer="C" to-port="D"/> -> <edge\n to-layer='C' to-port='D' from-layer='A' from-port='B'/>
    const auto end = tail.find("/>", at);
    const std::string tag = tail.substr(at, end - at);
    const auto value = [&](const char* name) {
      const auto p = tag.find(std::string(name) + "=\"") + std::strlen(name) + 2;
      return tag.substr(p, tag.find('"', p) - p);
    };
    const auto redone = fmt::format("<edge\n to-layer='{}' to-port='{}' from-layer='{}' from-port='{}'", value("to-layer"),
                                    value("to-port"), value("from-layer"), value("from-port"));
    tail.replace(at, end - at, redone);
  }
  text = text.substr(0, edges) + tail;
  (void)load(text, b.bin());
  const auto r = onnx::fix(xml(), {.bin = dir_ / "m.bin"});
  EXPECT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(ir_edit(r.changes[0]).cloned_from, c);
  expect_written_as_reported(xml(), r, out());
  // Outside the edited layers and the one edge, the text is the input's.
  const auto edge = fmt::format("<edge\n to-layer='{}' to-port='1' from-layer='{}' from-port='0'/>", r1, c);
  ASSERT_NE(text.find(edge), std::string::npos);
  const auto moved = fmt::format("<edge to-layer=\"{}\" to-port=\"1\" from-layer=\"{}\" from-port=\"0\"/>", r1,
                                 ir_edit(r.changes[0]).const_id);
  EXPECT_NE(ir_output(r).xml.find(moved), std::string::npos) << ir_output(r).xml.substr(ir_output(r).xml.find("<edges>"));
  EXPECT_EQ(ir_output(r).xml.substr(ir_output(r).xml.find("<edges>")), [&] {
    auto t = text.substr(text.find("<edges>"));
    t.replace(t.find(edge), edge.size(), moved);
    return t;
  }());
}

// The Const reaches two Reshapes through one Concat: changing it would change both, one of them unlisted.
TEST_F(fixing, a_value_through_a_shared_concat_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int head = b.i64({1});
  const int tail = b.i64({-1});
  const int cat = b.layer("Concat", "axis=\"0\"", {"[1]", "[1]"}, {"[2]"});
  b.edge(head, cat, 0);
  b.edge(tail, cat, 1);
  const int r1 = b.reshape(x, cat, true, "[1,6,4]", "[2]", "[1,24]");
  const int w = b.constant(element_type::f32, "1,3,2", std::vector<std::int64_t>(6, 0), "[1,3,2]");
  const int r2 = b.reshape(w, cat, true, "[1,3,2]", "[2]", "[1,6]");
  b.result(r1, "[1,24]");
  b.result(r2, "[1,6]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(refused(r), fmt::format("{}: pattern[0] comes through layer 'Concat_{}' (id {}), which feeds other layers "
                                    "too",
                                    r1, cat, cat));
}

// The Reshape itself can be fixed, but the Concat after it then fails at batch 2 (its other input is a
// constant [1,32]): the model is not proven, so nothing is written; the kept rewrite is still listed.
TEST_F(fixing, a_model_proven_only_in_part_is_not_written) {
  ir_builder b;
  const int x = b.parameter("[1,4,8]");
  const int r1 = b.reshape(x, b.i64({1, 32}), false, "[1,4,8]", "[2]", "[1,32]");
  const int c = b.constant(element_type::f32, "1,32", std::vector<std::int64_t>(32, 0), "[1,32]");
  const int cat = b.layer("Concat", "axis=\"1\"", {"[1,32]", "[1,32]"}, {"[1,64]"}, "joined");
  b.edge(r1, cat, 0);
  b.edge(c, cat, 1);
  b.result(cat, "[1,64]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_EQ(changes(r), fmt::format("{} [1,32]->[0,32] special_zero", r1));
  EXPECT_EQ(refused(r), fmt::format("{}: not a Reshape pattern: fails at batch 2: layer 'joined' (id {}): input 1 "
                                    "dimension 0: 2 and 1 cannot be equal",
                                    cat, cat));
  EXPECT_TRUE(ir_output(r).xml.empty() && ir_output(r).appended.empty());
  EXPECT_THROW(onnx::write_fixed(r, xml(), out() / "f.xml"), error);
}

// The pattern is a Concat of two Consts: the one that holds the batch is rewritten.
TEST_F(fixing, a_concat_computed_pattern) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int head = b.i64({1});
  const int tail = b.i64({-1});
  const int cat = b.layer("Concat", "axis=\"0\"", {"[1]", "[1]"}, {"[2]"});
  b.edge(head, cat, 0);
  b.edge(tail, cat, 1);
  const int r1 = b.reshape(x, cat, true, "[1,6,4]", "[2]", "[1,24]");
  b.result(r1, "[1,24]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(ir_edit(r.changes[0]).const_id, head);
  EXPECT_EQ(r.changes[0].element, 0u);
  EXPECT_EQ(r.changes[0].new_pattern, "[0,-1]");
  EXPECT_NE(r.changes[0].why.find(fmt::format("through layer 'Concat_{}' (id {})", cat, cat)), std::string::npos)
      << r.changes[0].why;
  expect_written_as_reported(xml(), r, out());
}

// [101,512] for batch 1 x 101, undone later by [1,101,10]: both get a -1 where the batch is folded, and
// every shape at batch 1 stays.
TEST_F(fixing, a_folded_batch) {
  ir_builder b;
  const int x = b.parameter("[1,101,512]");
  const int flat = b.reshape(x, b.i64({101, 512}), false, "[1,101,512]", "[2]", "[101,512]");
  const int w = b.constant(element_type::f32, "512,10", std::vector<std::int64_t>(5120, 0), "[512,10]");
  const int mm = b.layer("MatMul", "transpose_a=\"false\" transpose_b=\"false\"", {"[101,512]", "[512,10]"}, {"[101,10]"});
  b.edge(flat, mm, 0);
  b.edge(w, mm, 1);
  const int back = b.reshape(mm, b.i64({1, 101, 10}), false, "[101,10]", "[3]", "[1,101,10]");
  b.result(back, "[1,101,10]");
  const auto r = fix(b);
  EXPECT_TRUE(r.fixed) << refused(r);
  EXPECT_EQ(changes(r), fmt::format("{} [101,512]->[-1,512]; {} [1,101,10]->[-1,101,10]", flat, back));
  expect_written_as_reported(xml(), r, out());
}

// Refusals, each with its reason; nothing that cannot be proven is written.
TEST_F(fixing, a_value_computed_by_a_layer_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int one = b.i64({1, -1});
  const int k = b.i64({1, 1});
  const int mul = b.layer("Multiply", "auto_broadcast=\"numpy\"", {"[2]", "[2]"}, {"[2]"});
  b.edge(one, mul, 0);
  b.edge(k, mul, 1);
  const int r1 = b.reshape(x, mul, true, "[1,6,4]", "[2]", "[1,24]");
  b.result(r1, "[1,24]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(refused(r), fmt::format("{}: pattern[0] is computed by layer 'Multiply_{}' (id {}), not held by a Const",
                                    r1, mul, mul));
}

TEST_F(fixing, a_minus_one_without_special_zero_next_to_an_element_that_may_be_0_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,?,4]");
  const int shape = b.layer("ShapeOf", "output_type=\"i64\"", {"[1,?,4]"}, {"[3]"}, "", 3);
  b.edge(x, shape, 0);
  const int idx = b.i64({1});
  const int axis = b.scalar(0);
  const int g = b.layer("Gather", "batch_dims=\"0\"", {"[3]", "[1]", "[]"}, {"[1]"}, "", 8);
  b.edge(shape, g, 0);
  b.edge(idx, g, 1);
  b.edge(axis, g, 2);
  const int head = b.i64({1, -1});
  const int cat = b.layer("Concat", "axis=\"0\"", {"[2]", "[1]"}, {"[3]"});
  b.edge(head, cat, 0);
  b.edge(g, cat, 1);
  const int r1 = b.reshape(x, cat, false, "[1,?,4]", "[3]", "[1,4,?]");
  b.result(r1, "[1,4,?]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(refused(r), fmt::format("{}: pattern has a -1 at index 1 and special_zero=false with an element that may "
                                    "be 0",
                                    r1));
}

// Empty tensors keep every count at 0, so the constant batch does not fail: it swallows it. With a -1
// already there and special_zero=false next to a literal 0, neither 0 nor -1 can be used.
TEST_F(fixing, a_minus_one_without_special_zero_next_to_a_literal_0_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,6,0]");
  const int r1 = b.reshape(x, b.i64({1, -1, 0}), false, "[1,6,0]", "[3]", "[1,1,0]");
  b.result(r1, "[1,1,0]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(refused(r), fmt::format("{}: pattern has a -1 and special_zero=false with a literal 0 at index 2", r1));
}

// The same without the -1, in an unsigned pattern: -1 is the only way left, and u8 cannot hold it.
TEST_F(fixing, an_unsigned_pattern_cannot_take_minus_one) {
  ir_builder b;
  const int x = b.parameter("[1,24,0]");
  const int c = b.constant(element_type::u8, "3", {1, 24, 0}, "[3]");
  const int r1 = b.reshape(x, c, false, "[1,24,0]", "[3]", "[1,24,0]");
  b.result(r1, "[1,24,0]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_EQ(refused(r), fmt::format("{}: pattern[0] is held by layer 'Const_{}' (id {}) of unsigned type u8, which "
                                    "cannot hold -1",
                                    r1, c, c));
}

TEST_F(fixing, a_fold_by_minus_one_is_refused) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  const int r1 = b.reshape(x, b.i64({-1, 4}), false, "[1,6,4]", "[2]", "[6,4]");
  const int sm = b.layer("SoftMax", "axis=\"0\"", {"[6,4]"}, {"[6,4]"});
  b.edge(r1, sm, 0);
  b.result(sm, "[6,4]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_EQ(refused(r), fmt::format("{}: the -1 at pattern[0] folds the batch together with other dimensions; keeping "
                                    "it apart would change the layer's output rank",
                                    r1));
}

TEST_F(fixing, an_obstacle_that_is_not_a_reshape_is_named) {
  ir_builder b;
  const int x = b.parameter("[1,8]");
  const int c = b.constant(element_type::f32, "1,8", std::vector<std::int64_t>(8, 0), "[1,8]");
  const int cat = b.layer("Concat", "axis=\"1\"", {"[1,8]", "[1,8]"}, {"[1,16]"}, "joined");
  b.edge(x, cat, 0);
  b.edge(c, cat, 1);
  b.result(cat, "[1,16]");
  const auto r = fix(b);
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(r.changes.empty());
  EXPECT_EQ(refused(r), fmt::format("{}: not a Reshape pattern: fails at batch 2: layer 'joined' (id {}): input 1 "
                                    "dimension 0: 2 and 1 cannot be equal",
                                    cat, cat));
}

TEST_F(fixing, outputs_that_are_inputs_are_refused) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]");
  b.result(b.reshape(x, b.i64({1, -1}), true, "[1,6,4]", "[2]", "[1,24]"), "[1,24]");
  const auto r = fix(b);
  ASSERT_FALSE(r.changes.empty());
  const auto before = read_bytes(dir_ / "m.bin");
  // The model's own .xml as the output; an output whose .bin beside it is the model's weights (read from
  // w.bin, the output w.xml).
  fs::copy_file(dir_ / "m.bin", dir_ / "w.bin");
  const auto from_w = onnx::fix(xml(), {.bin = dir_ / "w.bin"});
  ASSERT_TRUE(from_w.writes());
  for (const auto& [report, out] : {std::pair{&r, xml()}, std::pair{&from_w, dir_ / "w.xml"}}) {
    try {
      onnx::write_fixed(*report, xml(), out);
      ADD_FAILURE() << "wrote over an input: " << out;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
    }
  }
  EXPECT_EQ(read_bytes(dir_ / "m.bin"), before);
  EXPECT_EQ(read_bytes(dir_ / "w.bin"), before);
  EXPECT_FALSE(fs::exists(dir_ / "w.xml"));
  EXPECT_FALSE(fs::exists(dir_ / "n.bin"));
}

// ---- the shared models ----------------------------------------------------------------------------


class fixing_models : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("reshape1-fix-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  /// Fixes `xml`; expects the rewritten Reshapes (ids and patterns), or nothing to do when empty.
  void expect(const fs::path& xml, const std::string& expected, const std::string& refusals = "") {
    SCOPED_TRACE(xml.string());
    const auto r = onnx::fix(xml, {.bin = fs::path(xml).replace_extension(".bin")});
    EXPECT_EQ(changes(r), expected);
    EXPECT_EQ(refused(r), refusals);
    if (expected.empty() && refusals.empty()) {
      EXPECT_TRUE(r.nothing_to_do);
      return;
    }
    EXPECT_EQ(r.fixed, refusals.empty());
    if (!r.changes.empty()) expect_written_as_reported(xml, r, dir_);
  }
  fs::path dir_;
};

#define FIXED(test, path, expected)                      \
  TEST_F(fixing_models, test) {                          \
    const auto xml = shared_model(path);                 \
    if (xml.empty()) GTEST_SKIP() << "no shared models"; \
    expect(xml, expected);                               \
  }

// Models that already reshape: nothing to do.
FIXED(keras_mnist_cnn, "keras-mnist-cnn-mo2021.4/mnist.xml", "")
FIXED(lstm_gesture, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", "")
FIXED(face_detection_0200, "omz-face-detection-0200/face-detection-0200.xml", "")
FIXED(face_detection_adas_0001, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", "")
FIXED(head_pose_estimation_adas_0001,
      "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", "")
FIXED(landmarks_regression_retail_0009,
      "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", "")
FIXED(person_detection_action_recognition_0005,
      "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml", "")
FIXED(person_reidentification_retail_0288,
      "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", "")
// Its fifteen Gathers of image 0 (see batch_models_test.cpp) are no Reshape pattern: fix refuses them all
// and writes nothing.
TEST_F(fixing_models, person_vehicle_bike_detection_2004) {
  const auto xml = shared_model("omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  const auto r = onnx::fix(xml, {.bin = fs::path(xml).replace_extension(".bin")});
  EXPECT_EQ(changes(r), "");
  EXPECT_FALSE(r.fixed);
  EXPECT_TRUE(ir_output(r).xml.empty());
  ASSERT_EQ(r.refusals.size(), 15u);
  for (const auto& x : r.refusals) {
    EXPECT_EQ(x.type, "Gather");
    EXPECT_NE(x.reason.find("not a Reshape pattern: drops samples at batch 2"), std::string::npos) << x.reason;
  }
}
FIXED(road_segmentation_adas_0001, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml", "")
FIXED(single_image_super_resolution_1033,
      "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml", "")
// The palm detector's head: two Consts each shared by two Reshapes ([1,-1,1] and [1,-1,18]); the first
// Reshape of each pair gets a clone, special_zero=false becomes true (no pattern has a 0).
FIXED(mediapipe_hand_detector, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml",
      "812 [1,-1,18]->[0,-1,18] special_zero; 787 [1,-1,1]->[0,-1,1] special_zero; "
      "776 [1,-1,1]->[0,-1,1] special_zero; 801 [1,-1,18]->[0,-1,18] special_zero")
// The SSD flattens [1,-1] and the class-score reshapes after them ([1,-1,2], [1,-1]): 282 and 285 only show
// once 280 copies the batch.
FIXED(synet_face_detection_retail_0005, "synet-face-detection-retail-0005/other.xml",
      "267 [1,-1]->[0,-1]; 280 [1,-1]->[0,-1]; 282 [1,-1,2]->[0,-1,2]; 285 [1,-1]->[0,-1]")
// The attention block's three Reshapes, the head's three flattens, and the DFL's two: every 1 is the batch.
FIXED(yolo11n, "yolo11n-int8-ov2025.2/yolo11n.xml",
      "523 [1,2,128,400]->[0,2,128,400] special_zero; 545 [1,128,20,20]->[0,128,20,20] special_zero; "
      "543 [1,128,20,20]->[0,128,20,20] special_zero; 863 [1,144,-1]->[0,144,-1] special_zero; "
      "1034 [1,144,-1]->[0,144,-1] special_zero; 1277 [1,144,-1]->[0,144,-1] special_zero; "
      "1283 [1,4,16,8400]->[0,4,16,8400] special_zero; 1290 [1,4,8400]->[0,4,8400] special_zero")
FIXED(yolov8n_320, "yolov8n-int8-320-ov2025.4/yolov8n.xml",
      "612 [1,144,-1]->[0,144,-1] special_zero; 751 [1,144,-1]->[0,144,-1] special_zero; "
      "890 [1,144,-1]->[0,144,-1] special_zero; 896 [1,4,16,2100]->[0,4,16,2100] special_zero; "
      "903 [1,4,2100]->[0,4,2100] special_zero")
FIXED(yolov8n_onnx, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml",
      "608 [1,144,-1]->[0,144,-1]; 746 [1,144,-1]->[0,144,-1]; 884 [1,144,-1]->[0,144,-1]; "
      "890 [1,4,16,8400]->[0,4,16,8400]; 897 [1,4,8400]->[0,4,8400]")

// Its second input's batch is at index 1: without a layout, the CTCGreedyDecoder refuses seq_ind [1,1]
// (88 steps are expected) and that is not a Reshape pattern; with --layout seq_ind=TN there is nothing to do.
TEST_F(fixing_models, license_plate_recognition_barrier_0001) {
  const auto xml = shared_model("omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  // (seq_ind [88,1], taken as batch-first for want of a layout, declares 88 there: at batch 1 the constants
  // that wrote 88 are sizes that become 1 too.)
  const std::string at_one = "reshape1 cannot tell whether it keeps each sample apart, so nothing can be proven: cannot "
                             "tell at batch 1: input 1 element {} may stand for the size 88: the constant 88 equals "
                             "dimension 0 of 'seq_ind' [88,1] at the declared shapes, which is 1 at the shapes asked";
  expect(xml, "",
         fmt::format("89: {}; 98: {}; 99: not a Reshape pattern: fails at batch 1: layer 'decode' (id 99): the time "
                     "dimension of the data and the mask: 88 and 1 cannot be equal",
                     fmt::format(fmt::runtime(at_one), 3), fmt::format(fmt::runtime(at_one), 0)));
  const auto r = onnx::fix(xml, with_bin({.layouts = {{"seq_ind", "TN"}}}, fs::path(xml).replace_extension(".bin")));
  EXPECT_TRUE(r.nothing_to_do);
}

// New sizes, IR: a channel shuffle's patterns hold H and W one place further on and one place back, so no 0
// or -1 makes them follow; fix adds ShapeOf-3, Gather-8 and Concat-1 layers that compute each pattern from
// its input's shape, and the model written runs at other sizes with the same layout of channels.
TEST_F(fixing, new_sizes_a_pattern_is_computed_from_its_input_shape) {
  ir_builder b;
  const int x = b.parameter("[1,6,10,14]", "x");
  const int split = b.reshape(x, b.i64({1, 2, 3, 10, 14}), true, "[1,6,10,14]", "[5]", "[1,2,3,10,14]", "split_groups");
  const int t = b.layer("Transpose", "", {"[1,2,3,10,14]", "[5]"}, {"[1,3,2,10,14]"});
  b.edge(split, t, 0);
  b.edge(b.i64({0, 2, 1, 3, 4}), t, 1);
  const int merge = b.reshape(t, b.i64({1, -1, 10, 14}), true, "[1,3,2,10,14]", "[4]", "[1,6,10,14]", "merge_groups");
  b.result(merge, "[1,6,10,14]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,6,?,?]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0].id, split);
  EXPECT_EQ(r.changes[0].computed, "[1,2,3,shape[2],shape[3]]");
  EXPECT_EQ(r.changes[0].new_pattern, r.changes[0].computed);
  EXPECT_EQ(r.changes[1].computed, "[1,6,shape[3],shape[4]]");
  EXPECT_EQ(ir_edit(r.changes[1]).const_id, 0);
  onnx::write_fixed(r, xml(), out() / "f.xml");
  pugi::xml_document written;
  ASSERT_TRUE(written.load_file((out() / "f.xml").c_str()));
  std::size_t shape_of = 0, gathers = 0;
  for (const auto l : written.child("net").child("layers").children("layer")) {
    shape_of += std::string_view(l.attribute("type").value()) == "ShapeOf";
    gathers += std::string_view(l.attribute("type").value()) == "Gather";
  }
  EXPECT_EQ(shape_of, 2u);
  EXPECT_EQ(gathers, 4u);
  // Read back as written (with the .bin the fix appends to): it reshapes at sizes the original fails at.
  const auto fixed = model::read_ir(out() / "f.xml", out() / "f.bin");
  const auto at = model::check_batch(fixed, {.shapes = {{"x", parse_shape("[1,6,20,42]")}}});
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  const auto original = model::check_batch(model::read_ir(xml(), dir_ / "m.bin"), {.shapes = {{"x", parse_shape("[1,6,20,42]")}}});
  EXPECT_EQ(original.summary.verdict(), model::batch_verdict::no);
}

// New sizes, IR: an Interpolate-11 to the sizes [16,16] on H and W of [1,2,8,8], an upsampling by two a
// fixed-shape export baked: fix computes the sizes from the input's shape (ShapeOf, Gather, Multiply, Concat
// into its port 1), and the model written resizes every size by two.
TEST_F(fixing, new_sizes_an_interpolate_s_sizes_are_computed_from_its_input_shape) {
  ir_builder b;
  const int x = b.parameter("[1,2,8,12]", "x");
  const int up = b.layer("Interpolate", "mode=\"nearest\" shape_calculation_mode=\"sizes\"", {"[1,2,8,12]", "[2]", "[2]"},
                         {"[1,2,16,24]"}, "up", 11);
  b.edge(x, up, 0);
  b.edge(b.i64({16, 24}), up, 1);
  b.edge(b.i64({2, 3}), up, 2);
  b.result(up, "[1,2,16,24]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,?,?]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].id, up);
  EXPECT_EQ(r.changes[0].type, "Interpolate");
  EXPECT_EQ(r.changes[0].old_pattern, "[16,24]");
  EXPECT_EQ(r.changes[0].computed, "[shape[2]*2,shape[3]*2]");
  const auto at = written_at(r, "[1,2,10,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_EQ(at.outputs.size(), 1u);
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,2,20,26]");
  const auto original = model::check_batch(model::read_ir(xml(), dir_ / "m.bin"), {.shapes = {{"x", parse_shape("[1,2,10,13]")}}});
  EXPECT_EQ(original.summary.verdict(), model::batch_verdict::cannot_tell);
}

// New sizes, IR: a feature pyramid's step in NHWC between Transposes. x [1,2,8,12] is pooled by 2, turned to
// NHWC, upsampled to the baked [8,12], turned back and added to x: the sizes are x's extents where the output
// meets x, so they are computed from x's shape (H and W: the axes the Transposes carry them to), and the model
// written runs at odd sizes too, where twice the pooled extent would not be x's.
TEST_F(fixing, new_sizes_an_interpolate_takes_the_sizes_of_what_it_meets) {
  ir_builder b;
  const int x = b.parameter("[1,2,8,12]", "x");
  const int down = b.layer("MaxPool", "kernel=\"2,2\" strides=\"2,2\" pads_begin=\"0,0\" pads_end=\"0,0\" rounding_type=\"floor\"",
                           {"[1,2,8,12]"}, {"[1,2,4,6]"}, "down");
  b.edge(x, down, 0);
  const int nhwc = b.layer("Transpose", "", {"[1,2,4,6]", "[4]"}, {"[1,4,6,2]"}, "to_nhwc");
  b.edge(down, nhwc, 0);
  b.edge(b.i64({0, 2, 3, 1}), nhwc, 1);
  const int up = b.layer("Interpolate", "mode=\"nearest\" shape_calculation_mode=\"sizes\"", {"[1,4,6,2]", "[2]", "[2]"},
                         {"[1,8,12,2]"}, "up", 11);
  b.edge(nhwc, up, 0);
  b.edge(b.i64({8, 12}), up, 1);
  b.edge(b.i64({1, 2}), up, 2);
  const int nchw = b.layer("Transpose", "", {"[1,8,12,2]", "[4]"}, {"[1,2,8,12]"}, "to_nchw");
  b.edge(up, nchw, 0);
  b.edge(b.i64({0, 3, 1, 2}), nchw, 1);
  const int add = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,2,8,12]", "[1,2,8,12]"}, {"[1,2,8,12]"}, "merge");
  b.edge(nchw, add, 0);
  b.edge(x, add, 1);
  b.result(add, "[1,2,8,12]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "[shape('x')[2],shape('x')[3]]");
  const auto at = written_at(r, "[1,2,11,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
}

// New sizes, IR: a Slice-8 that keeps the first half of W, its end 7 of 14 baked: fix computes the end as
// shape[3]/2 (Divide-1, floor), and the model written keeps the first half at every width.
TEST_F(fixing, new_sizes_a_slice_s_end_is_computed_from_its_input_shape) {
  ir_builder b;
  const int x = b.parameter("[1,2,8,14]", "x");
  const int cut = b.layer("Slice", "", {"[1,2,8,14]", "[1]", "[1]", "[1]", "[1]"}, {"[1,2,8,7]"}, "first_half", 8);
  b.edge(x, cut, 0);
  b.edge(b.i64({0}), cut, 1);
  b.edge(b.i64({7}), cut, 2);
  b.edge(b.i64({1}), cut, 3);
  b.edge(b.i64({3}), cut, 4);
  b.result(cut, "[1,2,8,7]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,?,?]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Slice");
  EXPECT_EQ(r.changes[0].old_pattern, "[7]");
  EXPECT_EQ(r.changes[0].computed, "[shape[3]/2]");
  const auto at = written_at(r, "[1,2,8,21]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_EQ(at.outputs.size(), 1u);
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,2,8,10]");
}

// New sizes, IR: W (18) padded to a multiple of a window (4) that the windows' `[-1,7,9,4]` keeps, then cut
// into windows (7 channels and 9 rows: no size a count of windows gives, as 2 is half of 5 windows): the pads
// end computed as (4-W%4)%4 (FloorMod, Subtract, FloorMod into Pad-1's input 2), the cut read with the
// window, and the model written runs at a width that needs another pad (21: by 3).
TEST_F(fixing, new_sizes_a_pad_to_a_window_is_computed_as_what_the_size_lacks) {
  ir_builder b;
  const int x = b.parameter("[1,7,9,18]", "x");
  const int pad = b.layer("Pad", "pad_mode=\"constant\"", {"[1,7,9,18]", "[4]", "[4]"}, {"[1,7,9,20]"}, "pad", 1);
  b.edge(x, pad, 0);
  b.edge(b.i64({0, 0, 0, 0}), pad, 1);
  b.edge(b.i64({0, 0, 0, 2}), pad, 2);
  const int cut = b.layer("Reshape", "special_zero=\"true\"", {"[1,7,9,20]", "[5]"}, {"[1,7,9,5,4]"}, "cut", 1);
  b.edge(pad, cut, 0);
  b.edge(b.i64({1, 7, 9, 5, 4}), cut, 1);
  const int turn = b.layer("Transpose", "", {"[1,7,9,5,4]", "[5]"}, {"[1,5,7,9,4]"}, "turn", 1);
  b.edge(cut, turn, 0);
  b.edge(b.i64({0, 3, 1, 2, 4}), turn, 1);
  const int windows = b.layer("Reshape", "special_zero=\"true\"", {"[1,5,7,9,4]", "[4]"}, {"[5,7,9,4]"}, "windows", 1);
  b.edge(turn, windows, 0);
  b.edge(b.i64({-1, 7, 9, 4}), windows, 1);
  b.result(windows, "[5,7,9,4]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,7,9,?]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  const auto padded = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& c) { return c.type == "Pad"; });
  ASSERT_NE(padded, r.changes.end());
  EXPECT_EQ(padded->computed, "[0,0,0,0,0,0,0,(4-shape[3]%4)%4]");
  EXPECT_NE(ir_output(r).xml.find(R"(type="FloorMod")"), std::string::npos);
  const auto at = written_at(r, "[1,7,9,21]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_EQ(at.outputs.size(), 1u);
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[6,7,9,4]");
}

// New sizes, IR: positions 1, 3, 5, ... (`arange(1, 2 * L, 2)`) folded at length 6 into an i32 Const [1,6] that
// indexes a table of 16 rows, added to x: check names the Const (counted_range), fix computes it as a Range
// of L (Range-4 from 0 by 1, times 2, plus 1, converted to i32, shaped [1,-1]) read from x, which the
// table's rows meet, and every layer that read the Const reads it.
TEST_F(fixing, new_sizes_a_counted_constant_is_computed_as_a_range) {
  ir_builder b;
  const int x = b.parameter("[1,6,4]", "x");
  const int positions = b.constant(element_type::i32, "1,6", {1, 3, 5, 7, 9, 11}, "[1,6]");
  const int rows = b.layer("Gather", "batch_dims=\"0\"", {"[16,4]", "[1,6]", "[]"}, {"[1,6,4]"}, "rows", 8);
  b.edge(b.constant(element_type::f32, "16,4", std::vector<std::int64_t>(64, 0), "[16,4]"), rows, 0);
  b.edge(positions, rows, 1);
  b.edge(b.scalar(0), rows, 2);
  const int add = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,6,4]", "[1,6,4]"}, {"[1,6,4]"}, "add_positions");
  b.edge(x, add, 0);
  b.edge(rows, add, 1);
  b.result(add, "[1,6,4]");
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,7,4]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "counted_range");
  EXPECT_EQ(before.findings[0].id, positions);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2..8,4]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Const");
  EXPECT_EQ(r.changes[0].old_pattern, "[1,3,5,7,9,11]");
  EXPECT_EQ(r.changes[0].computed, "range(shape('x')[1])*2+1 as [1,-1]");
  EXPECT_NE(ir_output(r).xml.find(R"(type="Range")"), std::string::npos);
  const auto at = written_at(r, "[1,7,4]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  // Vouched for, it is meant to stay: no finding names it, and the Add fails at another length.
  const auto vouched = model::check_batch(load(b.xml(), b.bin()),
                                          {.shapes = {{"x", parse_shape("[1,7,4]")}}, .assume_constant = {fmt::format("#{}", positions)}});
  EXPECT_TRUE(std::none_of(vouched.findings.begin(), vouched.findings.end(), [](const auto& f) { return f.code == "counted_range"; }));
}

/// x [1,2,6,8] and TopK(x, table[3] - 1) with the i32 table [1,2,6,8]; with `other`, a second input of x's
/// declared shape, y, that the shapes asked keep. The table's id in `table`.
ir_builder shape_table_model(bool other, int& table) {
  ir_builder b;
  const int x = b.parameter("[1,2,6,8]", "x");
  if (other) b.result(b.parameter("[1,2,6,8]", "y"), "[1,2,6,8]");
  table = b.constant(element_type::i32, "4", {1, 2, 6, 8}, "[4]");
  const int width = b.layer("Gather", "batch_dims=\"0\"", {"[4]", "[]", "[]"}, {"[]"}, "width", 8);
  b.edge(table, width, 0);
  b.edge(b.constant(element_type::i32, "", {3}, "[]"), width, 1);
  b.edge(b.scalar(0), width, 2);
  const int k = b.layer("Subtract", "auto_broadcast=\"numpy\"", {"[]", "[]"}, {"[]"}, "k", 1);
  b.edge(width, k, 0);
  b.edge(b.constant(element_type::i32, "", {1}, "[]"), k, 1);
  const int top = b.layer("TopK", "axis=\"3\" mode=\"max\" sort=\"value\" index_element_type=\"i32\"", {"[1,2,6,8]", "[]"},
                          {"[1,2,6,7]", "[1,2,6,7]"}, "top", 11);
  b.edge(x, top, 0);
  b.edge(k, top, 1);
  b.result(top, "[1,2,6,7]");
  return b;
}

// New sizes, IR: x's shape folded into an i32 table [1,2,6,8] and k = W - 1 read from it (`topk(x, x.shape[3] - 1)`
// exported at one size): check names the table (shape_table), fix computes it as x's shape converted to i32, for
// the Gather that read it, and the model written keeps W - 1 at another width.
TEST_F(fixing, new_sizes_a_shape_table_is_computed_as_the_shape_it_was) {
  int table = 0;
  auto b = shape_table_model(false, table);
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,2,6,11]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "shape_table");
  EXPECT_EQ(before.findings[0].id, table);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,6,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Const");
  EXPECT_EQ(r.changes[0].old_pattern, "[1,2,6,8]");
  EXPECT_NE(r.changes[0].computed.find("shape('x')[3]"), std::string::npos) << r.changes[0].computed;
  const auto xml = ir_output(r).xml;
  EXPECT_NE(xml.find(R"(type="ShapeOf")"), std::string::npos);
  EXPECT_NE(xml.find(R"(destination_type="i32")"), std::string::npos);
  const auto at = written_at(r, "[1,2,6,11]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_FALSE(at.outputs.empty());
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,2,6,10]");
}

// ... and a table stored as [1,4], squeezed before a Broadcast reads it whole as its output's shape: computed as x's
// shape given the Const's shape back ([1,-1], no size written), so the Squeeze still takes axis 0.
TEST_F(fixing, new_sizes_a_squeezed_shape_table_keeps_its_shape) {
  ir_builder b;
  const int x = b.parameter("[1,2,6,8]", "x");
  const int table = b.constant(element_type::i32, "1,4", {1, 2, 6, 8}, "[1,4]");
  const int squeezed = b.layer("Squeeze", "", {"[1,4]", "[]"}, {"[4]"}, "squeezed", 1);
  b.edge(table, squeezed, 0);
  b.edge(b.scalar(0), squeezed, 1);
  const int ones = b.layer("Broadcast", "mode=\"numpy\"", {"[]", "[4]"}, {"[1,2,6,8]"}, "ones", 3);
  b.edge(b.constant(element_type::f32, "", {1}, "[]"), ones, 0);
  b.edge(squeezed, ones, 1);
  const int sum = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,2,6,8]", "[1,2,6,8]"}, {"[1,2,6,8]"}, "sum", 1);
  b.edge(x, sum, 0);
  b.edge(ones, sum, 1);
  b.result(sum, "[1,2,6,8]");
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,2,6,11]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "shape_table");
  EXPECT_EQ(before.findings[0].id, table);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,6,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].old_pattern, "[1,2,6,8]");
  const auto xml = ir_output(r).xml;
  EXPECT_NE(xml.find(R"(type="ShapeOf")"), std::string::npos);
  const auto at = written_at(r, "[1,2,6,11]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_FALSE(at.outputs.empty());
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,2,6,11]");
}

// ... but where another tensor of that declared shape stays at the shapes asked (an input y), which of x and y
// the table stood for is not known: refused, naming both.
TEST_F(fixing, new_sizes_a_shape_table_of_two_tensors_that_differ_is_refused) {
  int table = 0;
  auto b = shape_table_model(true, table);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,6,2..]")}};
  const auto r = fix(b, o);
  EXPECT_FALSE(r.fixed);
  ASSERT_FALSE(r.refusals.empty());
  EXPECT_EQ(r.refusals[0].id, table);
  EXPECT_EQ(r.refusals[0].code, "table_tensor_unknown") << r.refusals[0].reason;
}

// New sizes, IR: a grid of cell positions folded at 5x7 into one f32 Const [1,2,5,7] (channel 0 the column
// less 0.5, channel 1 the row times 2 plus 1: 70 values, above those the propagation reads) added to x: check names
// it (counted_grid), fix computes it as its base plus Ranges of H and W read from x times its slopes, and the
// written model's grid at the declared shape holds the Const's values, every one.
TEST_F(fixing, new_sizes_a_folded_grid_is_computed_from_ranges) {
  ir_builder b;
  std::vector<float> values;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 7; ++j) values.push_back(c == 0 ? static_cast<float>(j) - 0.5F : static_cast<float>(2 * i + 1));
  const int grid = constant_meeting_x(b, "Add", "1,2,5,7", "[1,2,5,7]", values, "add_grid");
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,2,6,9]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "counted_grid");
  EXPECT_EQ(before.findings[0].id, grid);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Const");
  EXPECT_EQ(r.changes[0].computed, "grid([shape('x')[2],shape('x')[3]] along axes [2,3]) as [1,2,-1,-1]");
  EXPECT_EQ(written_at(r, "[1,2,6,9]").summary.verdict(), model::batch_verdict::yes);
  // The values: what the Add reads at the declared shape, propagated through the layers written.
  expect_reads(r, "[1,2,5,7]", "add_grid", values);
}

// New sizes, IR: a constant the same along H and W at 5x7 (yolov5's anchor_grid: a value per channel at every
// cell, folded whole into one f32 Const [1,2,5,7]) multiplied with x: check names it (spread_along_size), fix
// computes it as its first cell spread along Ranges of H and W, and the written model's constant at the
// declared shape holds the Const's values, every one.
TEST_F(fixing, new_sizes_a_constant_spread_along_the_sizes_is_computed_from_ranges) {
  ir_builder b;
  std::vector<float> values(5 * 7, 10.0F);
  values.resize(2 * 5 * 7, 13.25F);
  const int spread = constant_meeting_x(b, "Multiply", "1,2,5,7", "[1,2,5,7]", values, "sizes");
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,2,6,9]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "spread_along_size");
  EXPECT_EQ(before.findings[0].id, spread);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "grid([shape('x')[2],shape('x')[3]] along axes [2,3]) as [1,2,-1,-1]");
  EXPECT_NE(r.changes[0].why.find("the same values all along"), std::string::npos) << r.changes[0].why;
  EXPECT_EQ(written_at(r, "[1,2,6,9]").summary.verdict(), model::batch_verdict::yes);
  expect_reads(r, "[1,2,5,7]", "sizes", values);
}

// New sizes, IR: a folded grid above the 4,096 values the propagation carries (a detector's cells at 40x60,
// [1,2,40,60]: 4,800 values) is read from the .bin all the same: check names it, fix computes it, and the
// model written takes another size.
TEST_F(fixing, new_sizes_a_grid_above_the_values_propagation_carries_is_read_from_the_weights) {
  ir_builder b;
  std::vector<float> values;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 60; ++j) values.push_back(c == 0 ? static_cast<float>(j) + 0.5F : static_cast<float>(i) + 0.5F);
  const int grid = constant_meeting_x(b, "Add", "1,2,40,60", "[1,2,40,60]", values, "add_grid");
  const auto before = model::check_batch(load(b.xml(), b.bin()), {.shapes = {{"x", parse_shape("[1,2,80,120]")}}});
  ASSERT_FALSE(before.findings.empty());
  EXPECT_EQ(before.findings[0].code, "counted_grid");
  EXPECT_EQ(before.findings[0].id, grid);
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "grid([shape('x')[2],shape('x')[3]] along axes [2,3]) as [1,2,-1,-1]");
  EXPECT_EQ(written_at(r, "[1,2,80,120]").summary.verdict(), model::batch_verdict::yes);
}

// New sizes, IR: YOLOv8's distribution head views its boxes `[1,64,A]` as `[1,4,16,A]`, A the anchors of
// every level, beside another tensor of A values that stays at every size (its anchors' table, here a second
// input's). A pattern without -1 must multiply to its input's elements: a program that wrote the size that
// stays there would not run at another size, so the element follows the input's and becomes -1.
TEST_F(fixing, new_sizes_a_size_that_stays_is_no_reading_of_a_pattern_without_minus_one) {
  std::vector<std::int64_t> table;
  for (int k = 0; k < 30; ++k) table.push_back(std::bit_cast<std::uint32_t>(static_cast<float>((k * 7) % 11)));
  const auto model = [&](const std::vector<std::int64_t>& pattern) {
    ir_builder b;
    const int x = b.parameter("[1,64,30]", "x");
    const int y = b.parameter("[1,1,30]", "y");
    b.result(b.reshape(x, b.i64(pattern), false, "[1,64,30]", "[4]", "[1,4,16,30]", "dfl_view"), "[1,4,16,30]");
    const int anchors = b.constant(element_type::f32, "1,1,30", table, "[1,1,30]");
    const int add = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,1,30]", "[1,1,30]"}, {"[1,1,30]"}, "anchors");
    b.edge(y, add, 0);
    b.edge(anchors, add, 1);
    b.result(add, "[1,1,30]");
    return b;
  };
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,64,?]")}};
  const auto r = fix(model({1, 4, 16, 30}), o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].name, "dfl_view");
  EXPECT_EQ(r.changes[0].new_pattern, "[1,4,16,-1]");
  // With a -1 elsewhere the size that stays may be the one written: `[1,-1,16,30]` is refused.
  EXPECT_FALSE(fix(model({1, -1, 16, 30}), o).fixed);
}

// New sizes: a size is read from the extent of the axis it is placed on, on a square map too, where it could
// as well be the other axis' (`size=(2w, 2h)` exported at 8x8 is these bytes): the placement is what the
// file shows of it, and `?,?` and `?@S` twice read it alike.
TEST_F(fixing, new_sizes_an_interpolate_on_a_square_map_reads_each_size_along_its_axis) {
  ir_builder b;
  const int x = b.parameter("[1,2,8,8]", "x");
  const int up = b.layer("Interpolate", "mode=\"nearest\" shape_calculation_mode=\"sizes\"", {"[1,2,8,8]", "[2]", "[2]"},
                         {"[1,2,16,16]"}, "up", 11);
  b.edge(x, up, 0);
  b.edge(b.i64({16, 16}), up, 1);
  b.edge(b.i64({2, 3}), up, 2);
  b.result(up, "[1,2,16,16]");
  for (const auto* asked : {"[1,2,?,?]", "[1,2,?@S,?@S]"}) {
    model::fix_options o;
    o.shapes = {{"x", parse_shape(asked)}};
    const auto r = fix(b, o);
    ASSERT_TRUE(r.fixed) << asked << ": " << refused(r);
    EXPECT_EQ(r.changes[0].computed, "[shape[2]*2,shape[3]*2]") << asked;
  }
}

// New sizes, IR: a Gather-8 at the last position of a length that changes (6 of 7): fix writes -1, and the
// model written takes the last step at every length. A Gather-7, which counts no position back from the
// end, is refused with why.
TEST_F(fixing, new_sizes_a_gather_at_the_last_position_takes_minus_one) {
  for (const int version : {8, 7}) {
    ir_builder b;
    const int x = b.parameter("[1,7,4]", "x");
    const int pick = b.layer("Gather", "batch_dims=\"0\"", {"[1,7,4]", "[]", "[]"}, {"[1,4]"}, "last_step", version);
    b.edge(x, pick, 0);
    b.edge(b.scalar(6), pick, 1);
    b.edge(b.scalar(1), pick, 2);
    b.result(pick, "[1,4]");
    model::fix_options o;
    o.shapes = {{"x", parse_shape("[1,?,4]")}};
    const auto r = fix(b, o);
    if (version == 7) {
      EXPECT_FALSE(r.fixed);
      ASSERT_EQ(r.refusals.size(), 1u);
      EXPECT_EQ(r.refusals[0].code, "no_negative_positions");
      continue;
    }
    ASSERT_TRUE(r.fixed) << refused(r);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].type, "Gather");
    EXPECT_EQ(r.changes[0].old_pattern, "[6]");
    EXPECT_EQ(r.changes[0].new_pattern, "[-1]");
    const auto at = written_at(r, "[1,12,4]");
    EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  }
}

// New sizes, IR: a TopK that sorts the whole width, its k 14 baked: k is computed as shape[3], a scalar for
// TopK-1 (which takes no other k), and the model written sorts the whole width at another.
TEST_F(fixing, new_sizes_a_topk_of_a_whole_axis_computes_its_k) {
  for (const int version : {1, 11}) {
    ir_builder b;
    const int x = b.parameter("[1,2,6,14]", "x");
    const int sort = b.layer("TopK", "axis=\"3\" mode=\"max\" sort=\"value\"", {"[1,2,6,14]", "[]"},
                             {"[1,2,6,14]", "[1,2,6,14]"}, "sort_row", version);
    b.edge(x, sort, 0);
    b.edge(b.scalar(14), sort, 1);
    b.result(sort, "[1,2,6,14]");
    model::fix_options o;
    o.shapes = {{"x", parse_shape("[1,2,6,?]")}};
    const auto r = fix(b, o);
    ASSERT_TRUE(r.fixed) << version << ": " << refused(r);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].type, "TopK");
    EXPECT_EQ(r.changes[0].computed, "[shape[3]]");
    const auto at = written_at(r, "[1,2,6,23]");
    EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << version << ": " << at.summary_line();
    ASSERT_FALSE(at.outputs.empty());
    EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,2,6,23]");
  }
}

// New sizes, IR: a mean over the rows spread back over them, by Tile-1 (repeats [1,1,6,1]) and by a
// bidirectional Broadcast-3 (shape [1,2,6,8]), each subtracted from the map: both are computed from the map's
// shape (asked 2.. : a map of one row would broadcast against anything), and the model written runs at
// another size.
TEST_F(fixing, new_sizes_a_tile_and_a_broadcast_that_spread_a_row_follow_the_map) {
  ir_builder b;
  const int x = b.parameter("[1,2,6,8]", "x");
  const int mean = b.layer("ReduceMean", "keep_dims=\"true\"", {"[1,2,6,8]", "[1]"}, {"[1,2,1,8]"}, "mean", 1);
  b.edge(x, mean, 0);
  b.edge(b.i64({2}), mean, 1);
  const int tile = b.layer("Tile", "", {"[1,2,1,8]", "[4]"}, {"[1,2,6,8]"}, "tile", 1);
  b.edge(mean, tile, 0);
  b.edge(b.i64({1, 1, 6, 1}), tile, 1);
  const int spread = b.layer("Broadcast", "mode=\"bidirectional\"", {"[1,2,1,8]", "[4]"}, {"[1,2,6,8]"}, "spread", 3);
  b.edge(mean, spread, 0);
  b.edge(b.i64({1, 2, 6, 8}), spread, 1);
  for (const int from : {tile, spread}) {
    const int sub = b.layer("Subtract", "auto_broadcast=\"numpy\"", {"[1,2,6,8]", "[1,2,6,8]"}, {"[1,2,6,8]"},
                            from == tile ? "minus_tiled" : "minus_spread", 1);
    b.edge(x, sub, 0);
    b.edge(from, sub, 1);
    b.result(sub, "[1,2,6,8]");
  }
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 2u);
  for (const auto& c : r.changes) EXPECT_EQ(c.computed, "[1,1,shape('x')[2],1]") << c.type;
  const auto at = written_at(r, "[1,2,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
}

// New sizes, IR: a grid of columns, Range-4 from 0 to 8 by 1 (scalars) in f32, added to the map: the limit is
// read from the map it meets (a rank-1 range aligned with its last axis), made a scalar and converted to the
// range's i64; the model written runs at another width.
TEST_F(fixing, new_sizes_a_range_that_counts_along_a_map_computes_its_limit) {
  ir_builder b;
  const int x = b.parameter("[1,2,6,8]", "x");
  const int range = b.layer("Range", "output_type=\"f32\"", {"[]", "[]", "[]"}, {"[8]"}, "columns", 4);
  b.edge(b.scalar(0), range, 0);
  b.edge(b.scalar(8), range, 1);
  b.edge(b.scalar(1), range, 2);
  const int add = b.layer("Add", "auto_broadcast=\"numpy\"", {"[1,2,6,8]", "[8]"}, {"[1,2,6,8]"}, "add_grid", 1);
  b.edge(x, add, 0);
  b.edge(range, add, 1);
  b.result(add, "[1,2,6,8]");
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,2,2..,2..]")}};
  const auto r = fix(b, o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Range");
  EXPECT_EQ(r.changes[0].computed, "[shape('x')[3]]");
  const auto at = written_at(r, "[1,2,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
}

/// x [1,3,6,8] summed over H and W (or, where `channels_and_width`, over C and W), then `op` (Divide,
/// Multiply) by the f32 scalar `value`.
ir_builder mean_of_sum(const std::string& op, float value, bool channels_and_width = false) {
  ir_builder b;
  const int x = b.parameter("[1,3,6,8]", "x");
  const std::string out = channels_and_width ? "[1,6]" : "[1,3]";
  const int sum = b.layer("ReduceSum", "keep_dims=\"false\"", {"[1,3,6,8]", "[2]"}, {out}, "sum", 1);
  b.edge(x, sum, 0);
  b.edge(b.i64(channels_and_width ? std::vector<std::int64_t>{1, 3} : std::vector<std::int64_t>{2, 3}), sum, 1);
  const int mean = b.layer(op, "auto_broadcast=\"numpy\"", {out, "[]"}, {out}, "mean", 1);
  b.edge(sum, mean, 0);
  b.edge(b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(value)}, "[]"), mean, 1);  // its bits
  b.result(mean, out);
  return b;
}

// New sizes, IR: a mean over H and W written as a sum divided by the count, 48 = 6·8 baked as an f32 scalar:
// the divisor is the product of the summed input's H and W, converted to f32, a scalar as the Const was.
TEST_F(fixing, new_sizes_a_divisor_that_counts_the_elements_summed_is_computed) {
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  const auto r = fix(mean_of_sum("Divide", 48.0F), o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "[shape('x')[2]*shape('x')[3]]");
  const auto at = written_at(r, "[1,3,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
}

// New sizes, IR: the same mean written as the sum times 1/48 (an f32 scalar): the factor is one over the
// product of H and W, converted to f32 and divided into 1. A factor that is no reciprocal of the count (a
// half) is left alone: check names no size there.
TEST_F(fixing, new_sizes_a_factor_one_over_the_elements_summed_is_computed) {
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  const auto r = fix(mean_of_sum("Multiply", 1.0F / 48), o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "Multiply");
  EXPECT_EQ(r.changes[0].computed, "1/[shape('x')[2]*shape('x')[3]]");
  const auto at = written_at(r, "[1,3,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  const auto half = fix(mean_of_sum("Multiply", 0.5F), o);
  EXPECT_TRUE(half.changes.empty());
}

// New sizes, IR: a mean over axes that are not adjacent (C and W: 3·8 = 24) has its divisor computed from
// both: the count need not be a product of adjacent dimensions.
TEST_F(fixing, new_sizes_a_divisor_over_axes_apart_is_computed) {
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  const auto r = fix(mean_of_sum("Divide", 24.0F, true), o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].computed, "[shape('x')[1]*shape('x')[3]]");
  const auto at = written_at(r, "[1,3,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
}

/// x [1,3,6,8]'s variance over its 6x8 map with Bessel's correction folded at 48 elements: the squares of
/// x less its mean, reduced by `reduce` (ReduceMean or ReduceSum), then `op` by the f32 scalar `value`
/// (layer "scale"), and for `times_count` first multiplied by 48 (layer "count", a mean times n is a sum);
/// for `rectified`, through a ReLU first; for `mixed`, times another input's data y [1,3] first; for
/// `factor_first`, each Multiply by a constant takes it as its input 0 (Mul(c, v)).
ir_builder corrected_variance(const std::string& reduce, const std::string& op, float value, bool times_count = false,
                              bool rectified = false, bool mixed = false, bool factor_first = false) {
  ir_builder b;
  const int x = b.parameter("[1,3,6,8]", "x");
  const int mean = b.layer("ReduceMean", "keep_dims=\"true\"", {"[1,3,6,8]", "[2]"}, {"[1,3,1,1]"}, "mean", 1);
  b.edge(x, mean, 0);
  b.edge(b.i64({2, 3}), mean, 1);
  const int d = b.layer("Subtract", "auto_broadcast=\"numpy\"", {"[1,3,6,8]", "[1,3,1,1]"}, {"[1,3,6,8]"}, "d", 1);
  b.edge(x, d, 0);
  b.edge(mean, d, 1);
  const int sq = b.layer("Multiply", "auto_broadcast=\"numpy\"", {"[1,3,6,8]", "[1,3,6,8]"}, {"[1,3,6,8]"}, "sq", 1);
  b.edge(d, sq, 0);
  b.edge(d, sq, 1);
  int v = b.layer(reduce, "keep_dims=\"false\"", {"[1,3,6,8]", "[2]"}, {"[1,3]"}, "v", 1);
  b.edge(sq, v, 0);
  b.edge(b.i64({2, 3}), v, 1);
  const auto scalar = [&](float f) { return b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(f)}, "[]"); };
  if (times_count) {
    const int count = b.layer("Multiply", "auto_broadcast=\"numpy\"", factor_first ? std::vector<std::string>{"[]", "[1,3]"}
                                                                                    : std::vector<std::string>{"[1,3]", "[]"},
                              {"[1,3]"}, "count", 1);
    b.edge(v, count, factor_first ? 1 : 0);
    b.edge(scalar(48.0F), count, factor_first ? 0 : 1);
    v = count;
  }
  if (rectified) {
    const int relu = b.layer("ReLU", "", {"[1,3]"}, {"[1,3]"}, "relu", 1);
    b.edge(v, relu, 0);
    v = relu;
  }
  if (mixed) {
    const int y = b.parameter("[1,3]", "y");
    const int times = b.layer("Multiply", "auto_broadcast=\"numpy\"", {"[1,3]", "[1,3]"}, {"[1,3]"}, "times", 1);
    b.edge(v, times, 0);
    b.edge(y, times, 1);
    v = times;
  }
  const bool first = factor_first && op == "Multiply";
  const int scale = b.layer(op, "auto_broadcast=\"numpy\"", first ? std::vector<std::string>{"[]", "[1,3]"}
                                                                  : std::vector<std::string>{"[1,3]", "[]"},
                            {"[1,3]"}, "scale", 1);
  b.edge(v, scale, first ? 1 : 0);
  b.edge(scalar(value), scale, first ? 0 : 1);
  b.result(scale, "[1,3]");
  return b;
}

// New sizes, IR: Bessel's correction of a variance folded at one size (torch's unbiased var and std, after
// a converter folded the count) is computed from the squares' shape: n-1 as a divisor, 1/(n-1) and n/(n-1)
// as factors, and the n a mean is multiplied by. The written model's value at the scale's input is the
// constant at the declared size and follows the count at another; a correction under a square root is
// refused (no rewrite computes a root).
TEST_F(fixing, new_sizes_bessel_s_correction_of_a_variance_is_computed) {
  struct bessel_case {
    const char* reduce;
    const char* op;
    float value;
    bool times_count;
    const char* computed;              ///< the scale's rewrite
    double (*at)(double n);            ///< its value for a count n
    bool factor_first = false;         ///< Mul(c, v): the constant is the Multiply's input 0
  };
  const bessel_case cases[] = {
      {"ReduceMean", "Divide", 47.0F, true, "[shape('sq')[2]*shape('sq')[3]]-1", [](double n) { return n - 1; }},
      {"ReduceSum", "Divide", 47.0F, false, "[shape('sq')[2]*shape('sq')[3]]-1", [](double n) { return n - 1; }},
      {"ReduceSum", "Multiply", 1.0F / 47, false, "1/([shape('sq')[2]*shape('sq')[3]]-1)", [](double n) { return 1 / (n - 1); }},
      {"ReduceMean", "Multiply", 48.0F / 47, false, "[shape('sq')[2]*shape('sq')[3]]/([shape('sq')[2]*shape('sq')[3]]-1)",
       [](double n) { return n / (n - 1); }},
      // The same with the factors first: a product is the same either way round.
      {"ReduceMean", "Divide", 47.0F, true, "[shape('sq')[2]*shape('sq')[3]]-1", [](double n) { return n - 1; }, true},
      {"ReduceSum", "Multiply", 1.0F / 47, false, "1/([shape('sq')[2]*shape('sq')[3]]-1)", [](double n) { return 1 / (n - 1); },
       true},
      {"ReduceMean", "Multiply", 48.0F / 47, false, "[shape('sq')[2]*shape('sq')[3]]/([shape('sq')[2]*shape('sq')[3]]-1)",
       [](double n) { return n / (n - 1); }, true},
  };
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("{} {} {}{}", c.reduce, c.op, c.value, c.factor_first ? " first" : ""));
    const auto r = fix(corrected_variance(c.reduce, c.op, c.value, c.times_count, false, false, c.factor_first), o);
    ASSERT_TRUE(r.fixed) << refused(r);
    ASSERT_EQ(r.changes.size(), c.times_count ? 2u : 1u);
    const auto scale = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& x) { return x.name == "scale"; });
    ASSERT_NE(scale, r.changes.end());
    EXPECT_EQ(scale->computed, c.computed);
    if (c.times_count) {
      const auto count = std::find_if(r.changes.begin(), r.changes.end(), [](const auto& x) { return x.name == "count"; });
      ASSERT_NE(count, r.changes.end());
      EXPECT_EQ(count->computed, "[shape('sq')[2]*shape('sq')[3]]");
    }
    const auto at = written_at(r, "[1,3,9,13]");
    EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
    // The value the scale reads, computed from the shape: the constant's at 6x8, the count's at 9x13.
    const auto fixed = model::read_ir(out() / "f.xml", out() / "f.bin");
    for (const auto& [shape, n] : {std::pair{"[1,3,6,8]", 48.0}, std::pair{"[1,3,9,13]", 117.0}}) {
      SCOPED_TRACE(shape);
      const auto named = [&](const char* name) {
        return static_cast<std::size_t>(std::find_if(fixed.layers().begin(), fixed.layers().end(),
                                                     [&](const auto& x) { return x.name == name; }) -
                                        fixed.layers().begin());
      };
      const std::vector<model::input_shape> asked{{named("x"), parse_shape(shape)}};
      const auto p = model::propagate(fixed, asked);
      const auto& l = fixed.layers()[named("scale")];
      const auto& v = p.input(fixed, l, c.factor_first && std::string_view(c.op) == "Multiply" ? 0 : 1).value;
      ASSERT_TRUE(v.has_value());
      // (A whole number converted to f32 stays an integer element to propagation.)
      ASSERT_EQ(v->reals.size() + v->elements.size(), 1u);
      ASSERT_TRUE(v->is_real() || v->elements[0].exact());
      const double got = v->is_real() ? v->reals[0] : static_cast<double>(v->elements[0].lo);
      EXPECT_NEAR(got, c.at(n), 1e-6 * c.at(n));
    }
  }
  // Under a square root, or after a step other than a scaling (a ReLU), the correction is named (check
  // cannot tell) but not rewritten: fix rewrites a variance plain to see.
  // Nor a variance times data (Div(var * y, 47) is no variance over 47).
  struct kept_case {
    const char* what;
    float value;
    bool rectified, mixed;
  };
  for (const auto& [what, value, rectified, mixed] : {kept_case{"root", static_cast<float>(1 / std::sqrt(47.0)), false, false},
                                                      kept_case{"rectified", 1.0F / 47, true, false},
                                                      kept_case{"mixed", 1.0F / 47, false, true}})
    for (const bool first : {false, true}) {
      SCOPED_TRACE(fmt::format("{}{}", what, first ? " first" : ""));
      const auto refused_here = fix(corrected_variance("ReduceSum", "Multiply", value, false, rectified, mixed, first), o);
      EXPECT_FALSE(refused_here.fixed);
      ASSERT_FALSE(refused_here.refusals.empty());
      EXPECT_EQ(refused_here.refusals[0].name, "scale") << refused_here.refusals[0].reason;
    }
  // Nor a factor of another reduction than the unbiased variance's: a mean over n-1, a sum times n/(n-1),
  // a norm (ReduceL2, a root: its correction would be 1/√(n-1)). Check cannot tell; fix refuses.
  struct other_case {
    const char* reduce;
    const char* op;
    float value;
  };
  for (const auto& [reduce, op, value] : {other_case{"ReduceMean", "Multiply", 1.0F / 47}, other_case{"ReduceMean", "Divide", 47.0F},
                                          other_case{"ReduceSum", "Multiply", 48.0F / 47}, other_case{"ReduceL2", "Multiply", 1.0F / 47},
                                          other_case{"ReduceL2", "Divide", 47.0F}})
    for (const bool first : {false, true}) {
      SCOPED_TRACE(fmt::format("{} {} {}{}", reduce, op, value, first ? " first" : ""));
      const auto r = fix(corrected_variance(reduce, op, value, false, false, false, first), o);
      EXPECT_FALSE(r.fixed);
      ASSERT_FALSE(r.refusals.empty());
      EXPECT_EQ(r.refusals[0].name, "scale") << r.refusals[0].reason;
      EXPECT_NE(r.refusals[0].reason.find("may stand for the size 48"), std::string::npos) << r.refusals[0].reason;
    }
}

/// x [1,3,6,8] (squared, as layer "sq", where `squares`) reduced over W by `first`, kept as 1 where
/// `keep_first`, then over H by `second`, then `op` by the f32 scalar `value` (layer "scale").
ir_builder reduced_in_steps(const std::string& first, bool keep_first, const std::string& second, bool squares,
                            const std::string& op, float value) {
  ir_builder b;
  int x = b.parameter("[1,3,6,8]", "x");
  if (squares) {
    const int sq = b.layer("Multiply", R"(auto_broadcast="numpy")", {"[1,3,6,8]", "[1,3,6,8]"}, {"[1,3,6,8]"}, "sq", 1);
    b.edge(x, sq, 0);
    b.edge(x, sq, 1);
    x = sq;
  }
  const std::string rows = keep_first ? "[1,3,6,1]" : "[1,3,6]";
  const int w = b.layer(first, keep_first ? R"(keep_dims="true")" : R"(keep_dims="false")", {"[1,3,6,8]", "[1]"}, {rows}, "rows", 1);
  b.edge(x, w, 0);
  b.edge(b.i64({3}), w, 1);
  const int h = b.layer(second, R"(keep_dims="false")", {rows, "[1]"}, {keep_first ? "[1,3,1]" : "[1,3]"}, "sum", 1);
  b.edge(w, h, 0);
  b.edge(b.i64({2}), h, 1);
  const std::string out = keep_first ? "[1,3,1]" : "[1,3]";
  const int scale = b.layer(op, R"(auto_broadcast="numpy")", {out, "[]"}, {out}, "scale", 1);
  b.edge(h, scale, 0);
  b.edge(b.constant(element_type::f32, "", {std::bit_cast<std::uint32_t>(value)}, "[]"), scale, 1);
  b.result(scale, out);
  return b;
}

// New sizes, IR: a mean or a variance whose elements are reduced in steps (over W, then over H, kept as 1
// or not between) counts the elements of both steps: the divisor or the correction is computed from the
// shape of what the first step reduces. Steps of two different ops (a sum of rows, then their mean) are no
// one reduction: check cannot tell, fix refuses.
TEST_F(fixing, new_sizes_a_count_of_elements_reduced_in_steps_is_computed) {
  struct steps_case {
    const char* first;
    bool keep_first;
    const char* second;
    bool squares;
    const char* op;
    float value;
    const char* computed;  ///< "" for refused
  };
  const steps_case cases[] = {
      {"ReduceSum", false, "ReduceSum", false, "Divide", 48.0F, "[shape('x')[2]*shape('x')[3]]"},
      {"ReduceSum", true, "ReduceSum", false, "Multiply", 1.0F / 48, "1/[shape('x')[2]*shape('x')[3]]"},
      {"ReduceSum", true, "ReduceSum", true, "Multiply", 1.0F / 47, "1/([shape('sq')[2]*shape('sq')[3]]-1)"},
      {"ReduceMean", false, "ReduceMean", true, "Multiply", 48.0F / 47,
       "[shape('sq')[2]*shape('sq')[3]]/([shape('sq')[2]*shape('sq')[3]]-1)"},
      {"ReduceSum", false, "ReduceMean", false, "Divide", 48.0F, ""},
  };
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("{}{} {} {} {}", c.first, c.keep_first ? " kept" : "", c.second, c.op, c.value));
    const auto r = fix(reduced_in_steps(c.first, c.keep_first, c.second, c.squares, c.op, c.value), o);
    if (*c.computed == '\0') {
      EXPECT_FALSE(r.fixed);
      ASSERT_FALSE(r.refusals.empty());
      EXPECT_EQ(r.refusals[0].name, "scale") << r.refusals[0].reason;
      continue;
    }
    ASSERT_TRUE(r.fixed) << refused(r);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].computed, c.computed);
    const auto at = written_at(r, "[1,3,9,13]");
    EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  }
}

// New sizes, IR: an AvgPool whose window is the whole 6x8 map (global pooling written as a fixed window)
// becomes ReduceMean-1 over axes 2 and 3, kept as 1s; a MaxPool-1 likewise ReduceMax-1, and a MaxPool-8 whose
// indices (a second output) nothing reads, which the reduction leaves out. A MaxPool-8 whose indices are read
// and a window that also pads are refused: no reduction computes them.
TEST_F(fixing, new_sizes_a_pooling_window_that_is_the_whole_map_becomes_a_reduction) {
  const auto model = [](const std::string& type, int opset, const std::string& pads, bool indices, bool read = false) {
    ir_builder b;
    const int x = b.parameter("[1,3,6,8]", "x");
    // (Padded by 1, a stride of 3 still gives one output: (6 + 2 - 6) / 3 + 1.)
    const auto window = fmt::format(R"(kernel="6,8" strides="3,3" pads_begin="{0}" pads_end="{0}" rounding_type="floor" )"
                                    R"(auto_pad="explicit" exclude-pad="true"{1})",
                                    pads, opset == 8 ? R"( dilations="1,1" index_element_type="i64" axis="0")" : "");
    const std::string out = "[1,3,1,1]";
    std::vector<std::string> outs{out};
    if (indices) outs.push_back(out);
    const int pool = b.layer(type, window, {"[1,3,6,8]"}, outs, "pool", opset);
    b.edge(x, pool, 0);
    b.result(pool, out);
    if (read) b.edge(pool, 1, b.layer("Result", "", {out}, {}, "indices"), 0);
    return b;
  };
  model::fix_options o;
  o.shapes = {{"x", parse_shape("[1,3,?,?]")}};
  const auto r = fix(model("AvgPool", 1, "0,0", false), o);
  ASSERT_TRUE(r.fixed) << refused(r);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].type, "AvgPool");
  EXPECT_EQ(r.changes[0].old_pattern, "[6,8]");
  EXPECT_EQ(r.changes[0].computed, "ReduceMean over [2,3]");
  EXPECT_NE(ir_output(r).xml.find(R"(type="ReduceMean" version="opset1")"), std::string::npos);
  const auto at = written_at(r, "[1,3,9,13]");
  EXPECT_EQ(at.summary.verdict(), model::batch_verdict::yes) << at.summary_line();
  ASSERT_EQ(at.outputs.size(), 1u);
  EXPECT_EQ(to_string(at.outputs[0].reshaped), "[1,3,1,1]");

  const auto max = fix(model("MaxPool", 1, "0,0", false), o);
  ASSERT_TRUE(max.fixed) << refused(max);
  EXPECT_EQ(max.changes[0].computed, "ReduceMax over [2,3]");
  EXPECT_EQ(written_at(max, "[1,3,9,13]").summary.verdict(), model::batch_verdict::yes);
  // MaxPool-8 gives its indices too, which no reduction does: where nothing reads them, they go.
  const auto unread = fix(model("MaxPool", 8, "0,0", true), o);
  ASSERT_TRUE(unread.fixed) << refused(unread);
  EXPECT_EQ(unread.changes[0].computed, "ReduceMax over [2,3]");
  const auto& xml = ir_output(unread).xml;
  const auto pool = xml.find(R"(type="ReduceMax" version="opset1")");
  ASSERT_NE(pool, std::string::npos);
  const auto outputs = xml.substr(xml.find("<output>", pool), xml.find("</layer>", pool) - xml.find("<output>", pool));
  EXPECT_EQ(outputs.find("<port", outputs.find("<port") + 1), std::string::npos) << "one output: " << outputs;
  EXPECT_EQ(written_at(unread, "[1,3,9,13]").summary.verdict(), model::batch_verdict::yes);
  const auto indices = fix(model("MaxPool", 8, "0,0", true, true), o);
  EXPECT_FALSE(indices.fixed);
  ASSERT_FALSE(indices.refusals.empty());
  EXPECT_EQ(indices.refusals[0].code, "window_not_whole");

  const auto padded = fix(model("AvgPool", 1, "1,1", false), o);
  EXPECT_FALSE(padded.fixed);
  EXPECT_TRUE(padded.changes.empty());
}

}  // namespace
}  // namespace reshape1::test

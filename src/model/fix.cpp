// `reshape1 fix`: rewrite the Const pattern elements that keep a model from reshaping, one Reshape at a
// time, each kept only when the rewritten model, read back (from memory), propagates to exactly the same
// shapes at the declared inputs and the Reshape no longer fails or swallows the batch; then the whole
// rewritten model is checked at every requested batch.
#include "reshape1/model/fix.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <pugixml.hpp>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "batch_internal.hpp"
#include "read_internal.hpp"
#include "reshape1/model/propagate.hpp"
#include "rules.hpp"

namespace reshape1::model {
namespace {

using detail::without_symbols;

namespace fs = std::filesystem;
using reshape1::detail::fail;


std::string batch_name(const dimension& d) { return to_string(d); }

/// Every layer's output shapes by layer id, without symbols: what must not change at the declared inputs.
std::map<std::int64_t, std::vector<std::string>> shapes_by_id(const graph& g, const propagation& p) {
  std::map<std::int64_t, std::vector<std::string>> r;
  const auto layers = g.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    auto& v = r[layers[i].id];
    for (const auto& t : p.outputs[i]) v.push_back(to_string(without_symbols(t.shape)));
  }
  return r;
}

/// The first layer (in the original's order) whose shapes differ, or nullopt.
std::optional<std::int64_t> first_difference(const std::map<std::int64_t, std::vector<std::string>>& before,
                                             const std::map<std::int64_t, std::vector<std::string>>& after) {
  for (const auto& [id, shapes] : before) {
    const auto it = after.find(id);
    if (it == after.end() || it->second != shapes) return id;
  }
  return std::nullopt;
}

/// A pattern's values as the notation, from a propagation (unknown elements as ?).
std::string pattern_text(const graph& g, const propagation& p, const layer& l) {
  return to_string(detail::without_symbols(detail::reshape_pattern_at(g, p, l, nullptr)));
}

/// What one rewrite does: the element `index` of Const `holder` becomes `value`; the Reshape's special_zero
/// may be set; a Const that feeds other layers too is cloned for `consumer`'s input `port`.
struct plan {
  std::int64_t reshape = 0;
  std::int64_t holder = 0;
  std::size_t index = 0;
  std::int64_t value = 0;
  std::int64_t old_value = 0;
  bool set_special_zero = false;
  bool clone = false;
  std::int64_t consumer = 0;
  std::size_t consumer_port = 0;
  std::string why;
};

/// The model being rewritten: the XML document and the bytes appended to the .bin. A rewrite is read back
/// from memory: the document's text, and the .bin mapped with the new bytes after it (nothing is written,
/// and nothing the size of the .bin is copied).
class rewriter {
 public:
  rewriter(const fs::path& xml, const fs::path& bin) : xml_name_(xml.string()), bin_(bin) {
    const io::detail::mapped_file text(xml);
    const auto bytes = text.bytes();
    const auto parsed = doc_.load_buffer(bytes.data(), bytes.size(),
                                         pugi::parse_default | pugi::parse_declaration | pugi::parse_comments |
                                             pugi::parse_ws_pcdata | pugi::parse_pi | pugi::parse_doctype,
                                         pugi::encoding_utf8);
    if (!parsed) fail(errc::bad_file, {.offset = static_cast<std::size_t>(parsed.offset), .file = xml.string()},
                      fmt::format("{}: not well-formed XML: {}", xml.string(), parsed.description()));
    std::error_code ec;
    bin_size_ = fs::file_size(bin, ec);
    if (ec) fail(errc::io, {.file = bin.string()}, fmt::format("{}: cannot open: {}", bin.string(), ec.message()));
  }

  [[nodiscard]] std::string text() const {
    std::ostringstream out;
    doc_.save(out, "", pugi::format_raw | pugi::format_no_declaration, pugi::encoding_utf8);
    return out.str();
  }
  [[nodiscard]] const std::vector<std::byte>& appended() const { return appended_; }

  /// Applies `p` to the document (the caller keeps a copy to undo). `g` is the current model.
  void apply(const graph& g, const plan& p) {
    const auto& holder = *g.find(p.holder);
    const auto stored = g.const_bytes(holder);
    std::vector<std::byte> bytes(stored.size());
    detail::copy_const_bytes(g, stored, bytes);
    const auto type = holder.element("element_type");
    const auto width = static_cast<std::size_t>(bit_width(type) / 8);
    if (width == 0 || (p.index + 1) * width > bytes.size())
      fail(errc::unsupported, {}, fmt::format("{}: its element type {} is not rewritten", holder.where(), name(type)));
    const auto value = static_cast<std::uint64_t>(p.value);
    for (std::size_t b = 0; b < width; ++b)
      bytes[p.index * width + b] = static_cast<std::byte>((value >> (8 * b)) & 0xFF);
    const auto offset = bin_size_ + appended_.size();
    appended_.insert(appended_.end(), bytes.begin(), bytes.end());

    auto layers = doc_.child("net").child("layers");
    auto node = find_layer(layers, p.holder);
    if (p.clone) {
      std::int64_t next = 0;
      for (const auto& l : g.layers()) next = std::max(next, l.id + 1);
      auto copy = layers.insert_copy_after(node, node);
      copy.attribute("id").set_value(std::to_string(next).c_str());
      copy.attribute("name").set_value(fmt::format("{}/reshape1_fix_{}", holder.name, p.consumer).c_str());
      node = copy;
      // Re-point the one edge from the shared Const to this consumer.
      for (auto edge : doc_.child("net").child("edges").children("edge")) {
        if (edge.attribute("from-layer").as_llong() != p.holder || edge.attribute("to-layer").as_llong() != p.consumer)
          continue;
        const auto& consumer = *g.find(p.consumer);
        if (p.consumer_port >= consumer.inputs.size() ||
            edge.attribute("to-port").as_llong() != consumer.inputs[p.consumer_port].id)
          continue;
        edge.attribute("from-layer").set_value(std::to_string(next).c_str());
      }
      cloned_id_ = next;
    } else {
      cloned_id_.reset();
    }
    auto data = node.child("data");
    data.attribute("offset").set_value(std::to_string(offset).c_str());
    data.attribute("size").set_value(std::to_string(bytes.size()).c_str());
    if (p.set_special_zero) find_layer(layers, p.reshape).child("data").attribute("special_zero").set_value("true");
  }
  [[nodiscard]] std::optional<std::int64_t> cloned_id() const { return cloned_id_; }

  /// Reads the rewritten model back: the current document, and the .bin followed by the appended bytes.
  [[nodiscard]] graph read_back() const {
    auto weights = std::make_shared<const io::detail::mapped_file>(bin_, appended_);
    const std::string bin_name = bin_.string();
    if (weights->bytes().size() != bin_size_ + appended_.size())
      fail(errc::io, {.file = bin_name},
           fmt::format("{}: the file changed size while it was being fixed; run again once nothing writes to it",
                       bin_name));
    return detail::read_ir_in_memory(text(), xml_name_ + " (rewritten)", std::move(weights),
                                     bin_name + " (with the new constants)");
  }

  /// A snapshot to undo a rewrite that did not prove out.
  struct state {
    std::string xml;
    std::size_t appended = 0;
  };
  [[nodiscard]] state save() const { return {text(), appended_.size()}; }
  void restore(const state& s) {
    doc_.reset();
    (void)doc_.load_buffer(s.xml.data(), s.xml.size(),
                           pugi::parse_default | pugi::parse_declaration | pugi::parse_comments |
                               pugi::parse_ws_pcdata | pugi::parse_pi | pugi::parse_doctype,
                           pugi::encoding_utf8);
    appended_.resize(s.appended);
  }

 private:
  static pugi::xml_node find_layer(const pugi::xml_node& layers, std::int64_t id) {
    for (auto l : layers.children("layer"))
      if (l.attribute("id").as_llong() == id) return l;
    fail(errc::invalid_argument, {}, fmt::format("layer id {} is not in the model's <layers>", id));
  }

  std::string xml_name_;
  fs::path bin_;
  std::uintmax_t bin_size_ = 0;
  pugi::xml_document doc_;
  std::vector<std::byte> appended_;
  std::optional<std::int64_t> cloned_id_;
};

bool writable_type(element_type t) {
  switch (t) {
    case element_type::i8: case element_type::i16: case element_type::i32: case element_type::i64:
    case element_type::u8: case element_type::u16: case element_type::u32: case element_type::u64: return true;
    default: return false;
  }
}

/// How many edges leave a layer.
std::size_t consumers_of(const graph& g, std::int64_t id) {
  std::size_t n = 0;
  for (const auto& l : g.layers())
    for (const auto& s : l.sources)
      if (s && g.layers()[s->layer].id == id) ++n;
  return n;
}

/// A finding's kind as the refusals say it.
std::string issue_text(batch_issue i) {
  switch (i) {
    case batch_issue::fails: return "fails";
    case batch_issue::swallows_batch: return "swallows the batch";
    case batch_issue::scales_with_batch: return "grows with the batch";
    case batch_issue::mixes_samples: return "mixes samples";
    case batch_issue::drops_samples: return "drops samples";
    case batch_issue::loses_batch: return "loses the batch";
    case batch_issue::fails_at_declared: return "fails at the declared shapes";
    case batch_issue::cannot_tell: return "cannot tell";
  }
  return "fails";
}

class fixer {
 public:
  fixer(const fs::path& xml, const fs::path& bin, const fix_options& options)
      : rw_(xml, bin), options_(options), current_(read_ir(xml, bin)) {
    if (options_.check_batches.empty()) options_.check_batches = {dimension(1), dimension(2), dimension(8), dimension()};
    declared_ = shapes_by_id(current_, propagate(current_));
  }

  fix_report run() {
    // Nothing to do when the model already reshapes at every batch.
    bool clean = true;
    for (const auto& b : options_.check_batches) {
      const auto r = check_batch(current_, request(b));
      clean = clean && r.summary.reshapes();
      report_.checked.push_back(r.summary_line());
    }
    if (clean) {
      report_.nothing_to_do = report_.fixed = true;
      return std::move(report_);
    }
    report_.checked.clear();

    std::set<std::int64_t> attempted;
    for (int round = 0; round < 256; ++round) {
      const auto probe = check_batch(current_, request(dimension()));
      const batch_finding* next = nullptr;
      for (const auto& f : probe.findings)
        if (f.type == "Reshape" && f.within.empty() && f.issue != batch_issue::scales_with_batch &&
            !attempted.contains(f.id)) {
          next = &f;
          break;
        }
      if (next == nullptr) break;
      attempted.insert(next->id);
      attempt(*next);
    }

    // The proof on the whole rewritten model (each rewrite was kept on the model with the earlier ones, so
    // the declared shapes are those of the original).
    bool all = true;
    for (const auto& b : options_.check_batches) {
      const auto r = check_batch(current_, request(b));
      report_.checked.push_back(r.summary_line());
      all = all && r.summary.reshapes() && consistent(r, b);
      for (const auto& f : r.findings) {
        if (f.issue == batch_issue::scales_with_batch) continue;
        if (std::any_of(report_.refusals.begin(), report_.refusals.end(),
                        [&](const auto& x) { return x.id == f.id && x.within == f.within; }))
          continue;
        const auto what = fmt::format("{} at batch {}: {}", issue_text(f.issue), batch_name(b), f.what);
        std::string reason;
        if (!f.within.empty()) {
          reason = fmt::format("inside the body of {} '{}' (id {}), which fix does not rewrite: {}", f.within.back().type,
                               f.within.back().name, f.within.back().id, what);
        } else if (f.issue == batch_issue::cannot_tell) {
          reason = "reshape1 cannot tell whether it keeps each sample apart, so nothing can be proven: " + what;
        } else if (f.type == "TensorIterator" || f.type == "Loop") {
          reason = "a layer inside its body, which fix does not rewrite: " + what;
        } else {
          reason = f.type == "Reshape" ? "still " + what : "not a Reshape pattern: " + what;
        }
        report_.refusals.push_back({f.id, f.name, f.type, std::move(reason), f.within});
      }
    }
    report_.fixed = all && report_.refusals.empty();
    if (report_.fixed && !report_.changes.empty()) {  // only a proven model is ever written
      report_.xml = rw_.text();
      report_.appended = rw_.appended();
    }
    return std::move(report_);
  }

 private:
  reshape_request request(const dimension& b) const { return {.batch = b, .layouts = options_.layouts}; }

  /// Every tensor that keeps the batch has, at batch b, its declared shape with the batch dimension scaled;
  /// every tensor that does not carry it keeps its declared shape.
  bool consistent(const batch_report& r, const dimension& b) {
    if (!b.is_static() || r.carriers.empty()) return true;
    const auto at = propagate(current_, [&] {
      std::vector<input_shape> v;
      for (const auto& in : r.inputs) v.push_back({in.layer, in.requested});
      return v;
    }());
    const auto declared = propagate(current_);
    const auto layers = current_.layers();
    for (std::size_t i = 0; i < layers.size(); ++i) {
      for (std::size_t o = 0; o < layers[i].outputs.size(); ++o) {
        const auto& c = r.carriers[i][o];
        const auto& d = declared.outputs[i][o].shape;
        const auto& s = at.outputs[i][o].shape;
        if (c.state == batch_carrier::kind::unknown || c.state == batch_carrier::kind::several || !d.rank_known()) continue;
        std::vector<dimension> want(d.begin(), d.end());
        if (c.state == batch_carrier::kind::one) {
          if (c.axis >= want.size()) continue;
          std::int64_t scaled = 0;
          if (__builtin_mul_overflow(b.lo(), c.factor, &scaled)) continue;
          want[c.axis] = dimension(scaled);
        }
        if (to_string(without_symbols(partial_shape(std::move(want)))) != to_string(without_symbols(s))) {
          report_.refusals.push_back(
              {layers[i].id, std::string(layers[i].name), std::string(layers[i].type),
               fmt::format("at batch {} output {} is {}, not its declared {} with the batch scaled", batch_name(b), o,
                           to_string(without_symbols(s)), to_string(without_symbols(d)))});
          return false;
        }
      }
    }
    return true;
  }

  /// The rewrites that could resolve finding `f`, best first; or the reason there are none.
  /// `p` is the current model's propagation at the declared inputs.
  std::vector<plan> plans_for(const batch_finding& f, const propagation& p, std::string& reason) {
    const auto& l = *current_.find(f.id);
    std::vector<bool> constant;
    const auto pattern = detail::reshape_pattern_at(current_, p, l, &constant);
    const auto e = pattern.elements();
    const bool special_zero = l.flag("special_zero");
    const auto exact = [&](std::size_t i) { return e[i].lo == e[i].hi; };
    const auto is = [&](std::size_t i, std::int64_t v) { return exact(i) && e[i].lo == v; };

    const auto target = [&](std::size_t index, std::int64_t value, std::string why) -> std::optional<plan> {
      const auto origin = detail::origin_of_element(current_, p, l, 1, index);
      if (origin.holder == nullptr || origin.holder->type != "Const") {
        reason = fmt::format("pattern[{}] is computed by {}, not held by a Const", index,
                             origin.holder != nullptr ? origin.holder->where() : std::string("nothing"));
        return std::nullopt;
      }
      const auto type = origin.holder->element("element_type");
      if (!writable_type(type)) {
        reason = fmt::format("pattern[{}] is held by {} of type {}, which fix does not rewrite", index,
                             origin.holder->where(), name(type));
        return std::nullopt;
      }
      if (value < 0 && !is_signed_integer(type)) {
        reason = fmt::format("pattern[{}] is held by {} of unsigned type {}, which cannot hold -1", index,
                             origin.holder->where(), name(type));
        return std::nullopt;
      }
      // Every layer between the Const and the Reshape must feed only the next one: a shared Concat or
      // Convert would carry the change to other layers that this report would not list.
      for (const auto* step : origin.path)
        if (consumers_of(current_, step->id) > 1) {
          reason = fmt::format("pattern[{}] comes through {}, which feeds other layers too", index, step->where());
          return std::nullopt;
        }
      plan x;
      x.old_value = e[index].lo;
      x.reshape = l.id;
      x.holder = origin.holder->id;
      x.index = origin.index;
      x.value = value;
      x.consumer = origin.consumer->id;
      x.consumer_port = origin.consumer_port;
      x.clone = consumers_of(current_, origin.holder->id) > 1;
      x.why = std::move(why);
      x.why += origin.through != nullptr
                   ? fmt::format(" (the value is held by Const '{}' (id {}), through {})", origin.holder->name,
                                 origin.holder->id, origin.through->where())
                   : fmt::format(" (Const '{}' (id {}))", origin.holder->name, origin.holder->id);
      return x;
    };

    std::vector<plan> plans;
    std::vector<std::size_t> zeros, minus_ones;
    bool others_fixed = true;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (is(i, 0)) zeros.push_back(i);
      if (is(i, -1)) minus_ones.push_back(i);
    }
    if (f.pattern_index) {
      const auto i = *f.pattern_index;
      for (std::size_t k = 0; k < e.size(); ++k)
        if (k != i && (!exact(k) || (k < constant.size() && !constant[k]) || e[k].lo < -1)) others_fixed = false;
      const auto declared = e[i].lo;
      if (special_zero) {
        if (auto x = target(i, 0, fmt::format("pattern[{}] wrote the declared batch {}; 0 copies the batch", i, declared)))
          plans.push_back(*x);
      } else if (zeros.empty() && std::all_of(e.begin(), e.end(), [](const pattern_bound& b) { return b.lo > 0 || b.hi < 0; })) {
        if (auto x = target(i, 0, fmt::format("pattern[{}] wrote the declared batch {}; 0 copies the batch, with "
                                              "special_zero set to true (the pattern has no other 0)",
                                              i, declared))) {
          x->set_special_zero = true;
          plans.push_back(*x);
        }
      }
      if (minus_ones.empty() && others_fixed) {
        if (auto x = target(i, -1, fmt::format("pattern[{}] wrote the declared batch {}; -1 infers it (the pattern has "
                                               "no other -1 and its other elements are fixed)",
                                               i, declared)))
          plans.push_back(*x);
      }
      if (plans.empty() && reason.empty()) {
        if (!minus_ones.empty() && !special_zero && !zeros.empty())
          reason = fmt::format("pattern has a -1 and special_zero=false with a literal 0 at index {}", zeros[0]);
        else if (!minus_ones.empty() && !special_zero)
          reason = fmt::format("pattern has a -1 at index {} and special_zero=false with an element that may be 0",
                               minus_ones[0]);
        else
          reason = "pattern has elements that are not fixed values, and special_zero=false";
      }
      return plans;
    }
    // No element writes the batch: the batch is folded into another dimension (`[101,512]` for 1 x 101).
    // A -1 in one place may follow it; each place is tried, and the proof decides.
    if (!minus_ones.empty()) {
      reason = fmt::format("the -1 at pattern[{}] folds the batch together with other dimensions; keeping it apart "
                           "would change the layer's output rank",
                           minus_ones[0]);
      return plans;
    }
    if (f.issue != batch_issue::fails) {
      reason = "the pattern folds the batch together with other dimensions";
      return plans;
    }
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!exact(i) || e[i].lo <= 0) continue;
      if (auto x = target(i, -1, fmt::format("pattern[{}] held {}, which folds the declared batch with other "
                                             "dimensions; -1 infers it at every batch",
                                             i, e[i].lo)))
        plans.push_back(*x);
    }
    if (plans.empty() && reason.empty()) reason = "no element of the pattern can follow the batch";
    return plans;
  }

  /// A finding, as the proof compares them.
  struct finding_key {
    std::vector<std::int64_t> within;
    std::int64_t id = 0;
    batch_issue issue = batch_issue::fails;
    auto operator<=>(const finding_key&) const = default;
  };

  /// `?` and every checked batch.
  std::vector<dimension> probe_batches() const {
    std::vector<dimension> r{dimension()};
    for (const auto& b : options_.check_batches)
      if (b.is_static()) r.push_back(b);
    return r;
  }

  std::set<finding_key> findings_of(const graph& g, const dimension& b) const {
    std::set<finding_key> r;
    for (const auto& f : check_batch(g, request(b)).findings) {
      if (f.issue == batch_issue::scales_with_batch) continue;
      finding_key k{{}, f.id, f.issue};
      for (const auto& w : f.within) k.within.push_back(w.id);
      r.insert(std::move(k));
    }
    return r;
  }

  void attempt(const batch_finding& f) {
    std::string reason;
    const auto now = propagate(current_);
    const auto plans = plans_for(f, now, reason);
    const auto& l = *current_.find(f.id);
    const auto before = pattern_text(current_, now, l);
    std::string failure;
    for (const auto& x : plans) {
      const auto saved = rw_.save();
      try {
        rw_.apply(current_, x);
        auto next = rw_.read_back();
        const auto next_declared = propagate(next);
        if (const auto d = first_difference(declared_, shapes_by_id(next, next_declared))) {
          failure = fmt::format("rewriting pattern[{}] to {} changes the shapes of layer {} at the declared inputs",
                                x.index, x.value, *d);
          rw_.restore(saved);
          continue;
        }
        // At a dynamic batch and at every checked batch, this Reshape has no finding left. (Other layers may
        // still have some until the Reshapes after it are rewritten too: the whole model is proven at the end,
        // and nothing is written unless that proof holds.)
        std::string problem;
        for (const auto& b : probe_batches()) {
          for (const auto& k : findings_of(next, b)) {
            if (!k.within.empty() || k.id != f.id) continue;
            problem = fmt::format("rewriting pattern[{}] to {} still leaves the layer {} at batch {}", x.index, x.value,
                                  k.issue == batch_issue::fails ? std::string("failing") : issue_text(k.issue), batch_name(b));
            break;
          }
          if (!problem.empty()) break;
        }
        if (!problem.empty()) {
          failure = problem;
          rw_.restore(saved);
          continue;
        }
        fix_change c;
        c.id = l.id;
        c.name = l.name;
        c.old_pattern = before;
        c.new_pattern = pattern_text(next, next_declared, *next.find(l.id));
        c.const_id = rw_.cloned_id().value_or(x.holder);
        if (x.clone) c.cloned_from = x.holder;
        c.const_index = x.index;
        c.old_value = x.old_value;
        c.new_value = x.value;
        c.special_zero_set = x.set_special_zero;
        c.why = x.why;
        if (x.clone) c.why += fmt::format("; Const id {} feeds other layers too, so it was cloned", x.holder);
        report_.changes.push_back(std::move(c));
        current_ = std::move(next);
        return;
      } catch (const error& e) {
        if (e.code() == errc::io) throw;  // the .bin cannot be read (it changed): not this rewrite's fault
        failure = e.what();
        rw_.restore(saved);
      }
    }
    report_.refusals.push_back({f.id, f.name, f.type, !failure.empty() ? failure : reason});
  }

  rewriter rw_;
  fix_options options_;
  graph current_;
  std::map<std::int64_t, std::vector<std::string>> declared_;
  fix_report report_;
};

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

}  // namespace

fix_report fix(const fs::path& xml, const fs::path& bin, const fix_options& options) {
  fixer f(xml, bin, options);
  return f.run();
}

void write_fixed(const fix_report& report, const fs::path& in_xml, const fs::path& in_bin, const fs::path& out_xml,
                 const fs::path& out_bin) {
  if (report.xml.empty())
    fail(errc::invalid_argument, {}, "write_fixed: the report changes nothing", "write only a report with changes");
  for (const auto& out : {out_xml, out_bin})
    for (const auto& in : {in_xml, in_bin})
      if (same_file(out, in))
        fail(errc::invalid_argument, {}, fmt::format("{}: is one of the model's own files ({})", out.string(), in.string()),
             "write the fixed model to other files; the input is never modified");
  if (same_file(out_xml, out_bin))
    fail(errc::invalid_argument, {}, fmt::format("{}: the .xml and the .bin are the same file", out_xml.string()),
         "give the .bin another name");
  const io::detail::mapped_file original(in_bin);
  // An .xml left from an earlier run would point into the new .bin until the new .xml replaces it: remove
  // it first, so that an interrupted run leaves no .xml at all rather than one that reads the wrong bytes.
  std::error_code ec;
  if (fs::is_regular_file(out_xml, ec)) fs::remove(out_xml, ec);
  {
    io::detail::atomic_file out(out_bin);
    // The original bytes are copied by the kernel where it can (on a file system that shares blocks, the
    // copy may take no new space); the new constants follow them.
    out.copy_from(original.fd(), 0, original.bytes(), 1, {});
    out.write(report.appended);
    out.commit();
  }
  io::detail::atomic_file out(out_xml);
  out.write(std::as_bytes(std::span(report.xml.data(), report.xml.size())));
  out.commit();
}

}  // namespace reshape1::model

// `reshape1 fix` on an OpenVINO IR: the planner's rounds (fix_planner.hpp) with the IR's part. A Const's
// new bytes are appended to the .bin (mapped, not copied, while the rounds judge), and the rewritten model
// is the original .xml's text with the edited layers written again, read back from those bytes for the proof.
#include "model/analysis/fix_ir.hpp"

#include <algorithm>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "io/files.hpp"
#include "model/analysis/fix_planner.hpp"
#include "model/graph/edit.hpp"
#include "model/ir/read_internal.hpp"
#include "model/ops/rules.hpp"
#include "model/text/fix.hpp"
#include "reshape1/model/propagate.hpp"

namespace reshape1::model {
namespace {

using detail::op_part;
using detail::part_of;
using detail::same_shapes;

namespace fs = std::filesystem;
using reshape1::detail::fail;

bool writable_type(element_type t) {
  switch (t) {
    case element_type::i8: case element_type::i16: case element_type::i32: case element_type::i64:
    case element_type::u8: case element_type::u16: case element_type::u32: case element_type::u64: return true;
    default: return false;
  }
}

/// The IR's part of fix: which Consts take a value (integer ones, signed for -1), the .bin's bytes with the
/// new constants after them, and the .xml's text with the edits, read back for the proof.
class ir_fixer final : public detail::fix_planner {
 public:
  ir_fixer(const fs::path& xml, const fs::path& bin, const fix_options& options)
      : fix_planner(read_ir(xml, bin), options), xml_(xml), bin_(bin) {
    std::error_code ec;
    bin_size_ = fs::file_size(bin, ec);
    if (ec) fail(errc::io, {.file = bin.string()}, fmt::format("{}: cannot open: {}", bin.string(), ec.message()), {});
    xml_size_ = fs::file_size(xml, ec);
    if (!ec) xml_time_ = fs::last_write_time(xml, ec);
    for (const auto& l : original_.layers()) original_ids_.push_back(l.id);
  }

 private:
  std::optional<text::fix_reason> refuses(const detail::fix_site& s, const detail::element_origin& origin,
                                     detail::fix_plan& x) const override {
    const text::element_ref index{x.element, x.input};
    const auto* holder = origin.holder;
    // A body's Parameter that the layer running the body feeds the same value at every iteration: the Const
    // it comes from, around the body, is rewritten (read by this Reshape only, as a layer on the way).
    if (holder != nullptr && !x.within.empty() && part_of(holder->type) == op_part::parameter) {
      if (readers(x.within, *s.g, *holder) > 1) return text::comes_through_shared_layer(index, holder->where());
      if (const auto* outer = held_outside(s, *holder, x)) holder = outer;
    }
    if (holder == nullptr || part_of(holder->type) != op_part::constant)
      return text::computed_not_const(index, holder != nullptr ? holder->where() : std::string());
    const auto type = holder->element("element_type");
    if (!writable_type(type)) return text::type_not_rewritten(index, holder->where(), name(type));
    if (x.value < 0 && !is_signed_integer(type))
      return text::unsigned_cannot_hold_minus_one(index, holder->where(), name(type));
    // Every layer between the Const and the Reshape must feed only the next one: a shared Concat or
    // Convert would carry the change to other layers that this report would not list.
    for (const auto* step : origin.path)
      if (readers(x.within, *s.g, *step) > 1) return text::comes_through_shared_layer(index, step->where());
    return std::nullopt;
  }

  std::string held_by(std::string_view why, const layer& holder, const detail::element_origin& origin) const override {
    return text::held_by_const(why, holder, origin.through);
  }

  /// The .bin, followed by the new bytes: mapped, not copied.
  std::pair<std::shared_ptr<const void>, std::span<const std::byte>> weights(
      const graph&, const std::vector<std::byte>& appended) const override {
    const auto w = mapped(appended);
    return {w, w->bytes()};
  }
  std::shared_ptr<const io::detail::mapped_file> mapped(const std::vector<std::byte>& appended) const {
    auto w = std::make_shared<const io::detail::mapped_file>(bin_, appended);
    if (w->bytes().size() != bin_size_ + appended.size())
      fail(errc::io, {.file = bin_.string()},
           fmt::format("{}: the file changed size while it was being fixed", bin_.string()),
           "run again once nothing writes to it");
    return w;
  }
  std::uint64_t appended_from() const override { return bin_size_; }

  std::string clone_name(const layer& holder, std::int64_t consumer) const override {
    return fmt::format("{}/reshape1_fix_{}", holder.name, consumer);
  }

  /// The .xml's text with `edits` (the original's bytes but for the edited layers and edges), read back
  /// with the .bin and the new bytes. The graph read back keeps that text (parsed in place); the original
  /// goes before the copy is made, but for its ids (it is read again if the rounds resume).
  graph read_back(const std::vector<detail::fix_rewrite>&, const std::vector<detail::graph_edit>& edits,
                  const std::vector<std::byte>& appended) override {
    check_unchanged();
    std::string text;
    {
      const io::detail::mapped_file original_text(xml_);
      text = detail::graph_editor::edited_xml(original_, original_text.bytes(), edits);
    }
    original_ = graph();
    written_ = text;
    appended_ = appended;
    return detail::read_ir_in_memory(std::move(text), xml_.string() + " (rewritten)", mapped(appended),
                                     bin_.string() + " (with the new constants)");
  }

  /// The first layer (by the original's order) whose shapes at the declared inputs are not the original's
  /// (an output that no layer read may go: read_).
  std::optional<fix_refusal> differs(const graph& g, const propagation& at_declared) override {
    for (std::size_t i = 0; i < original_ids_.size(); ++i) {
      const auto* l = g.find(original_ids_[i]);
      const auto after =
          l == nullptr ? std::span<const tensor>() : at_declared.outputs[static_cast<std::size_t>(l - g.layers().data())];
      if (l == nullptr || !same_shapes(declared().outputs[i], after, read_[i]))
        return detail::refused(original_ids_[i], l == nullptr ? std::string() : std::string(l->name),
                               l == nullptr ? std::string() : std::string(l->type),
                               l == nullptr ? text::read_back_lacks_layer() : text::read_back_differs());
    }
    return std::nullopt;
  }

  /// Reads the original again (after the proof freed it), as it was when fix started.
  graph reread() override {
    check_unchanged();
    auto g = read_ir(xml_, bin_);
    if (g.layers().size() != original_ids_.size())
      fail(errc::io, {.file = xml_.string()}, fmt::format("{}: the file changed while it was being fixed", xml_.string()),
           "run again once nothing writes to it");
    return g;
  }

  void accept(fix_report& report) override {
    report.output = ir_output{std::move(written_), std::move(appended_), bin_};
  }

  /// error(io) when the .xml is not as it was when fix read it.
  void check_unchanged() const {
    std::error_code ec;
    const auto size = fs::file_size(xml_, ec);
    const auto time = ec ? fs::file_time_type() : fs::last_write_time(xml_, ec);
    if (ec || size != xml_size_ || time != xml_time_)
      fail(errc::io, {.file = xml_.string()},
           fmt::format("{}: the file changed while it was being fixed", xml_.string()),
           "run again once nothing writes to it");
  }

  fs::path xml_, bin_;
  std::vector<std::int64_t> original_ids_;  ///< the original's layer ids, by index
  std::uintmax_t bin_size_ = 0, xml_size_ = 0;
  fs::file_time_type xml_time_{};
  std::string written_;             ///< the text the proof read back
  std::vector<std::byte> appended_;  ///< and the bytes it appends to the .bin
};

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

}  // namespace

namespace detail {

fix_report fix_ir(const fs::path& xml, const fs::path& bin, const fix_options& options) {
  ir_fixer f(xml, bin, options);
  auto report = f.run();
  std::get<ir_output>(report.output).bin = bin;  // accept() set the rest, when the proof held
  return report;
}

void check_ir_outputs(const fs::path& in_xml, const fs::path& in_bin, const fs::path& out_xml, const fs::path& out_bin,
                      std::string_view model, std::string_view command) {
  if (out_xml.extension() != ".xml")
    fail(errc::invalid_argument, {}, fmt::format("{}: the output must end in .xml", out_xml.string()),
         "its weights are written beside it, in .bin");
  for (const auto& out : {out_xml, out_bin}) {
    for (const auto& in : {in_xml, in_bin})
      if (same_file(out, in))
        fail(errc::invalid_argument, {}, fmt::format("{}: is one of the model's own files ({})", out.string(), in.string()),
             fmt::format("write {} to other files; the input is never modified", model));
    // A FIFO would block the write until something reads it, and a device or directory cannot hold a model.
    if (const auto kind = io::detail::special_file_kind(out))
      fail(errc::invalid_argument, {}, fmt::format("{}: is {}, not a regular file", out.string(), *kind),
           fmt::format("{} writes the model to regular files; give another name", command));
  }
  if (same_file(out_xml, out_bin))
    fail(errc::invalid_argument, {}, fmt::format("{}: the .xml and the .bin are the same file", out_xml.string()),
         "give the .bin another name");
}

void write_ir(const ir_output& fixed, const fs::path& in_xml, const fs::path& out_xml, const fs::path& out_bin,
              std::string_view model, std::string_view command) {
  check_ir_outputs(in_xml, fixed.bin, out_xml, out_bin, model, command);
  const io::detail::mapped_file original(fixed.bin);
  // Both temporary files are made before either output is touched: an .xml that cannot be written (its
  // directory gone, a link into nowhere) stops the write before a .bin is left without its .xml.
  io::detail::atomic_file xml_out(out_xml);
  io::detail::atomic_file bin_out(out_bin);
  // An .xml left from an earlier run would point into the new .bin until the new .xml replaces it: remove
  // it first, so that an interrupted run leaves no .xml at all rather than one that reads the wrong bytes.
  // An .xml given as a symbolic link is written through it, as every output is: its target goes, not the link.
  std::error_code ec;
  if (fs::is_regular_file(out_xml, ec))
    if (const auto target = fs::canonical(out_xml, ec); !ec) fs::remove(target, ec);
  // The original bytes are copied by the kernel where it can (on a file system that shares blocks, the
  // copy may take no new space); the new constants follow them.
  bin_out.copy_from(original.fd(), 0, original.bytes(), 1, {});
  bin_out.write(fixed.appended);
  bin_out.commit();
  xml_out.write(std::as_bytes(std::span(fixed.xml.data(), fixed.xml.size())));
  xml_out.commit();
}

}  // namespace detail

bool fix_report::writes() const noexcept {
  if (const auto* o = std::get_if<ir_output>(&output)) return !o->xml.empty();
  return !std::get<onnx_output>(output).model.empty();
}

std::vector<fs::path> fix_report::files(const fs::path& out) const {
  if (std::holds_alternative<ir_output>(output)) return {out, fs::path(out).replace_extension(".bin")};
  return {out};
}

std::span<const std::string> fix_report::freed() const noexcept {
  if (const auto* o = std::get_if<onnx_output>(&output)) return o->freed;
  return {};
}

}  // namespace reshape1::model

// Fuzz target: the IR reader, the propagation through every layer, the checker, check at new sizes
// (fuzz/at_new_sizes.hpp), the batch check
// (`check --batch 3` and `--batch ?`) and `fix` (checked at batches 2 and ?). The input is a 2-byte
// little-endian XML length, the XML, then the .bin. Whatever the bytes: a report, or one reshape1::error;
// and a model fix calls fixed, written and read again, reshapes at the batches it was checked at.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "at_new_sizes.hpp"
#include "fuzz_input.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace {

/// fix on the model, and what it writes read again: the report agrees with itself, and a model it calls
/// fixed reshapes at the batches it was checked at.
void check_fix(const std::filesystem::path& xml, const std::filesystem::path& bin) {
  using namespace reshape1;
  const std::vector<dimension> batches{dimension(2), dimension()};
  const auto r = onnx::fix(xml, {.check_batches = batches, .bin = bin});
  if (r.checked.size() != batches.size()) fuzz::invariant_broken("fix: a summary line per checked batch");
  if (r.nothing_to_do && !r.changes.empty()) fuzz::invariant_broken("fix: nothing to do, yet changes");
  if (r.fixed && !r.refusals.empty()) fuzz::invariant_broken("fix: fixed with refusals");
  if (!r.fixed || r.changes.empty()) {
    if (r.writes()) fuzz::invariant_broken("fix: a model to write that is not proven");
    return;
  }
  const auto out_xml = fuzz::scratch_dir() / "fixed.xml";
  const auto out_bin = fuzz::scratch_dir() / "fixed.bin";
  onnx::write_fixed(r, xml, out_xml);
  const auto fixed = model::read_ir(out_xml, out_bin);
  for (const auto& b : batches)
    if (!model::check_batch(fixed, {.batch = b}).summary.reshapes())
      fuzz::invariant_broken("fix: the model written does not reshape at a batch it was proven at");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace reshape1;
  if (size < 2) return 0;
  const std::size_t xml_size = std::min<std::size_t>(size - 2, data[0] | (std::size_t{data[1]} << 8));
  const auto xml = fuzz::scratch_dir() / "m.xml";
  const auto bin = fuzz::scratch_dir() / "m.bin";
  std::ofstream(xml, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 2), static_cast<std::streamsize>(xml_size));
  std::ofstream(bin, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data + 2 + xml_size), static_cast<std::streamsize>(size - 2 - xml_size));
  try {
    const auto graph = model::read_ir(xml, bin);
    const auto report = model::check(graph);
    std::size_t counted = 0;
    for (const auto& f : report.reshapes) {
      counted += f.result == model::verdict::ok;
      if (f.result == model::verdict::error && !f.error) fuzz::invariant_broken("an error verdict without its error");
      if (f.code.empty()) fuzz::invariant_broken("a Reshape finding without a code");
    }
    if (counted != report.summary.reshapes.ok) fuzz::invariant_broken("summary counts");
    std::size_t mismatches = 0;
    for (const auto& f : report.layers) {
      mismatches += f.issue == model::layer_issue::shape_mismatch;
      if (f.code.empty()) fuzz::invariant_broken("a layer finding without a code");
    }
    if (mismatches != report.summary.layers.shape_mismatches) fuzz::invariant_broken("layer summary counts");
    if (report.summary.layers.propagated > report.summary.layers.count) fuzz::invariant_broken("more layers propagated than read");
    fuzz::check_at_new_sizes(graph);
    for (const auto& batch : {dimension(3), dimension()}) {
      const auto b = model::check_batch(graph, {.batch = batch});
      std::size_t fails = 0, swallows = 0, scales = 0, breaks = 0, undecided = 0;
      for (const auto& f : b.findings) {
        if (f.within.empty() && (f.layer >= graph.layers().size() || graph.layers()[f.layer].id != f.id))
          fuzz::invariant_broken("finding layer");
        fails += f.issue == model::batch_issue::fails;
        swallows += f.issue == model::batch_issue::swallows_batch;
        scales += f.issue == model::batch_issue::scales_with_batch;
        undecided += f.issue == model::batch_issue::cannot_tell;
        breaks += f.issue != model::batch_issue::scales_with_batch && f.issue != model::batch_issue::cannot_tell;
        if (f.code.empty()) fuzz::invariant_broken("a finding without a code");
        if (f.issue == model::batch_issue::fails && f.at.empty()) fuzz::invariant_broken("fails without the batch it fails at");
        if (f.hint.empty() && f.issue != model::batch_issue::scales_with_batch && f.issue != model::batch_issue::fails)
          fuzz::invariant_broken("finding without a hint");
      }
      if (fails != b.summary.fails || swallows != b.summary.swallows_batch || scales != b.summary.scales_with_batch ||
          undecided != b.summary.cannot_tell)
        fuzz::invariant_broken("batch summary counts");
      const auto expected = breaks != 0      ? model::batch_verdict::no
                            : undecided != 0 ? model::batch_verdict::cannot_tell
                                             : model::batch_verdict::yes;
      if (b.summary.verdict() != expected) fuzz::invariant_broken("batch verdict");
      for (const auto& in : b.inputs)
        if (in.batch_index && (!in.requested.rank_known() || *in.batch_index >= in.requested.size() ||
                               in.requested[*in.batch_index].range() != batch.range()))
          fuzz::invariant_broken("batch not set at the batch index");
    }
    check_fix(xml, bin);
  } catch (const error&) {
  }
  return 0;
}

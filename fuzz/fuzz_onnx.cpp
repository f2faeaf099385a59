// Fuzz target: the ONNX reader (protobuf bytes), the lowering of every node, propagation, the checker,
// check at new sizes (fuzz/at_new_sizes.hpp),
// the batch check at batch 3 and `fix` (checked at batches 2 and ?; a model it calls fixed, read again
// from the bytes it would write, must reshape there). Whatever the bytes: a report, or one
// reshape1::error. External data is looked for in a scratch directory that holds nothing, so a location
// that stays inside it is an io error.
#include <span>
#include <vector>

#include "at_new_sizes.hpp"
#include "fuzz_input.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace {

/// The layer a finding names: `id` in the body of the last layer of `within` (a Loop's or Scan's), or at
/// the top level.
const reshape1::model::layer* named(const reshape1::model::graph& g, const std::vector<reshape1::model::enclosing_layer>& within,
                                    std::int64_t id) {
  const reshape1::model::graph* at = &g;
  for (const auto& outer : within) {
    const auto* l = at->find(outer.id);
    if (l == nullptr || l->body == nullptr) return nullptr;
    at = &l->body->network;
  }
  return at->find(id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace reshape1;
  try {
    const auto graph = onnx::read(std::as_bytes(std::span(data, size)), (fuzz::scratch_dir() / "m.onnx").string());
    for (const auto& l : graph.layers())
      for (const auto& s : l.sources)
        if (!s || s->layer >= graph.layers().size()) fuzz::invariant_broken("an input without a source");
    const auto report = model::check(graph);
    if (report.summary.layers.propagated > report.summary.layers.count) fuzz::invariant_broken("more layers propagated than read");
    for (const auto& f : report.reshapes) {
      const auto* l = named(graph, f.within, f.id);
      if (l == nullptr || l->auxiliary || l->type != "Reshape") fuzz::invariant_broken("a Reshape finding on no node");
    }
    fuzz::check_at_new_sizes(graph);
    const auto b = model::check_batch(graph, {.batch = dimension(3)});
    std::size_t breaks = 0, undecided = 0;
    for (const auto& f : b.findings) {
      undecided += f.issue == model::batch_issue::cannot_tell;
      breaks += f.issue != model::batch_issue::scales_with_batch && f.issue != model::batch_issue::cannot_tell;
    }
    const auto expected = breaks != 0      ? model::batch_verdict::no
                          : undecided != 0 ? model::batch_verdict::cannot_tell
                                           : model::batch_verdict::yes;
    if (b.summary.verdict() != expected) fuzz::invariant_broken("batch verdict");
    const std::vector<dimension> batches{dimension(2), dimension()};
    const auto name = (fuzz::scratch_dir() / "m.onnx").string();
    const auto r = onnx::fix(std::as_bytes(std::span(data, size)), name, {.check_batches = batches});
    if (r.checked.size() != batches.size()) fuzz::invariant_broken("fix: a summary line per checked batch");
    if (r.fixed && !r.refusals.empty()) fuzz::invariant_broken("fix: fixed with refusals");
    if (!r.fixed && r.writes()) fuzz::invariant_broken("fix: a model to write that is not proven");
    if (r.writes()) {
      const auto& bytes = std::get<model::onnx_output>(r.output).model;
      const auto fixed = onnx::read(std::as_bytes(std::span(bytes.data(), bytes.size())), name);
      for (const auto& at : batches)
        if (model::check_batch(fixed, {.batch = at}).summary.verdict() != model::batch_verdict::yes)
          fuzz::invariant_broken("fix: the fixed model does not reshape at a batch it was proven at");
    }
  } catch (const error&) {
  }
  return 0;
}

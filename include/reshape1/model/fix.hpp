// reshape1::model: rewrite the Reshape patterns that keep an IR model from reshaping to another batch,
// and prove the result by propagating the rewritten model. The analysis behind `reshape1 fix`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/graph.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::model {

/// Where fix is, for a progress display (fix_options::progress).
struct fix_progress {
  std::string_view stage;   ///< "checking", "judging rewrites", "proving", "writing"
  std::size_t layers = 0;   ///< the model's layers
  std::size_t round = 0;    ///< the current round of rewrites (from 1), 0 before the first
  std::size_t tried = 0;    ///< rewrites judged so far (one judged in a group counts once)
  std::size_t kept = 0;     ///< rewrites kept so far
  std::string_view batch;   ///< "proving": the batch being checked ("8", "?"), "" otherwise
  /// "judging rewrites": how many of the round's rewrites have been judged, of how many it plans (a
  /// rewrite judged again, alone after its group failed, is not counted twice: at most round_rewrites).
  std::size_t round_tried = 0, round_rewrites = 0;
  /// "proving": the batch's place among the batches checked (from 1), and their number.
  std::size_t batch_index = 0, batches = 0;
};

struct fix_options {
  /// The batches the rewritten model must reshape to (`?` is a dynamic batch). Empty: 1, 2, 8 and ?.
  std::vector<dimension> check_batches{};
  /// Layouts by Parameter name, as for check_batch: the dimension named N is the batch.
  std::vector<std::pair<std::string, std::string>> layouts{};
  /// Called at each stage and each group of rewrites judged (from the calling thread; keep it cheap).
  std::function<void(const fix_progress&)> progress{};
};

/// One rewritten Reshape pattern.
struct fix_change {
  std::int64_t id = 0;  ///< the Reshape
  std::string name;
  std::string old_pattern, new_pattern;  ///< the Reshape's pattern before and after, in the notation
  std::int64_t const_id = 0;             ///< the Const whose bytes now hold the new value
  std::optional<std::int64_t> cloned_from;  ///< the shared Const it was cloned from, if any
  std::size_t const_index = 0;              ///< the element of that Const
  std::int64_t old_value = 0, new_value = 0;
  bool special_zero_set = false;  ///< the Reshape's special_zero went from false to true
  std::string why;
  /// The bodies the Reshape is in, outermost first; empty at the top level. Its Const is in the same body,
  /// but for a pattern the body takes unchanged from around it (then `const_id` is of that graph).
  std::vector<enclosing_layer> within{};
};

/// A layer that keeps the model from reshaping and that fix left alone, with the reason.
struct fix_refusal {
  std::int64_t id = 0;
  std::string name, type;
  std::string reason;
  std::vector<enclosing_layer> within{};  ///< the bodies the layer is in, outermost first
};

struct fix_report {
  /// The model already reshapes at every checked batch: nothing is rewritten.
  bool nothing_to_do = false;
  /// The rewritten model reshapes at every checked batch, and every layer keeps its declared shapes.
  bool fixed = false;
  std::vector<fix_change> changes;
  std::vector<fix_refusal> refusals;
  /// `reshapes to batch B: ...` for each checked batch, on the rewritten model (on the model itself when
  /// nothing changed).
  std::vector<std::string> checked;
  /// The rewritten model: its XML text, and the bytes appended to the original .bin; empty unless `fixed`
  /// and something changed (a model that is not proven at every checked batch is never written, even when
  /// some rewrites were kept: `changes` then lists what they were). write_fixed writes them.
  std::string xml;
  std::vector<std::byte> appended;
};

/// Finds the rewrites in rounds and judges each round's together on the model in memory: they are kept
/// when the rewritten model propagates to exactly the same shapes at the declared inputs and their
/// Reshapes no longer fail or swallow the batch (a group that fails is split). Then the rewritten model is
/// written to text once, read back, and proven at every checked batch (docs/cli.md, `fix`). Writes
/// nothing. `xml` is the model's file (its bytes are kept in the output but for the edited elements; not
/// "-": it is read twice), `bin` its weights (model::weights_of finds them beside the .xml).
[[nodiscard]] fix_report fix(const std::filesystem::path& xml, const std::filesystem::path& bin,
                             const fix_options& options = {});

/// The checks write_fixed makes before it writes anything, for a caller to make before fix's analysis too:
/// `out_xml` ends in .xml; neither output is one of the model's files, nor a directory, a FIFO, a device
/// or anything else that is not a regular file (a regular file is replaced; a missing one is created); the
/// two outputs differ. error(invalid_argument) naming the output and what is wrong with it.
void check_fix_outputs(const std::filesystem::path& in_xml, const std::filesystem::path& in_bin,
                       const std::filesystem::path& out_xml, const std::filesystem::path& out_bin);

/// Writes the rewritten model: the .bin first (the original bytes, then `appended`), then the .xml, each
/// through a temporary file renamed into place, so an interrupted run never leaves an .xml pointing into a
/// missing or short .bin. error(invalid_argument) when check_fix_outputs refuses an output or when the
/// report has nothing to write; error(io) from the system.
void write_fixed(const fix_report& report, const std::filesystem::path& in_xml, const std::filesystem::path& in_bin,
                 const std::filesystem::path& out_xml, const std::filesystem::path& out_bin);

}  // namespace reshape1::model

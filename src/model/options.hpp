// Internal: the one definition of the options of the model commands (`check`, `check --batch`, `fix`) and
// of the keyword arguments of the Python functions that do the same (`check`, `check_batch`, `fix`).
//
// The command line declares its options from this table, the Python layer and the library name an option
// in a message through it, and docs/cli.md and docs/python.md carry tables generated from it (a test fails
// when they differ): so the two front ends accept the same things and refuse the same mistakes in the same
// words, only the option's spelling differing (`--batch x` against `batch=x`).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reshape1/dimension.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::model {
struct reshape_request;
struct fix_options;
}

namespace reshape1::model::detail {

enum class option {
  model,        ///< the model file (MODEL / model)
  bin,          ///< an IR's weights (--bin / model_bin)
  base_dir,     ///< where a model in memory finds its external data (--base-dir / base_dir)
  batch,        ///< check at this batch (--batch / batch)
  shape,        ///< an input's new shape (--shape / shapes)
  layout,       ///< an input's layout (--layout / layouts)
  assume_kept,  ///< an op type vouched for (--assume-kept / assume_kept)
  assume_constant,  ///< a constant vouched for at every size (--assume-constant / assume_constant)
  dot,          ///< the Graphviz drawing (--dot; the command line only)
  check_batch,  ///< the batches fix proves (--check-batch / check_batches)
  check_shape,  ///< with fix --shape, a sample it checks too (--check-shape / check_shapes)
  batch_name,   ///< an ONNX model's dim_param for the batch (--batch-name / batch_name)
  output,       ///< fix's output (-o / output)
  dry_run,      ///< fix writes nothing (--dry-run / output=None)
  json,         ///< one JSON document (--json; the command line only)
  quiet,        ///< less output (-q; the command line only)
  list_ops,     ///< the covered ops (--list-ops; the command line only)
  format,       ///< with --list-ops: ir or onnx (--format; the command line only)
};

/// How an option is written where it is taken: its value's form and its meaning for one command.
struct option_row {
  option key;
  std::string_view command;       ///< "check", "check --batch" or "fix"
  std::string_view cli;           ///< CLI11's names: "--shape", "-o,--output", "MODEL"
  std::string_view cli_value;     ///< the value's placeholder ("NAME=SHAPE"); "" for a flag
  std::string_view python;        ///< the keyword ("shapes"); "" when only the command line has it
  std::string_view python_value;  ///< the value's Python form ("{NAME: SHAPE}")
  std::string_view help;          ///< the meaning, in words both front ends use
  bool repeatable = false;        ///< the command line takes it more than once
};

/// Every row, in the order the docs list them.
[[nodiscard]] std::span<const option_row> option_table() noexcept;
/// The row of `key` for `command`; the first row of `key` when the command has none.
[[nodiscard]] const option_row& option_of(option key, std::string_view command = {}) noexcept;

/// The option as `s` writes it, with an entry's name and value when given: command line `--shape x=[2,3]`,
/// `--batch 8`, `--batch`; API `shapes['x']=[2,3]`, `batch=8`, `batch`. An option only the command line
/// has is written as its flag either way.
[[nodiscard]] std::string spell(option_spelling s, option key, std::string_view name = {}, std::string_view value = {});
/// How to give the option, as a hint says it: command line `--shape NAME=SHAPE`, API `shapes={NAME: SHAPE}`.
[[nodiscard]] std::string usage_of(option_spelling s, option key);

/// error(invalid_argument) for fix options that do not go together: new sizes with batches to check, or
/// samples or vouched constants without new sizes (each named as the caller spells it).
void check_fix_options(const fix_options& o);

/// The batches of `--check-batch 1,2,8,?` (split at the commas) or `check_batches=[1, 2, 8, "?"]`, each read
/// by model::parse_batch; `as_given` is the whole value as the caller wrote it, for the messages.
/// error(syntax) for an item that is not a batch, error(invalid_argument) for 0 or for no item at all.
[[nodiscard]] std::vector<dimension> parse_check_batches(std::span<const std::string> items, std::string_view as_given,
                                                       option_spelling s);

/// The mistakes a reshape request can hold before any model is read: no batch and no shape (layouts and
/// op types alone qualify a target, they are none), or an empty op type to assume kept. error(syntax).
/// Both front ends call it before reading the model, and check_batch again for C++ callers.
void check_request(const reshape_request& request);

/// Where to look for the failures at the declared shapes: `reshape1 check` without `--batch`, or check().
[[nodiscard]] std::string plain_check(option_spelling s);

/// error(invalid_argument) naming the option in the current spelling when fix was given it for a format it
/// does not apply to (`format` "ir" or "onnx"): weights or layouts for ONNX, a batch name for an IR. Both
/// front ends ask in the order bin, batch_name, layout, so that they refuse the same first mistake.
void refuse_for_format(option_spelling s, option key, std::string_view format);
/// error(invalid_argument): a base directory given for a model read from a file, whose external data
/// lies beside it.
[[noreturn]] void refuse_base_dir_for_file(option_spelling s);

}  // namespace reshape1::model::detail

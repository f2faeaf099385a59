#include "options.hpp"

#include <array>

#include <fmt/format.h>

#include "../io/files.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/fix.hpp"

namespace reshape1::model::detail {
namespace {

// One row per option and command; an option whose meaning is the same everywhere has one row for each
// command it belongs to so that each command's table in the docs is complete.
constexpr std::array rows{
    option_row{option::model, "check", "MODEL", "", "model_xml", "MODEL",
               "the model: an IR .xml or an .onnx file, told apart by content (`-` reads it from standard input: "
               "an IR's weights then need --bin, and an ONNX model's external data needs --base-dir); Python takes "
               "an ONNX model in memory too (bytes, onnx.ModelProto), whose external data needs base_dir likewise"},
    option_row{option::bin, "check", "--bin", "FILE", "model_bin", "FILE",
               "an IR's weights (default: MODEL with the extension .bin); not for ONNX"},
    option_row{option::base_dir, "check", "--base-dir", "DIR", "base_dir", "DIR",
               "an ONNX model read from memory (`-`; in Python bytes or an onnx.ModelProto): the directory its "
               "external data files are looked for in (without it they are refused)"},
    option_row{option::quiet, "check", "-q,--quiet", "", "", "",
               "list only the layers with a problem or a warning (with --batch: leave out scales_with_batch)"},
    option_row{option::json, "check", "--json", "", "", "",
               "print one JSON document on standard output, an error included"},
    option_row{option::list_ops, "check", "--list-ops", "", "", "",
               "print every (op type, version) propagation covers, and exit"},
    option_row{option::format, "check", "--format", "ir|onnx", "", "",
               "with --list-ops: OpenVINO's op types (ir, the default) or ONNX's (onnx)"},

    option_row{option::model, "check --batch", "MODEL", "", "model_xml", "MODEL",
               "the model, as for check"},
    option_row{option::bin, "check --batch", "--bin", "FILE", "model_bin", "FILE", "an IR's weights, as for check"},
    option_row{option::base_dir, "check --batch", "--base-dir", "DIR", "base_dir", "DIR",
               "where an ONNX model read from memory finds its external data, as for check"},
    option_row{option::batch, "check --batch", "--batch", "N", "batch", "N",
               "the new batch: a number, `?` or -1 for a dynamic batch, or an interval such as 1..8"},
    option_row{option::shape, "check --batch", "--shape", "NAME=SHAPE", "shapes", "{NAME: SHAPE}",
               "an input's new shape; NAME may be #ID, and is left out (`\"\"`) for a one-input model", true},
    option_row{option::layout, "check --batch", "--layout", "NAME=LAYOUT", "layouts", "{NAME: LAYOUT}",
               "an input's layout (NCHW, [N,C,H,W], TN, ...C): the dimension named N is its batch", true},
    option_row{option::assume_kept, "check --batch", "--assume-kept", "TYPE", "assume_kept", "[TYPE]",
               "vouch that every layer of this op type keeps each sample apart, as an elementwise op does", true},
    option_row{option::assume_constant, "check --batch", "--assume-constant", "NAME", "assume_constant", "[NAME]",
               "vouch that this constant (an ONNX initializer's or Constant's output name, an IR Const's name, or "
               "#ID), or this pooling's or convolution's window (its layer's name or #ID), is meant to stay as it is "
               "at every size: a size that matches it is not a finding", true},
    option_row{option::dot, "check --batch", "--dot", "FILE", "", "",
               "write Graphviz DOT of the path from the inputs to each finding"},
    option_row{option::quiet, "check --batch", "-q,--quiet", "", "", "",
               "leave out the inputs, the outputs and the scales_with_batch findings"},
    option_row{option::json, "check --batch", "--json", "", "", "",
               "print one JSON document on standard output, an error included"},

    option_row{option::model, "fix", "MODEL", "", "model_xml", "MODEL",
               "the model: an IR .xml or an .onnx file, told apart by content; Python takes an ONNX model in "
               "memory too (bytes, onnx.ModelProto)"},
    option_row{option::output, "fix", "-o,--output", "FILE", "output", "FILE",
               "the fixed model: an .xml (its .bin is written beside it), or an .onnx for an ONNX model"},
    option_row{option::dry_run, "fix", "--dry-run", "", "output", "None",
               "write nothing, only report (the command line needs --dry-run or -o)"},
    option_row{option::bin, "fix", "--bin", "FILE", "model_bin", "FILE", "an IR's weights, as for check"},
    option_row{option::base_dir, "fix", "", "", "base_dir", "DIR",
               "where an ONNX model given in memory finds its external data, as for check (the command line's "
               "fix reads files only)"},
    option_row{option::check_batch, "fix", "--check-batch", "LIST", "check_batches", "[N, ...]",
               "the batches the fixed model must reshape to (default 1,2,8,?)"},
    option_row{option::shape, "fix", "--shape", "NAME=SHAPE", "shapes", "{NAME: SHAPE}",
               "an input's new sizes (`?`, intervals, named sizes `?@H`): fix rewrites the Reshape patterns an "
               "export wrote for the declared sizes, instead of the batch's", true},
    option_row{option::check_shape, "fix", "--check-shape", "NAME=SHAPE", "check_shapes", "[{NAME: SHAPE}]",
               "with --shape: a sample the fixed model is checked at too (default: two, the new sizes at multiples "
               "of their declared values, no two equal)", true},
    option_row{option::assume_constant, "fix", "--assume-constant", "NAME", "assume_constant", "[NAME]",
               "with --shape: vouch that this constant, or this layer's window, is meant to stay as it is at every "
               "size, as for check --batch", true},
    option_row{option::layout, "fix", "--layout", "NAME=LAYOUT", "layouts", "{NAME: LAYOUT}",
               "an input's layout, as for check --batch", true},
    option_row{option::batch_name, "fix", "--batch-name", "NAME", "batch_name", "NAME",
               "ONNX: the dim_param the batch becomes in the inputs, outputs and value_info (default N)"},
    option_row{option::quiet, "fix", "-q,--quiet", "", "", "",
               "no progress line on standard error (shown only on a terminal, after a second)"},
    option_row{option::json, "fix", "--json", "", "", "",
               "print one JSON document on standard output, an error included"},

    option_row{option::model, "shapes", "MODEL", "", "model_xml", "MODEL",
               "the model: an IR .xml or an .onnx file, told apart by content; Python takes an ONNX model in "
               "memory too (bytes, onnx.ModelProto)"},
    option_row{option::output, "shapes", "-o,--output", "FILE", "output", "FILE",
               "write a copy of the model that declares every tensor's shape: an .onnx (its outputs and value_info), "
               "or an .xml (its ports; the .bin is written beside it)"},
    option_row{option::bin, "shapes", "--bin", "FILE", "model_bin", "FILE", "an IR's weights, as for check"},
    option_row{option::base_dir, "shapes", "", "", "base_dir", "DIR",
               "where an ONNX model given in memory finds its external data, as for check (the command line's "
               "shapes reads files only)"},
    option_row{option::shape, "shapes", "--shape", "NAME=SHAPE", "shapes", "{NAME: SHAPE}",
               "an input's shape in place of the declared one (`?`, intervals, named sizes `?@H`); NAME may be "
               "#ID, and is left out (`\"\"`) for a one-input model", true},
    option_row{option::quiet, "shapes", "-q,--quiet", "", "", "",
               "print only the layers propagation cannot pass and the summary"},
    option_row{option::json, "shapes", "--json", "", "", "",
               "print one JSON document on standard output, an error included"},
};

/// The long name of a command-line option ("-o,--output" -> "--output").
std::string_view long_name(std::string_view cli) {
  const auto comma = cli.rfind(',');
  return comma == std::string_view::npos ? cli : cli.substr(comma + 1);
}

}  // namespace

std::span<const option_row> option_table() noexcept { return rows; }

const option_row& option_of(option key, std::string_view command) noexcept {
  const option_row* first = nullptr;
  for (const auto& r : rows) {
    if (r.key != key) continue;
    if (r.command == command) return r;
    if (first == nullptr) first = &r;
  }
  return *first;  // every option has a row (options_test checks it)
}

std::string spell(option_spelling s, option key, std::string_view name_given, std::string_view value_given) {
  // The caller's texts, control characters escaped: a NUL would end the message where it is read as a C
  // string (Python's exceptions).
  const auto name = io::detail::escaped(name_given);
  const auto value = io::detail::escaped(value_given);
  const auto& r = option_of(key);
  const bool keyed = r.python_value.starts_with('{');
  if (s == option_spelling::command_line || r.python.empty()) {
    const auto flag = long_name(r.cli);
    if (keyed && !name.empty()) return value.empty() ? fmt::format("{} {}", flag, name) : fmt::format("{} {}={}", flag, name, value);
    return value.empty() ? std::string(flag) : fmt::format("{} {}", flag, value);
  }
  if (keyed) {
    if (name.empty() && value.empty()) return std::string(r.python);
    return value.empty() ? fmt::format("{}['{}']", r.python, name) : fmt::format("{}['{}']={}", r.python, name, value);
  }
  if (value.empty()) return std::string(r.python);
  return r.python_value.starts_with('[') ? fmt::format("{}=[{}]", r.python, value)
                                         : fmt::format("{}={}", r.python, value);
}

std::string usage_of(option_spelling s, option key) {
  const auto& r = option_of(key);
  if (s == option_spelling::command_line || r.python.empty())
    return r.cli_value.empty() ? std::string(long_name(r.cli)) : fmt::format("{} {}", long_name(r.cli), r.cli_value);
  return fmt::format("{}={}", r.python, r.python_value);
}

std::vector<dimension> parse_check_batches(std::span<const std::string> items, std::string_view as_given,
                                          option_spelling s) {
  const auto where = spell(s, option::check_batch, {}, as_given);
  constexpr std::string_view hint = "give numbers from 1, or ?, e.g. 1,2,8,?";
  if (items.empty()) throw error(errc::invalid_argument, {}, fmt::format("{}: no batch given", where), std::string(hint));
  std::vector<dimension> r;
  for (const auto& item : items) {
    const auto b = parse_batch(item, fmt::format("{}: '{}'", where, item));
    if (b.is_static() && b.lo() == 0)
      throw error(errc::invalid_argument, {}, fmt::format("{}: '0' is not a batch", where), std::string(hint));
    r.push_back(b);
  }
  return r;
}

void check_request(const reshape_request& request) {
  const auto s = request.spelling;
  if (!request.batch && request.shapes.empty())
    throw error(errc::syntax, {}, "no batch and no shape to check the model at",
                fmt::format("give {} (or {}); {}, {} and {} only qualify them", usage_of(s, option::batch),
                            usage_of(s, option::shape), spell(s, option::layout), spell(s, option::assume_kept),
                            spell(s, option::assume_constant)));
  for (const auto& type : request.assume_kept)
    if (type.empty())
      throw error(errc::syntax, {}, fmt::format("{}: an empty op type", spell(s, option::assume_kept)),
                  fmt::format("write {}, e.g. MyOp", usage_of(s, option::assume_kept)));
  for (const auto& name : request.assume_constant)
    if (name.empty())
      throw error(errc::syntax, {}, fmt::format("{}: an empty name", spell(s, option::assume_constant)),
                  fmt::format("write {}, e.g. a constant's name or #12", usage_of(s, option::assume_constant)));
}

std::string plain_check(option_spelling s) {
  return s == option_spelling::command_line ? "see reshape1 check without --batch" : "see check()";
}

void refuse_for_format(option_spelling s, option key, std::string_view format) {
  const bool onnx = format == "onnx";
  if (key == option::bin && onnx)
    throw error(errc::invalid_argument, {},
                fmt::format("{}: an ONNX model keeps its weights inside (or in its external data files), so there is "
                            "no weights file to give",
                            spell(s, key)),
                fmt::format("leave out {}", spell(s, key)));
  if (key == option::base_dir && !onnx)
    throw error(errc::invalid_argument, {},
                fmt::format("{}: only for ONNX models: an IR has no external data", spell(s, key)),
                fmt::format("give an IR's weights with {}", spell(s, option::bin)));
  if (key == option::batch_name && !onnx)
    throw error(errc::invalid_argument, {}, fmt::format("{}: only for ONNX models", spell(s, key)),
                "an IR's inputs take the batch as a number");
}

void refuse_base_dir_for_file(option_spelling s) {
  throw error(errc::invalid_argument, {},
              fmt::format("{}: only for an ONNX model read from memory, not from a file: a file's external data is "
                          "looked for in the file's own directory",
                          spell(s, option::base_dir)),
              fmt::format("leave out {}", spell(s, option::base_dir)));
}

void check_fix_options(const fix_options& o) {
  const auto s = o.spelling;
  if (!o.shapes.empty() && !o.check_batches.empty())
    throw error(errc::invalid_argument, {},
                fmt::format("{}: fix checks shapes when it is given them, not batches", spell(s, option::check_batch)),
                fmt::format("give the shapes to check with {}", spell(s, option::check_shape)));
  if (o.shapes.empty() && !o.check_shapes.empty())
    throw error(errc::invalid_argument, {}, fmt::format("{}: there are no new sizes to check", spell(s, option::check_shape)),
                fmt::format("give them with {}, or leave {} out to fix for the batch", usage_of(s, option::shape),
                            spell(s, option::check_shape)));
  if (!o.shapes.empty() && o.batch_name)
    throw error(errc::invalid_argument, {},
                fmt::format("{}: fix names the new sizes as they are asked (?@H), not the batch's", spell(s, option::batch_name)),
                fmt::format("name a size in {} (`?@NAME`), or leave {} out", usage_of(s, option::shape), spell(s, option::batch_name)));
  if (o.shapes.empty() && !o.assume_constant.empty())
    throw error(errc::invalid_argument, {},
                fmt::format("{}: fix vouches for constants only at new sizes", spell(s, option::assume_constant)),
                fmt::format("give the sizes with {}", usage_of(s, option::shape)));
}

}  // namespace reshape1::model::detail

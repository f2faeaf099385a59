// `reshape1 fix MODEL -o FIXED [--check-batch 1,2,8,?] [--layout NAME=LAYOUT] [--dry-run] [--json]`:
// rewrites the Reshape patterns that keep a model from reshaping to another batch, proves the result, and
// writes the fixed model (an IR's .bin then its .xml; an ONNX file). One driver for both formats: what
// differs by format is the library's.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check_batch.hpp"
#include "commands.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "model/options.hpp"
#include "model_options.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::cli {
namespace {

struct fix_args {
  std::string xml, bin, output;
  std::string batches = "1,2,8,?";
  std::string batch_name;
  bool batch_name_given = false;  // an empty --batch-name is refused, not taken as "not given"
  std::vector<std::string> layouts;
  std::vector<std::string> shapes, check_shapes, assume_constant;
  bool batches_given = false;
  bool dry_run = false;
  bool json = false;
  bool quiet = false;
};

[[noreturn]] void usage(const std::string& what, const std::string& hint) {
  throw error(errc::invalid_argument, {}, what, hint);
}

std::vector<dimension> parse_batches(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return model::detail::parse_check_batches(items, text, flags);
}

/// The progress line for a stage of fix.
std::string progress_text(const model::fix_progress& p) {
  auto text = fmt::format("fix: {}", p.stage);
  if (!p.batch.empty()) text += fmt::format(" at batch {} ({} of {})", p.batch, p.batch_index, p.batches);
  if (!p.shapes.empty()) text += fmt::format(" at {} ({} of {})", p.shapes, p.batch_index, p.batches);
  if (p.round > 0)
    text += fmt::format(", round {}: {} of {} rewrites judged, {} kept in all", p.round, p.round_tried,
                        p.round_rewrites, p.kept);
  return fmt::format("{} ({} layers)", text, p.layers);
}

/// What the changes rewrote, by kind: "2 Reshape patterns", "1 Reshape pattern and 1 Resize's sizes", "1
/// Slice's bounds".
std::string rewritten(const std::vector<model::fix_change>& changes) {
  std::map<std::string, std::size_t> by_type;
  for (const auto& c : changes) ++by_type[c.type];
  std::vector<std::string> parts;
  if (const auto it = by_type.find("Reshape"); it != by_type.end())
    parts.push_back(fmt::format("{} Reshape pattern{}", it->second, it->second == 1 ? "" : "s"));
  for (const auto& [type, n] : by_type)
    if (type != "Reshape")
      parts.push_back(fmt::format("{} {}'s {}", n, type,
                                  type == "Resize" || type == "Interpolate" ? "sizes"
                                  : type == "Gather"                        ? "positions"
                                  : type == "TopK"                          ? "k"
                                  : type == "Tile"                          ? "repeats"
                                  : type == "Expand" || type == "Broadcast" ? "shape"
                                  : type == "Range"                         ? "limit"
                                  : type == "Div" || type == "Divide"       ? "divisor"
                                  : type == "Mul" || type == "Multiply"     ? "factor"
                                  : type.ends_with("Pool")                  ? "window"
                                  : type == "Pad"                           ? "amounts"
                                  : type == "Const"                         ? "values"
                                                                            : "bounds"));
  if (parts.empty()) return "nothing";  // (declared dims freed only)
  return fmt::format("{}", fmt::join(parts, " and "));
}

/// The table of rewrites, the table of refusals and the freed dims, as the report's text.
void print_report(const model::fix_report& report, const model::fix_options& options) {
  std::vector<std::vector<std::string>> rows, notes;
  for (const auto& c : report.changes) {
    rows.push_back({id_path(c.within, c.id), c.name, c.old_pattern, c.new_pattern});
    notes.push_back({c.why});
  }
  print_table({"id", "name", "old pattern", "new pattern"}, rows, notes);
  if (!report.refusals.empty()) {
    if (!rows.empty()) std::cout << '\n';
    rows.clear();
    notes.clear();
    for (const auto& x : report.refusals) {
      rows.push_back({id_path(x.within, x.id), x.name, x.type, "not fixed"});
      notes.push_back({x.reason});
    }
    print_table({"id", "name", "op", "result"}, rows, notes);
  }
  if (const auto freed = report.freed(); !freed.empty()) {
    // Inputs and outputs by name; the value_info entries (one per tensor a model declares) by count.
    std::vector<std::string> named;
    std::size_t inner = 0;
    for (const auto& f : freed) f.starts_with("value_info") ? void(++inner) : named.push_back(f);
    if (inner != 0) named.push_back(fmt::format("{} value_info dimension{}", inner, inner == 1 ? "" : "s"));
    const auto what = options.shapes.empty() ? fmt::format("batch freed ({})", options.batch_name.value_or("N"))
                                             : std::string("sizes freed");
    std::cout << printable(fmt::format("{}: {}", what, fmt::join(named, ", "))) << '\n';
  }
}

int fix(const fix_args& a) {
  namespace fs = std::filesystem;
  model::fix_options options;
  options.spelling = flags;
  options.bin = a.bin;
  if (a.batch_name_given) options.batch_name = a.batch_name;
  onnx::check_fix_input(a.xml, options);
  if (!a.dry_run && a.output.empty())
    usage("no output file", fmt::format("give -o FIXED{}, or --dry-run", model::extension_of(onnx::format_of(a.xml))));
  // The default batches only for the batch's fix: the library refuses batches given with new sizes.
  using model::detail::option;
  options.shapes = parse_shapes(a.shapes, option::shape);
  if (options.shapes.empty() || a.batches_given) options.check_batches = parse_batches(a.batches);
  for (const auto& x : parse_shapes(a.check_shapes, option::check_shape)) options.check_shapes.push_back({x});
  options.assume_constant = a.assume_constant;
  options.layouts = parse_layouts(a.layouts);  // as `check --layout` reads them
  // Refused before the analysis, as Python refuses them: by the rule write_fixed applies.
  if (!a.dry_run) onnx::check_fix_output(a.xml, a.bin, a.output, flags);
  // Cleared (the object goes) before the report is printed.
  auto progress = std::make_optional<progress_line>(!a.quiet && !a.json);
  options.progress = [&](const model::fix_progress& p) { progress->set(progress_text(p)); };
  const auto report = onnx::fix(a.xml, options);
  const bool write = !a.dry_run && report.writes();
  std::vector<std::string> files;  // what is written, as the progress line and the report name it
  if (write) {
    for (const auto& f : report.files(a.output)) files.push_back(f.string());
    progress->set(fmt::format("fix: writing {}", fmt::join(files, " and ")));
    onnx::write_fixed(report, a.xml, a.output);
  }
  progress.reset();
  if (a.json) {
    std::cout << json_text(render::fix_json(report, a.xml, write ? render::json(a.output) : render::json()), 2) << '\n';
  } else if (report.nothing_to_do) {
    std::cout << (options.shapes.empty() ? "nothing to do: the model already reshapes at every checked batch\n"
                                         : "nothing to do: the model already takes the new sizes at every checked shape\n");
    for (const auto& line : report.checked) std::cout << printable(line) << '\n';
  } else {
    print_report(report, options);
    std::cout << (report.changes.empty() ? "checked:\n" : "after the fix:\n");
    for (const auto& line : report.checked) std::cout << "  " << printable(line) << '\n';
    if (write) {
      std::cout << printable(fmt::format("wrote {} ({} rewritten)", fmt::join(files, " and "), rewritten(report.changes)))
                << '\n';
    } else if (a.dry_run) {
      std::cout << "dry run: nothing written\n";
    } else if (!report.fixed) {
      std::cout << "not fixed: nothing written\n";
    }
  }
  return report.fixed ? exit_ok : exit_invalid;
}

}  // namespace

void add_fix(CLI::App& app, session& s) {
  auto args = std::make_shared<fix_args>();
  auto* cmd = app.add_subcommand("fix", "Rewrite the constants that keep a model from reshaping to another batch or size");
  cmd->footer(
      "Each rewrite (a pattern element that writes the declared batch becomes 0 or -1; a shared Const is\n"
      "cloned first) is kept only when the rewritten model propagates to exactly the same shapes at the\n"
      "declared inputs; then the model must reshape at every --check-batch. FIXED.bin (the old bytes, then the\n"
      "new constants) is written first, then FIXED.xml; the input files are never modified.\n"
      "An ONNX model is rewritten in its initializers and Constant nodes (a shared one cloned), its inputs'\n"
      "batch and every declared dimension that carries it become the dim_param N (--batch-name), and the\n"
      "file, read back from the bytes to be written, must reshape at every --check-batch.\n"
      "With --shape (new sizes: `?`, intervals, `?@H`), the patterns an export wrote for the declared sizes are\n"
      "rewritten instead (0 copies a dimension that changes, -1 infers one): the model must then have no\n"
      "finding at those shapes but that a `?` or an interval is not proven for every value, and take every\n"
      "--check-shape (default: two, the new sizes at multiples of their declared values); an ONNX model\n"
      "declares each new size as a dim_param (H, or INPUT_AXIS) and frees the dims that follow it.\n"
      "Exit codes: 0 the fixed model (or the model itself: nothing to do) reshapes at every checked batch\n"
      "(with --shape: takes every checked shape);\n"
      "1 something could not be fixed; 2 usage error or unreadable model.");
  using model::detail::option;
  add_table_option(*cmd, option::model, "fix", args->xml)->required();
  add_table_option(*cmd, option::output, "fix", args->output);
  add_table_option(*cmd, option::dry_run, "fix", args->dry_run);
  add_table_option(*cmd, option::bin, "fix", args->bin);
  auto* check_batch = add_table_option(*cmd, option::check_batch, "fix", args->batches);
  add_table_option(*cmd, option::shape, "fix", args->shapes);
  add_table_option(*cmd, option::check_shape, "fix", args->check_shapes);
  add_table_option(*cmd, option::assume_constant, "fix", args->assume_constant);
  add_table_option(*cmd, option::layout, "fix", args->layouts);
  auto* batch_name = add_table_option(*cmd, option::batch_name, "fix", args->batch_name);
  add_table_option(*cmd, option::json, "fix", args->json);
  add_table_option(*cmd, option::quiet, "fix", args->quiet);
  cmd->callback([args, &s, batch_name, check_batch] {
    s.command = "fix";
    args->batch_name_given = batch_name->count() > 0;
    args->batches_given = check_batch->count() > 0;
    s.json = args->json;
    s.exit_code = fix(*args);
  });
}

}  // namespace reshape1::cli

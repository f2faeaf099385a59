// `reshape1 check MODEL.xml [--bin MODEL.bin] [--json] [--quiet]`: the Reshape layers of an IR model, and
// every layer's propagated output shapes against the declared ones. `reshape1 check --list-ops [--json]`:
// the (type, opset) pairs propagation has a rule for.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check_batch.hpp"
#include "reshape1/onnx.hpp"
#include "commands.hpp"
#include "model_options.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "reshape1/error.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/graph.hpp"
#include "model/ops/rules.hpp"

namespace reshape1::cli {
namespace {

struct check_args {
  std::string xml;
  std::string bin;
  std::string base_dir;
  bool json = false;
  bool quiet = false;
  bool list_ops = false;
  std::string format = "ir";
  batch_options batch;
};

/// The input ports whose values decide the row's output shapes (the registry's declaration), or "all" for
/// an op that hands every input to a body.
nlohmann::ordered_json values_json(std::string_view type, int opset) {
  const auto* row = model::detail::find_entry(type, opset);
  if (row == nullptr) return nullptr;
  if (row->values == model::detail::reads_all_values) return "all";
  auto ports = nlohmann::ordered_json::array();
  for (std::size_t port = 0; port < 32; ++port)
    if (model::detail::reads_value(row->values, port)) ports.push_back(port);
  return ports;
}

/// `Type-N` per line (with the specification's name after it where that differs), or a JSON array of
/// {"type", "opset", "spec", "batching", "values"}; with format "onnx", every version of ONNX's op list,
/// `Type-N` (`com.microsoft.Type-N` in that domain) and what reshape1 does with it (a JSON array of
/// {"domain", "op_type", "since_version", "onnx_runtime", "translated_from", "not_translated"}).
int list_ops(bool json, const std::string& format) {
  if (format == "onnx") {
    const auto ops = onnx::op_versions();
    if (json) {
      auto all = nlohmann::ordered_json::array();
      for (const auto& v : ops)
        all.push_back({{"domain", std::string(v.domain)},
                       {"op_type", std::string(v.op_type)},
                       {"since_version", v.since_version},
                       {"onnx_runtime", v.onnx_runtime},
                       {"translated_from", v.translated_from ? nlohmann::ordered_json(*v.translated_from) : nlohmann::ordered_json()},
                       {"not_translated", v.translated_from ? nlohmann::ordered_json() : nlohmann::ordered_json(std::string(v.not_translated))}});
      std::cout << json_text(all, 2) << '\n';
    } else {
      for (const auto& v : ops) {
        std::cout << (v.domain == "ai.onnx" ? "" : std::string(v.domain) + ".") << v.op_type << '-' << v.since_version;
        if (v.translated_from) std::cout << "  translated" << (*v.translated_from != v.since_version ? fmt::format(" (as {}-{})", v.op_type, *v.translated_from) : "");
        else if (!v.not_translated.empty()) std::cout << "  cannot tell: " << v.not_translated;
        else std::cout << "  not translated";
        if (!v.onnx_runtime) std::cout << "; ONNX Runtime does not run it";
        std::cout << '\n';
      }
    }
    return exit_ok;
  }
  const auto ops = model::covered_ops();
  if (json) {
    auto all = nlohmann::ordered_json::array();
    for (const auto& [type, opset] : ops) {
      const auto spec = model::spec_name(type, opset);
      all.push_back({{"type", std::string(type)},
                     {"opset", opset},
                     {"spec", spec.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(spec)},
                     {"batching", std::string(model::batching_rule(type, opset))},
                     {"values", values_json(type, opset)}});
    }
    std::cout << json_text(all, 2) << '\n';
  } else {
    for (const auto& [type, opset] : ops) {
      const auto own = fmt::format("{}-{}", type, opset);
      const auto spec = model::spec_name(type, opset);
      std::cout << own;
      if (spec.empty()) std::cout << "  (reshape1's own: not an OpenVINO op)";
      else if (spec != own) std::cout << "  (" << spec << " in OpenVINO's specification)";
      std::cout << '\n';
    }
  }
  return exit_ok;
}

/// A shape for the table: one of a rank above 16 whose dimensions are all unknown as its rank alone (a
/// pattern of 5,000 unread values printed 20,000 characters).
std::string cell(const partial_shape& s) {
  if (s.rank_known() && s.size() > 16 && std::all_of(s.begin(), s.end(), [](const dimension& d) { return d.range().is_unknown(); }))
    return fmt::format("[? x{}]", s.size());
  return to_string(s);
}

/// The pattern column: its values, or what is known of them.
std::string pattern_cell(const model::reshape_finding& f) {
  const auto& s = f.pattern.tensor_shape();
  const auto elements = f.pattern.elements();
  if (f.pattern.kind() != pattern_kind::values && s.rank_known() && s.size() == 1 && s[0].is_static() && s[0].lo() > 16 &&
      std::none_of(elements.begin(), elements.end(), [](const pattern_bound& e) { return e.lo == e.hi; }))
    return fmt::format("[{} values, not read]", s[0].lo());
  return f.pattern_known ? to_string(f.pattern) : to_string(f.pattern) + " (values unknown)";
}

void print_report(const model::check_report& r, bool quiet) {
  std::vector<const model::reshape_finding*> shown;
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : r.reshapes) {
    if (quiet && f.result == model::verdict::ok && f.warnings.empty()) continue;
    shown.push_back(&f);
    rows.push_back({id_path(f.within, f.id), f.name, to_string(f.input),
                    pattern_cell(f),
                    f.special_zero ? "true" : "false", cell(f.declared),
                    f.result == model::verdict::error ? "-" : f.inferred ? cell(*f.inferred) : std::string(),
                    std::string(model::name(f.result))});
  }
  std::vector<std::vector<std::string>> notes;
  for (const auto* f : shown) {
    auto& n = notes.emplace_back();
    if (f->result == model::verdict::error) n.push_back(fmt::format("error {}: {}", name(f->error->code), f->error->message));
    if (f->result == model::verdict::shape_mismatch || f->result == model::verdict::refinable) n.push_back(f->hint);
    for (const auto& w : f->warnings) n.push_back("warning: " + w);
  }
  print_table({"id", "name", "input", "pattern", "special_zero", "declared", "inferred", "verdict"}, std::move(rows),
              notes);
  const auto& s = r.summary.reshapes;
  std::cout << fmt::format("{} Reshape layers: {} ok, {} error, {} shape_mismatch, {} refinable; {} keep the model "
                           "from being reshaped\n",
                           s.count, s.ok, s.errors, s.shape_mismatches, s.refinable, s.blocking);
  // The whole-model self-check: only layers with something to say.
  std::vector<std::vector<std::string>> layer_rows;
  std::vector<const model::layer_finding*> layer_shown;
  for (const auto& f : r.layers) {
    if (quiet && f.issue == model::layer_issue::refinable) continue;
    layer_shown.push_back(&f);
    layer_rows.push_back({id_path(f.within, f.id), f.name, fmt::format("{}-{}", f.type, f.opset),
                          f.port >= 0 ? std::to_string(f.port) : "-", f.port >= 0 ? to_string(f.declared) : "-",
                          f.port >= 0 ? to_string(f.propagated) : "-", std::string(model::name(f.issue))});
  }
  std::vector<std::vector<std::string>> layer_notes;
  for (const auto* f : layer_shown)
    layer_notes.push_back(f->message.empty() ? std::vector<std::string>{} : std::vector<std::string>{f->message});
  print_table({"id", "name", "op", "port", "declared", "propagated", "issue"}, std::move(layer_rows), layer_notes);
  const auto& l = r.summary.layers;
  std::cout << fmt::format("{} layers: {} propagated, {} shape_mismatch, {} refinable, {} not_covered, {} rule_error\n",
                           l.count, l.propagated, l.shape_mismatches, l.refinable, l.not_covered, l.rule_errors);
}

int check(const check_args& a) {
  // Cleared (the object goes) before the report is printed.
  auto progress = std::make_optional<progress_line>(!a.quiet && !a.json);
  progress->set(fmt::format("check: reading {}", a.xml));
  // An error reading the model goes to main, which exits 2: the model cannot be read.
  if (a.batch.dot_given) {
    // The model's own files: the .xml (or .onnx) and the .bin given or beside it (which need not exist yet).
    const auto beside = a.xml == "-" ? std::string() : std::filesystem::path(a.xml).replace_extension(".bin").string();
    check_dot_output(a.batch.dot, {a.xml, a.bin, beside});
  }
  const auto graph = onnx::read_any(a.xml, a.bin, a.base_dir, flags);
  progress->set(fmt::format("check: {} layers, checking", graph.layers().size()));
  if (a.batch.given()) {
    const auto request = parse_request(a.batch);
    const auto report = model::check_batch(graph, request);
    progress.reset();
    if (a.json) {
      std::cout << json_text(render::batch_json(report, a.xml), 2) << '\n';
    } else {
      print_batch(report, a.quiet);
    }
    std::cout.flush();
    const int verdict = report.summary.verdict() == model::batch_verdict::yes  ? exit_ok
                        : report.summary.verdict() == model::batch_verdict::no ? exit_invalid
                                                                                : exit_cannot_tell;
    if (a.batch.dot_given) {
      // The answer is given: a picture that cannot be written is said on stderr, and the exit code stays
      // the answer's, which a script reads.
      try {
        write_dot(graph, report, a.batch.dot);
      } catch (const error& e) {
        std::cerr << fmt::format("reshape1 check: --dot: {}; the picture was not written (the answer above stands)\n",
                                 printable(e.what()));
      }
    }
    return verdict;
  }
  const auto report = model::check(graph);
  progress.reset();
  if (a.json) {
    std::cout << json_text(render::check_json(report, a.xml), 2) << '\n';
  } else {
    print_report(report, a.quiet);
  }
  return report.summary.failed() ? exit_invalid : exit_ok;
}

}  // namespace

void add_check(CLI::App& app, session& s) {
  auto args = std::make_shared<check_args>();
  auto* cmd = app.add_subcommand("check", "Check the Reshape layers of an OpenVINO IR (.xml + .bin) or ONNX model");
  cmd->footer(
      "For every Reshape: its pattern (a Const, or a shape sub-graph evaluated to values or bounds), reshape1's\n"
      "inferred output against the declared one, and warnings for patterns that hard-code the batch or a\n"
      "dynamic dimension (the model then cannot be reshaped).\n"
      "Verdicts: ok, error (inference fails), shape_mismatch (the declared output cannot be right), refinable\n"
      "(the declared output is less precise than what can be inferred).\n"
      "Then every layer is propagated from the model's inputs and its outputs compared with the declared\n"
      "shapes: shape_mismatch, refinable (declared static, only an interval derivable), not_covered (no\n"
      "rule for the op), rule_error (the op refuses its inputs).\n"
      "Exit codes: 0 no Reshape error, no shape_mismatch and no rule_error; 1 otherwise; 2 usage error or\n"
      "unreadable model.\n"
      "With --batch, --shape or --layout: will the model reshape, and will every layer keep its meaning?\n"
      "Exit codes then: 0 yes (proven), 1 no (a layer fails, mixes or drops samples, or an output loses the\n"
      "batch), 4 cannot tell (no batching rule decides some layer; --assume-kept TYPE vouches for an op).\n"
      "--list-ops prints the covered (type, opset) pairs, one 'Type-N' a line (--json: an array); with\n"
      "--format onnx, every version of every ONNX op reshape1 knows and whether it is translated.\n"
      "An ONNX model is lowered to the same ops as OpenVINO's ONNX frontend would make (docs/onnx.md).");
  using model::detail::option;
  auto* model_option = add_table_option(*cmd, option::model, "check", args->xml);
  add_table_option(*cmd, option::bin, "check", args->bin);
  add_table_option(*cmd, option::base_dir, "check", args->base_dir);
  add_table_option(*cmd, option::json, "check", args->json);
  add_table_option(*cmd, option::quiet, "check", args->quiet);
  add_table_option(*cmd, option::list_ops, "check", args->list_ops)->excludes(model_option);
  add_table_option(*cmd, option::format, "check", args->format)
      ->check(CLI::IsMember({"ir", "onnx"}).description(""))  // the placeholder lists the values
      ->needs(cmd->get_option("--list-ops"));
  auto* batch_option = add_table_option(*cmd, option::batch, "check --batch", args->batch.batch);
  add_table_option(*cmd, option::shape, "check --batch", args->batch.shapes);
  add_table_option(*cmd, option::layout, "check --batch", args->batch.layouts);
  add_table_option(*cmd, option::assume_kept, "check --batch", args->batch.assume_kept);
  add_table_option(*cmd, option::assume_constant, "check --batch", args->batch.assume_constant);
  auto* dot_option = add_table_option(*cmd, option::dot, "check --batch", args->batch.dot);
  cmd->callback([args, &s, batch_option, dot_option] {
    s.command = "check";
    s.json = args->json;  // an error is then one JSON object on stdout too
    args->batch.batch_given = batch_option->count() > 0;
    args->batch.dot_given = dot_option->count() > 0;
    if (args->list_ops) {
      s.exit_code = list_ops(args->json, args->format);
      return;
    }
    if (args->xml.empty()) throw CLI::RequiredError("MODEL");
    s.exit_code = check(*args);
  });
}

}  // namespace reshape1::cli

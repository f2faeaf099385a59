// `reshape1 shapes MODEL [--shape NAME=SHAPE]... [--json] [-o OUT]`: every tensor's propagated shape, and a
// copy of the model that declares them (an ONNX model's outputs and value_info, an IR's ports).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <variant>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check_batch.hpp"
#include "commands.hpp"
#include "model_options.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::cli {
namespace {

struct shapes_args {
  std::string xml, bin, output;
  std::vector<std::string> shapes;
  bool json = false;
  bool quiet = false;
};

void print_report(const model::shapes_report& r, bool quiet) {
  if (!quiet) {
    // A column for the bodies a tensor is in, only when a Loop's or Scan's body is listed.
    const bool bodies = std::any_of(r.tensors.begin(), r.tensors.end(), [](const auto& t) { return !t.within.empty(); });
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : r.tensors) {
      rows.push_back({t.name, t.op, to_string(t.shape), t.type ? std::string(name(*t.type)) : "?",
                      t.declared ? to_string(*t.declared) : "-"});
      if (!bodies) continue;
      std::vector<std::string> around;
      for (const auto& w : t.within)
        if (around.empty() || around.back() != w.name) around.push_back(w.name);  // a Scan-8 is two layers of one node
      rows.back().push_back(around.empty() ? "-" : fmt::format("{}", fmt::join(around, " > ")));
    }
    std::vector<std::string> head{"tensor", "op", "shape", "type", "declared"};
    if (bodies) head.emplace_back("in the body of");
    print_table(std::move(head), std::move(rows), {});
  }
  if (!r.gaps.empty()) {
    std::vector<std::vector<std::string>> rows, notes;
    for (const auto& g : r.gaps) {
      rows.push_back({std::to_string(g.id), g.name, g.op, g.not_covered ? "not_covered" : "rule_error"});
      notes.push_back({g.reason});
    }
    std::cout << (quiet ? "" : "\n") << "propagation stops at:\n";
    print_table({"id", "name", "op", "issue"}, std::move(rows), notes);
  }
  const auto& s = r.summary;
  std::cout << fmt::format("{} tensors: {} of known rank, {} static; {} layer{} where propagation stops\n", s.tensors,
                           s.rank_known, s.all_static, r.gaps.size(), r.gaps.size() == 1 ? "" : "s");
}

int shapes(const shapes_args& a) {
  model::shapes_options options;
  options.spelling = flags;
  options.bin = a.bin;
  options.shapes = parse_shapes(a.shapes, model::detail::option::shape);
  options.copy = !a.output.empty();
  if (!a.output.empty()) onnx::check_shapes_output(a.xml, a.bin, a.output, flags);
  auto progress = std::make_optional<progress_line>(!a.quiet && !a.json);
  progress->set(fmt::format("shapes: reading and propagating {}", a.xml));
  const auto report = onnx::shapes(a.xml, options);
  std::vector<std::string> files;  // what is written, as the report names it
  if (!a.output.empty()) {
    progress->set(fmt::format("shapes: writing {}", a.output));
    onnx::write_shapes(report, a.xml, a.output);
    files.push_back(a.output);
    if (std::holds_alternative<model::ir_output>(*report.output))
      files.push_back(std::filesystem::path(a.output).replace_extension(".bin").string());
  }
  progress.reset();
  if (a.json) {
    std::cout << json_text(render::shapes_json(report, a.xml, a.output.empty() ? render::json() : render::json(a.output)), 2)
              << '\n';
  } else {
    print_report(report, a.quiet);
    if (!files.empty()) std::cout << printable(fmt::format("wrote {}", fmt::join(files, " and "))) << '\n';
  }
  return exit_ok;
}

}  // namespace

void add_shapes(CLI::App& app, session& s) {
  auto args = std::make_shared<shapes_args>();
  auto* cmd = app.add_subcommand("shapes", "Print every tensor's propagated shape; write a copy of the model that declares them");
  cmd->footer(
      "Every tensor a layer computes (an IR: every output port but the Consts'; ONNX: every node output and\n"
      "graph input) with the shape propagation gives it from the declared inputs, or from --shape.\n"
      "A dynamic dimension keeps the name the model (an ONNX dim_param) or --shape (?@H) gives it; any other\n"
      "is named after the tensor and axis where it first appears (conv_out_2): one name, one size.\n"
      "-o writes a copy that declares those shapes, so that tools which show only declared shapes show them:\n"
      "an ONNX model's graph outputs and value_info (a name as a dim_param); an IR's ports (numbers, -1,\n"
      "intervals) and its .bin beside it. The input is never modified.\n"
      "Exit codes: 0 success (layers propagation cannot pass are listed, not failures); 2 usage error or\n"
      "unreadable model.");
  using model::detail::option;
  add_table_option(*cmd, option::model, "shapes", args->xml)->required();
  add_table_option(*cmd, option::output, "shapes", args->output);
  add_table_option(*cmd, option::bin, "shapes", args->bin);
  add_table_option(*cmd, option::shape, "shapes", args->shapes);
  add_table_option(*cmd, option::json, "shapes", args->json);
  add_table_option(*cmd, option::quiet, "shapes", args->quiet);
  cmd->callback([args, &s] {
    s.command = "shapes";
    s.json = args->json;
    s.exit_code = shapes(*args);
  });
}

}  // namespace reshape1::cli

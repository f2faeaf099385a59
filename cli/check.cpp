// `reshape1 check MODEL.xml [--bin MODEL.bin] [--json] [--quiet]`: the Reshape layers of an IR model.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "report.hpp"
#include "reshape1/error.hpp"
#include "reshape1/io/ir.hpp"

namespace reshape1::cli {
namespace {

struct check_args {
  std::string xml;
  std::string bin;
  bool json = false;
  bool quiet = false;
};

nlohmann::ordered_json to_json(const io::check_report& r, const std::string& model) {
  auto findings = nlohmann::ordered_json::array();
  for (const auto& f : r.findings) {
    nlohmann::ordered_json j = {{"id", f.id},
                                {"name", f.name},
                                {"verdict", io::name(f.result)},
                                {"warnings", f.warnings},
                                {"input", f.input},
                                {"pattern", f.pattern},
                                {"pattern_known", f.pattern_known},
                                {"special_zero", f.special_zero},
                                {"declared", f.declared},
                                {"inferred", f.inferred.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(f.inferred)},
                                {"blocks_reshape", f.blocks_reshape},
                                {"hint", f.hint}};
    if (f.result == io::verdict::error) j["error"] = {{"code", f.code}, {"message", f.message}};
    findings.push_back(std::move(j));
  }
  const auto& s = r.summary;
  return {{"model", model},
          {"findings", findings},
          {"summary",
           {{"reshapes", s.reshapes},
            {"ok", s.ok},
            {"error", s.errors},
            {"mismatch", s.mismatches},
            {"refinable", s.refinable},
            {"blocking_reshape", s.blocking}}}};
}

void print_table(const io::check_report& r, bool quiet) {
  const std::vector<std::string> head{"id", "name", "input", "pattern", "special_zero", "declared", "inferred", "verdict"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : r.findings) {
    if (quiet && f.result == io::verdict::ok && f.warnings.empty()) continue;
    rows.push_back({f.id, f.name, f.input, f.pattern_known ? f.pattern : f.pattern + " (values unknown)",
                    f.special_zero ? "true" : "false", f.declared, f.result == io::verdict::error ? "-" : f.inferred,
                    std::string(io::name(f.result))});
  }
  for (auto& row : rows)
    for (auto& cell : row) cell = printable(cell);  // names and shapes come from the file
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) line += fmt::format("{:<{}}  ", row[c], width[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << '\n';
  };
  if (!rows.empty()) print_row(head);
  std::size_t k = 0;
  for (const auto& f : r.findings) {
    if (quiet && f.result == io::verdict::ok && f.warnings.empty()) continue;
    print_row(rows[k++]);
    if (f.result == io::verdict::error) std::cout << "    error " << f.code << ": " << printable(f.message) << '\n';
    if (f.result == io::verdict::mismatch || f.result == io::verdict::refinable)
      std::cout << "    " << printable(f.hint) << '\n';
    for (const auto& w : f.warnings) std::cout << "    warning: " << printable(w) << '\n';
  }
  const auto& s = r.summary;
  std::cout << fmt::format("{} Reshape layers: {} ok, {} error, {} mismatch, {} refinable; {} keep the model from "
                           "being reshaped\n",
                           s.reshapes, s.ok, s.errors, s.mismatches, s.refinable, s.blocking);
}

int check(const check_args& a) {
  // An error reading the model goes to main, which exits 2: the model cannot be read.
  const std::string bin = !a.bin.empty() ? a.bin : std::filesystem::path(a.xml).replace_extension(".bin").string();
  const auto model = io::read_ir(a.xml, bin);
  const auto report = io::check_ir(model);
  if (a.json) {
    std::cout << json_text(to_json(report, a.xml), 2) << '\n';
  } else {
    print_table(report, a.quiet);
  }
  return report.summary.errors + report.summary.mismatches == 0 ? exit_ok : exit_invalid;
}

}  // namespace

void add_check(CLI::App& app, session& s) {
  auto args = std::make_shared<check_args>();
  auto* cmd = app.add_subcommand("check", "Check the Reshape layers of an OpenVINO IR model (.xml + .bin)");
  cmd->footer(
      "For every Reshape: its pattern (a Const, or a shape sub-graph evaluated to values or bounds), reshape1's\n"
      "inferred output against the declared one, and warnings for patterns that hard-code the batch or a\n"
      "dynamic dimension (the model then cannot be reshaped).\n"
      "Verdicts: ok, error (inference fails), mismatch (the declared output cannot be right), refinable (the\n"
      "declared output is less precise than what can be inferred).\n"
      "Exit codes: 0 no error or mismatch, 1 some layer has one, 2 usage error or unreadable model.");
  cmd->add_option("MODEL", args->xml, "the model's .xml file")->required();
  cmd->add_option("--bin", args->bin, "the weights file (default: MODEL with .bin)");
  cmd->add_flag("--json", args->json, "print the findings as one JSON document");
  cmd->add_flag("-q,--quiet", args->quiet, "list only the layers with a problem or a warning");
  cmd->callback([args, &s] {
    s.command = "check";
    s.exit_code = check(*args);
  });
}

}  // namespace reshape1::cli

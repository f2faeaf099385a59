#include "report.hpp"

#include <algorithm>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "io/files.hpp"

namespace reshape1::cli {

nlohmann::ordered_json dims_json(const partial_shape& s) {
  if (!s.rank_known()) return "[...]";
  auto dims = nlohmann::ordered_json::array();
  for (const auto& d : s) {
    if (d.is_static() && !d.has_symbol()) {
      dims.push_back(d.lo());
      continue;
    }
    nlohmann::ordered_json o = {{"min", d.lo()}, {"max", nullptr}};
    if (d.range().is_bounded()) o["max"] = d.hi();
    if (d.has_symbol()) o["symbol"] = d.symbol().name();
    dims.push_back(std::move(o));
  }
  return dims;
}

nlohmann::ordered_json result_json(const reshape_result& r) {
  auto equalities = nlohmann::ordered_json::array();
  for (const auto& eq : r.symbol_equalities) equalities.push_back({eq.input.name(), eq.output.name()});
  return {{"shape", to_string(r.shape)}, {"dims", dims_json(r.shape)}, {"symbol_equalities", equalities}};
}

nlohmann::ordered_json error_json(const error& e, const std::string& message) {
  nlohmann::ordered_json o = {{"code", name(e.code())}, {"message", message}, {"indices", e.where().indices}};
  if (e.where().offset) o["offset"] = *e.where().offset;
  return {{"error", o}};
}

nlohmann::ordered_json out_of_memory_json(const std::string& message) {
  return {{"error", {{"code", "out_of_memory"}, {"message", message}, {"indices", nlohmann::ordered_json::array()}}}};
}

std::string printable(std::string_view text) { return io::detail::escaped(text); }


void print_table(const std::vector<std::string>& head, std::vector<std::vector<std::string>> rows,
                const std::vector<std::vector<std::string>>& notes) {
  for (auto& row : rows)
    for (auto& cell : row) cell = printable(cell);
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
  if (rows.empty()) return;
  print_row(head);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    print_row(rows[k]);
    if (k < notes.size())
      for (const auto& n : notes[k]) std::cout << "    " << printable(n) << '\n';
  }
}


std::string id_path(const std::vector<model::enclosing_layer>& within, std::int64_t id) {
  std::string r;
  for (const auto& w : within) r += std::to_string(w.id) + "/";
  return r + std::to_string(id);
}


}  // namespace reshape1::cli

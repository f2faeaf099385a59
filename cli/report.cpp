#include "report.hpp"

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

std::string printable(std::string_view text) { return io::detail::escaped(text); }

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace reshape1::cli

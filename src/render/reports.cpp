// The reports as JSON: see reports.hpp.
#include "render/reports.hpp"

#include <string>
#include <variant>

namespace reshape1::render {
namespace {

json carrier_json(const model::batch_carrier& c) {
  switch (c.state) {
    case model::batch_carrier::kind::one:
      return {{"axis", c.axis}, {"factor", c.factor}};
    case model::batch_carrier::kind::none:
      return "none";
    case model::batch_carrier::kind::several:
      return "several";
    case model::batch_carrier::kind::unknown:
      break;
  }
  return "unknown";
}

json shape_json(const partial_shape& s, shapes_seen* seen) {
  auto text = to_string(s);
  if (seen != nullptr) seen->emplace_back(text, s);
  return text;
}

}  // namespace

std::string json_text(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

json within_json(const std::vector<model::enclosing_layer>& within) {
  auto j = json::array();
  for (const auto& w : within) j.push_back({{"id", std::to_string(w.id)}, {"name", w.name}, {"type", w.type}});
  return j;
}

json args_json(const model::reason_args& args);

json check_json(const model::check_report& r, std::string_view model, shapes_seen* shapes) {
  const auto shape = [&](const partial_shape& x) { return shape_json(x, shapes); };
  auto findings = json::array();
  for (const auto& f : r.reshapes) {
    json j = {{"id", std::to_string(f.id)},         {"name", f.name},
              {"verdict", model::name(f.result)},   {"warnings", f.warnings},
              {"input", shape(f.input)},        {"pattern", to_string(f.pattern)},
              {"pattern_known", f.pattern_known},   {"special_zero", f.special_zero},
              {"declared", shape(f.declared)},  {"inferred", f.inferred ? shape(*f.inferred) : json()},
              {"blocks_reshape", f.blocks_reshape}, {"hint", f.hint},
              {"hint_code", f.hint_code},           {"hint_args", args_json(f.hint_args)}};
    if (f.error) j["error"] = {{"code", name(f.error->code)}, {"message", f.error->message}};
    j["code"] = f.code;
    j["args"] = args_json(f.args);
    auto coded = json::array();
    for (const auto& w : f.warning_codes) coded.push_back({{"code", w.code}, {"args", args_json(w.args)}});
    j["warning_codes"] = std::move(coded);
    if (!f.within.empty()) j["within"] = within_json(f.within);
    findings.push_back(std::move(j));
  }
  auto layers = json::array();
  for (const auto& f : r.layers) {
    json j = {{"issue", model::name(f.issue)},
              {"id", std::to_string(f.id)},
              {"name", f.name},
              {"type", f.type},
              {"opset", f.opset}};
    if (f.port >= 0) {
      j["port"] = f.port;
      j["declared"] = shape(f.declared);
      j["propagated"] = shape(f.propagated);
    }
    j["code"] = f.code;
    j["args"] = args_json(f.args);
    if (!f.message.empty()) j["message"] = f.message;
    if (!f.within.empty()) j["within"] = within_json(f.within);
    layers.push_back(std::move(j));
  }
  const auto& s = r.summary.reshapes;
  const auto& l = r.summary.layers;
  return {{"model", model},
          {"findings", findings},
          {"layers", layers},
          {"summary",
           {{"reshapes", s.count},
            {"ok", s.ok},
            {"error", s.errors},
            {"shape_mismatch", s.shape_mismatches},
            {"refinable", s.refinable},
            {"blocking_reshape", s.blocking}}},
          {"layer_summary",
           {{"layers", l.count},
            {"propagated", l.propagated},
            {"shape_mismatch", l.shape_mismatches},
            {"refinable", l.refinable},
            {"not_covered", l.not_covered},
            {"rule_error", l.rule_errors}}}};
}

json args_json(const model::reason_args& args) {
  auto j = json::object();
  for (const auto& [key, value] : args) {
    // A layer's id is a string, as everywhere in the JSON (it stays exact in JavaScript).
    const auto* number = std::get_if<std::int64_t>(&value);
    if (number != nullptr && key.ends_with("_id")) {
      j[key] = std::to_string(*number);
    } else {
      std::visit([&, &k = key](const auto& v) { j[k] = v; }, value);
    }
  }
  return j;
}

json batch_json(const model::batch_report& r, std::string_view model, shapes_seen* shapes) {
  const auto shape = [&](const partial_shape& x) { return shape_json(x, shapes); };
  auto inputs = json::array();
  for (const auto& in : r.inputs)
    inputs.push_back({{"id", std::to_string(in.id)},
                      {"name", in.name},
                      {"declared", shape(in.declared)},
                      {"reshaped_to", shape(in.requested)},
                      {"batch_index", in.batch_index ? json(*in.batch_index) : json()},
                      {"batch_from", model::name(in.source)},
                      {"layout", in.layout}});
  auto outputs = json::array();
  for (const auto& out : r.outputs)
    outputs.push_back({{"id", std::to_string(out.id)},
                       {"name", out.name},
                       {"declared", shape(out.declared)},
                       {"reshaped", shape(out.reshaped)},
                       {"batch", carrier_json(out.batch)}});
  auto findings = json::array();
  for (const auto& f : r.findings) {
    json j = {{"finding", model::name(f.issue)},
              {"id", std::to_string(f.id)},
              {"name", f.name},
              {"type", f.type},
              {"opset", f.opset}};
    if (!f.within.empty()) j["within"] = within_json(f.within);
    j["code"] = f.code;
    j["args"] = args_json(f.args);
    if (!f.at.empty()) j["at"] = f.at;
    j["what"] = f.what;
    j["source"] = f.source_id ? json({{"id", std::to_string(*f.source_id)}, {"what", f.source}}) : json();
    if (f.used_by_id) j["used_by"] = std::to_string(*f.used_by_id);
    if (f.cause_id) j["cause"] = std::to_string(*f.cause_id);
    if (f.port) j["port"] = *f.port;
    if (f.axis) j["axis"] = *f.axis;
    if (f.pattern_index) j["pattern_index"] = *f.pattern_index;
    j["hint"] = f.hint;
    j["hint_code"] = f.hint_code;
    j["hint_args"] = args_json(f.hint_args);
    findings.push_back(std::move(j));
  }
  return {{"model", model},
          {"target", r.target},
          {"inputs", inputs},
          {"outputs", outputs},
          {"findings", findings},
          {"notes", r.notes},
          {"summary",
           {{"verdict", model::name(r.summary.verdict())},
            {"reshapes", r.summary.reshapes()},
            {"fails", r.summary.fails},
            {"swallows_batch", r.summary.swallows_batch},
            {"scales_with_batch", r.summary.scales_with_batch},
            {"mixes_samples", r.summary.mixes_samples},
            {"drops_samples", r.summary.drops_samples},
            {"loses_batch", r.summary.loses_batch},
            {"cannot_tell", r.summary.cannot_tell},
            {"failing_at_declared", r.summary.failing_at_declared},
            {"line", r.summary_line()}}}};
}

namespace {

/// The layers fix left alone, a Reshape in a body with the path to it
/// (`within`), as `check --json` gives it.
json refusals_json(const std::vector<model::fix_refusal>& refusals) {
  auto out = json::array();
  for (const auto& x : refusals) {
    json j = {{"id", std::to_string(x.id)}, {"name", x.name},           {"type", x.type},
              {"code", x.code},               {"args", args_json(x.args)}, {"reason", x.reason}};
    if (!x.within.empty()) j["within"] = within_json(x.within);
    out.push_back(std::move(j));
  }
  return out;
}

// A change's format-specific keys, in the places the reports have always given them: what holds the new
// value (an IR's Const, an ONNX tensor) after the patterns, the Reshape's flag before `why`.
void add_holder(json& j, const model::ir_edit& e) {
  j["const"] = std::to_string(e.const_id);
  j["cloned_from"] = e.cloned_from ? json(std::to_string(*e.cloned_from)) : json();
}
void add_holder(json& j, const model::onnx_edit& e) {
  j["tensor"] = e.tensor;
  j["cloned_from"] = e.cloned_from ? json(*e.cloned_from) : json();
}
void add_flag(json& j, const model::ir_edit& e) { j["special_zero_set"] = e.special_zero_set; }
void add_flag(json& j, const model::onnx_edit& e) { j["allowzero_cleared"] = e.allowzero_cleared; }

}  // namespace

json fix_json(const model::fix_report& r, std::string_view model, const json& output) {
  auto changes = json::array();
  for (const auto& c : r.changes) {
    json j = {{"id", std::to_string(c.id)}, {"name", c.name},           {"type", c.type},
              {"old_pattern", c.old_pattern},  {"new_pattern", c.new_pattern}};
    std::visit([&](const auto& e) { add_holder(j, e); }, c.edit);
    if (!c.computed.empty()) {  // no Const holds the pattern: layers fix added compute it
      if (std::holds_alternative<model::ir_edit>(c.edit)) j["const"] = json();
      j["computed"] = c.computed;
    }
    j["element"] = c.element;
    j["old_value"] = c.old_value;
    j["new_value"] = c.new_value;
    std::visit([&](const auto& e) { add_flag(j, e); }, c.edit);
    j["why"] = c.why;
    if (!c.within.empty()) j["within"] = within_json(c.within);  // a Reshape in a body, as refusals give it
    changes.push_back(std::move(j));
  }
  json j = {{"model", model},   {"output", output},   {"nothing_to_do", r.nothing_to_do},
            {"fixed", r.fixed}, {"changes", changes}, {"refusals", refusals_json(r.refusals)}};
  // An ONNX model's freed dims (none is an empty list); an IR declares no names to free.
  if (const auto* o = std::get_if<model::onnx_output>(&r.output)) j["freed"] = o->freed;
  j["checked"] = r.checked;
  return j;
}

json shapes_json(const model::shapes_report& r, std::string_view model, const json& output, shapes_seen* shapes) {
  auto tensors = json::array();
  for (const auto& t : r.tensors) {
    json j{{"name", t.name},
           {"id", std::to_string(t.id)},
           {"layer", t.layer},
           {"op", t.op},
           {"output", t.output},
           {"shape", shape_json(t.shape, shapes)},
           {"type", t.type ? json(std::string(name(*t.type))) : json()},
           {"declared", t.declared ? shape_json(*t.declared, shapes) : json()}};
    if (!t.within.empty()) j["within"] = within_json(t.within);  // a Loop's or Scan's body, as findings give it
    tensors.push_back(std::move(j));
  }
  auto gaps = json::array();
  for (const auto& g : r.gaps)
    gaps.push_back({{"id", std::to_string(g.id)},
                    {"name", g.name},
                    {"op", g.op},
                    {"issue", g.not_covered ? "not_covered" : "rule_error"},
                    {"reason", g.reason}});
  const auto& s = r.summary;
  return {{"model", model},
          {"output", output},
          {"tensors", tensors},
          {"gaps", gaps},
          {"summary", {{"tensors", s.tensors}, {"rank_known", s.rank_known}, {"static", s.all_static}}}};
}

}  // namespace reshape1::render

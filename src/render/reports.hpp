// Internal: the reports of check, check --batch and fix as JSON. The command line prints these trees
// (--json) and the Python module builds its report classes from them (their attribute names are these
// keys), so a field added here reaches both, under one name. Text tables are the command line's own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/model/fix.hpp"
#include "reshape1/model/shapes.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::render {

using json = nlohmann::ordered_json;

/// The shapes a report writes, each with the text it writes for it: what a reader of the JSON needs to get
/// the shapes themselves back (a symbol is named after a layer, whose name need not be notation that reads
/// back: `?@image.0`). Python's report classes take their Shape objects from here.
using shapes_seen = std::vector<std::pair<std::string, partial_shape>>;

/// The report of `check`. `model` is the model as the caller named it; `shapes`, when given, receives the
/// shapes written.
[[nodiscard]] json check_json(const model::check_report& r, std::string_view model, shapes_seen* shapes = nullptr);
/// The report of `check --batch`.
[[nodiscard]] json batch_json(const model::batch_report& r, std::string_view model, shapes_seen* shapes = nullptr);
/// The report of `fix` (either format); `output` is the fixed model's path when it was written, else null.
[[nodiscard]] json fix_json(const model::fix_report& r, std::string_view model, const json& output);

/// The report of `shapes` (either format); `output` is the path the model with its shapes was written to,
/// else null.
[[nodiscard]] json shapes_json(const model::shapes_report& r, std::string_view model, const json& output,
                               shapes_seen* shapes = nullptr);

/// The enclosing layers: [{"id", "name", "type"}], outermost first.
[[nodiscard]] json within_json(const std::vector<model::enclosing_layer>& within);
/// JSON text of `j`; strings that are not valid UTF-8 (names read from a file) get U+FFFD for each bad
/// byte, so the output is always valid JSON.
[[nodiscard]] std::string json_text(const json& j, int indent = -1);

}  // namespace reshape1::render

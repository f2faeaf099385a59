// Internal: a reason the text layer words — its stable code, the values it names, and its sentence, written
// from them in one place — as `check`'s warnings, `fix`'s reasons and every finding's hint carry it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "reshape1/model/check.hpp"

namespace reshape1::model::text {

struct reason_text {
  std::string code;  ///< stable, snake_case (the JSON's `code`)
  reason_args args;  ///< what the sentence names, each under its name (the JSON's `args`)
  std::string text;  ///< the sentence
  [[nodiscard]] coded_reason coded() const { return {code, args}; }
};

/// Sets a finding's hint (`hint`, `hint_code`, `hint_args`) from `h`; an empty sentence is no hint at all.
template <class Finding>
void give_hint(Finding& f, reason_text h) {
  if (h.text.empty()) h = {};
  f.hint = std::move(h.text);
  f.hint_code = std::move(h.code);
  f.hint_args = std::move(h.args);
}

/// The hint an error carries, in its rule's own words (code `error_hint`, nothing named); none when empty.
[[nodiscard]] inline reason_text error_hint(std::string text) {
  if (text.empty()) return {};
  return {"error_hint", {}, std::move(text)};
}

/// Hint `first` continued with `then` ("a; b"): first's code and values, then's code as `then` and its values
/// as `then_NAME`. `then` empty: first alone.
[[nodiscard]] reason_text joined_hint(reason_text first, const reason_text& then);

/// Every hint code, in the order docs/cli.md and docs/batch.md list them (a test renders each).
[[nodiscard]] std::span<const std::string_view> hint_codes() noexcept;

}  // namespace reshape1::model::text

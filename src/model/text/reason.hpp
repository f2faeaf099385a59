// Internal: a reason the text layer words — its stable code, the values it names, and its sentence, written
// from them in one place — as `check`'s warnings and `fix`'s reasons carry it.
#pragma once

#include <string>

#include "reshape1/model/check.hpp"

namespace reshape1::model::text {

struct reason_text {
  std::string code;  ///< stable, snake_case (the JSON's `code`)
  reason_args args;  ///< what the sentence names, each under its name (the JSON's `args`)
  std::string text;  ///< the sentence
  [[nodiscard]] coded_reason coded() const { return {code, args}; }
};

}  // namespace reshape1::model::text

// reshape1 CLI: `check --batch N` / `--shape NAME=SHAPE` / `--layout NAME=LAYOUT`: the options, and the
// batch report as a table or JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/options.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/partial_shape.hpp"

namespace reshape1::cli {

/// Every request and read of the command line names options by its flags (`--batch 8`).
inline constexpr auto flags = model::option_spelling::command_line;

struct batch_options {
  std::string batch{};              ///< "8", "?", "" when not given
  std::vector<std::string> shapes{};  ///< "NAME=SHAPE" or "SHAPE"
  std::vector<std::string> layouts{};  ///< "NAME=LAYOUT"
  std::vector<std::string> assume_kept{};  ///< op types the user vouches for
  std::vector<std::string> assume_constant{};  ///< constants the user vouches stay at every size
  std::string dot{};                        ///< --dot FILE, "" when not given
  bool batch_given = false;  ///< --batch appeared, even with an empty value (a script's unset "$B")
  bool dot_given = false;    ///< --dot appeared, even with an empty value (refused, not taken as absent)
  /// Whether any option of the batch analysis was given (then parse_request decides whether it is enough).
  [[nodiscard]] bool given() const noexcept {
    return batch_given || !batch.empty() || !shapes.empty() || !layouts.empty() || !assume_kept.empty() ||
           !assume_constant.empty() ||
           !dot.empty() || dot_given;
  }
};

/// `--layout NAME=LAYOUT` options as (name, layout) pairs; `--layout LAYOUT` has an empty name, which
/// stands for the only input of a one-input model (as `layouts={"": LAYOUT}` in Python).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> parse_layouts(const std::vector<std::string>& texts);

/// `--shape NAME=SHAPE` texts (the option `key` names them in errors: --shape, --check-shape) as (name,
/// shape) pairs; no name: the only input's. error(syntax) naming the option and its value.
[[nodiscard]] std::vector<std::pair<std::string, partial_shape>> parse_shapes(const std::vector<std::string>& texts,
                                                                              model::detail::option key);

/// The request the options describe. error(syntax) or error(invalid_argument) naming the option.
[[nodiscard]] model::reshape_request parse_request(const batch_options& o);

void print_batch(const model::batch_report& r, bool quiet);
/// Refuses a --dot file that would not be written, before the model is analysed: an empty name, a
/// directory, or one of the model's own files (`inputs`), which --dot must never replace.
void check_dot_output(const std::string& path, const std::vector<std::string>& inputs);
/// Graphviz DOT of the path from the inputs to each finding: each edge labelled with its shape at the
/// declared shapes and at the new ones (the batch dimension marked *), the findings' layers filled. Written
/// as `-o` files are: through a temporary file renamed into place, a FIFO or device in place (a FIFO that
/// no process reads is refused rather than waited on).
void write_dot(const model::graph& g, const model::batch_report& r, const std::string& path);

}  // namespace reshape1::cli

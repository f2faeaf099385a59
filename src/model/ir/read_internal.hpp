// Internal: reading a model that is already in memory (fix reads back each rewrite without writing it).
#pragma once

#include <memory>
#include <string>

#include "io/files.hpp"
#include "reshape1/model/graph.hpp"

namespace reshape1::model::detail {

/// read_ir on a model in memory: `xml` is the .xml's text (parsed in place) and `weights` the .bin's
/// bytes; messages name them `xml_name` and `bin_name`.
[[nodiscard]] graph read_ir_in_memory(std::string xml, const std::string& xml_name,
                                      std::shared_ptr<const io::detail::mapped_file> weights,
                                      const std::string& bin_name);

}  // namespace reshape1::model::detail

// Writing an ONNX model the library made (fix's fixed model, shapes' copy) by fix -o's rules (output.hpp):
// never over the input or its external data, the external data brought beside the output first, the model
// through a temporary file renamed into place.
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>

#include "../detail/fail.hpp"
#include "../io/files.hpp"
#include "lowering.hpp"
#include "output.hpp"
#include "skim.hpp"
#include "reshape1/onnx.hpp"
#include <onnx/onnx_pb.h>

namespace reshape1::onnx {

namespace fs = std::filesystem;
using reshape1::detail::fail;
using detail::output_words;

namespace {
/// The external data files a model's tensors name (subgraphs included), each with the first tensor that
/// names it.
void external_locations(const ::onnx::GraphProto& g, std::map<std::string, std::string>& out) {
  for (const auto& t : g.initializer())
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
      for (const auto& e : t.external_data())
        if (e.key() == "location") out.emplace(e.value(), t.name());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      if (a.has_g()) external_locations(a.g(), out);
      for (const auto& sub : a.graphs()) external_locations(sub, out);
    }
}

/// The external data files the model `model` (bytes) names, each with the first tensor that names it.
std::map<std::string, std::string> external_locations_of(std::span<const std::byte> bytes, const fs::path& file) {
  // Only the tensors' locations are read: the weights inside the model are left out of the parse.
  const auto skimmed = detail::skim(bytes, file.string());
  ::onnx::ModelProto m;
  std::map<std::string, std::string> locations;
  const bool parsed = skimmed.bytes.empty()
                          ? bytes.size() <= static_cast<std::size_t>(INT_MAX) &&
                                m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))
                          : m.ParseFromString(skimmed.bytes);
  if (parsed) external_locations(m.graph(), locations);
  return locations;
}

/// Refuses an output that is one of the external data files the input reads, or the fixed model will read
/// where it is written (through a symbolic link, too): writing the model there would replace data a model
/// reads.
void refuse_output_over_external_data(const std::map<std::string, std::string>& locations, const fs::path& in,
                                      const fs::path& out, const output_words& words) {
  const auto from = in.parent_path().empty() ? fs::path(".") : in.parent_path();
  const auto to = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  for (const auto& [location, tensor] : locations)
    for (const auto& data : {from / location, to / location})
      if (fs::exists(data, ec) && fs::equivalent(data, out, ec))
        fail(errc::invalid_argument, {.file = out.string()},
             fmt::format("{}: the output is the external data file '{}' that the model's tensor '{}' reads",
                         out.string(), io::detail::escaped(location), io::detail::escaped(tensor)),
             fmt::format("write {} to another file; the input and its data are never modified", words.model));
}

/// Puts each external data file beside a model written to another directory: a hard link where the file
/// system allows it, else a copy. A different file already there is refused, not replaced.
void bring_external_data(const std::map<std::string, std::string>& locations, const fs::path& in, const fs::path& out,
                         const output_words& words) {
  if (locations.empty()) return;
  const auto from = in.parent_path().empty() ? fs::path(".") : in.parent_path();
  const auto to = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  std::error_code ec;
  if (fs::equivalent(from, to, ec)) return;
  for (const auto& [location, tensor] : locations) {
    const auto source = from / location;
    const auto target = to / location;
    // What is written must read back: the data beside the written model is looked for by the rules of
    // the reader (a symbolic link there that leads out of the directory would make it unreadable).
    try {
      // The refusal's message is kept without its hint, which names no option here.
      (void)detail::external_path(to, location, out.string(), tensor, model::option_spelling::api);
    } catch (const error& e) {
      fail(errc::invalid_argument, {.file = target.string()},
           fmt::format("{} could not be read back from there: {}", words.model, reshape1::detail::without_hint(e.what(), e.hint())),
           fmt::format("write {} to another directory", words.model));
    }
    if (fs::exists(target, ec)) {
      const io::detail::mapped_file a(source), b(target);
      if (a.bytes().size() == b.bytes().size() &&
          std::memcmp(a.bytes().data(), b.bytes().data(), a.bytes().size()) == 0)
        continue;
      fail(errc::invalid_argument, {.file = target.string()},
           fmt::format("{}: the external data '{}' of {} would replace a different file there", target.string(), location,
                       words.model),
           fmt::format("write {} to another directory, or beside the original", words.model));
    }
    fs::create_directories(target.parent_path(), ec);
    fs::create_hard_link(source, target, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(source, target, ec);
      if (ec)
        fail(errc::io, {.file = target.string()},
             fmt::format("{}: cannot copy the external data {} there: {}", target.string(), source.string(), ec.message()),
             {});
    }
  }
}
}  // namespace

void detail::check_onnx_output(const fs::path& in, const fs::path& out, const output_words& words) {
  if (out.extension() != ".onnx")
    fail(errc::invalid_argument, {}, fmt::format("{}: the output of an ONNX model must end in .onnx", out.string()),
         fmt::format("write e.g. {}", words.example));
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(in, out, ec))
    fail(errc::invalid_argument, {.file = out.string()},
         fmt::format("{}: the output is the model itself", out.string()),
         fmt::format("write {} to another file; the input is never modified", words.model));
  // The input's own external data: the fixed model may no longer read a file of it (its one tensor there
  // rewritten inline), but writing over it would still change the input.
  // A model fixed from bytes has no file to read them from; one that does not parse is the analysis's to
  // report.
  if (fs::exists(out, ec) && fs::is_regular_file(in, ec)) {
    std::map<std::string, std::string> locations;
    try {
      const io::detail::mapped_file data(in);
      locations = external_locations_of(data.bytes(), in);
    } catch (const error&) {
    }
    refuse_output_over_external_data(locations, in, out, words);
  }
  // A FIFO would block the write until something reads it, and a device or directory cannot hold a model.
  if (const auto kind = io::detail::special_file_kind(out))
    fail(errc::invalid_argument, {}, fmt::format("{}: is {}, not a regular file", out.string(), *kind),
         fmt::format("{} writes the model to a regular file; give another name", words.command));
}

void detail::write_onnx(const model::onnx_output& fixed, const fs::path& in, const fs::path& out,
                        const output_words& words) {
  check_onnx_output(in, out, words);
  const auto locations = external_locations_of(std::as_bytes(std::span(fixed.model)), out);
  refuse_output_over_external_data(locations, in, out, words);
  // The data first: a model written without it would point at nothing.
  bring_external_data(locations, in, out, words);
  io::detail::atomic_file file(out);
  file.write(std::as_bytes(std::span(fixed.model.data(), fixed.model.size())));
  file.commit();
}

}  // namespace reshape1::onnx

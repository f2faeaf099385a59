// reshape1::onnx: an ONNX file's bytes with its large weights left out, for a reader that needs only their
// length. Protobuf's generated classes copy every raw_data they parse, so parsing a model costs its size
// twice (the file's pages and the copy); a model's weights are almost all of its bytes, and reshape1 reads
// no weight above max_value_elements values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace reshape1::onnx::detail {

/// Where a raw_data field left out lies in the file: its bytes (without the field's tag and length).
struct left_out_field {
  std::uint64_t offset = 0, length = 0;
};

/// A ModelProto's bytes without the raw_data of the top graph's large initializers.
struct skimmed_model {
  /// The ModelProto to parse in place of the file, each left-out raw_data's enclosing messages given their
  /// new lengths; empty when nothing worth leaving out was found (parse the file itself).
  std::string bytes;
  /// For each initializer of the top graph whose raw_data was left out (its index among the graph's
  /// initializers, counted as protobuf merges them): the length of that raw_data, the field's last
  /// occurrence, which is the one protobuf would keep.
  std::unordered_map<std::size_t, left_out_field> left_out;
};

/// The raw_data fields left out are those of a tensor whose last raw_data is above `min_left_out` bytes
/// (64 KiB: no tensor of at most max_value_elements values, the most a rule reads, is that long) and
/// whose data is not in an external file. Only the headers of the fields walked are read, never a
/// left-out field's bytes, so a mapped file's weight pages are not touched. Bytes that are not a
/// well-formed ModelProto as far as the walk goes (a truncated field, a group, a tag or length of more
/// than five bytes, a length from 2^31) give nothing left out, so that protobuf's parse of the file
/// itself says what is wrong, as it did before.
inline constexpr std::uint64_t min_left_out = std::uint64_t{64} << 10;

/// `file` may be a mapping: a file that shrinks while it is walked is error(io) naming `name`.
/// With `any_share`, weights are left out however small a share of the file they are. `above` is the
/// length from which a raw_data is left out (below min_left_out only for the fuzzer, whose inputs are
/// small: the reader would then refuse a tensor small enough to read whose data was left out).
[[nodiscard]] skimmed_model skim(std::span<const std::byte> file, const std::string& name, bool any_share = false,
                                 std::uint64_t above = min_left_out);

/// The model `skimmed` (a ModelProto serialised by protobuf from a parse of skim's bytes, edited, its top
/// graph's first initializers the same ones) with each raw_data left out put back into its initializer,
/// copied from `file` (the bytes skim walked), where protobuf would have written it: the bytes a parse and
/// a serialisation of the whole file would give. error(io) naming `name` when `file` is a mapping of a
/// file that shrank; error(unsupported) when `skimmed` is not such a model (a bug).
[[nodiscard]] std::string put_back(std::span<const std::byte> skimmed, std::span<const std::byte> file,
                                   const std::unordered_map<std::size_t, left_out_field>& left_out,
                                   const std::string& name);

}  // namespace reshape1::onnx::detail

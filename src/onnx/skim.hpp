// reshape1::onnx: an ONNX file's bytes with its large weights left out, for a reader that needs only their
// length. Protobuf's generated classes copy every raw_data they parse, so parsing a model costs its size
// twice (the file's pages and the copy); a model's weights are almost all of its bytes, and reshape1 reads
// no weight above max_value_elements values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace reshape1::onnx::detail {

/// Where a raw_data field left out lies in the file: its bytes (without the field's tag and length).
struct left_out_field {
  std::uint64_t offset = 0, length = 0;
};

/// A ModelProto's bytes without the raw_data of the top graph's large initializers (and, if asked, of its
/// Constant nodes' large values).
struct skimmed_model {
  /// The ModelProto to parse in place of the file, each left-out raw_data's enclosing messages given their
  /// new lengths; empty when nothing worth leaving out was found (parse the file itself).
  std::string bytes;
  /// For each initializer of the top graph whose raw_data was left out (its index among the graph's
  /// initializers, counted as protobuf merges them): the length of that raw_data, the field's last
  /// occurrence, which is the one protobuf would keep.
  std::unordered_map<std::size_t, left_out_field> left_out;
  /// With skim_options::constants: for each Constant node of the top graph (default domain) whose tensor
  /// attribute's raw_data was left out, keyed by the node's index in the graph and the attribute's in the
  /// node, as protobuf merges them: the length of that raw_data.
  std::map<std::pair<std::size_t, std::size_t>, left_out_field> constants_left_out;
};

/// The raw_data fields left out are those of a tensor whose last raw_data is above `min_left_out` bytes
/// (64 KiB: no tensor of at most max_value_elements values, the most a rule reads, is that long) and
/// whose data is not in an external file. Only the headers of the fields walked are read, never a
/// left-out field's bytes, so a mapped file's weight pages are not touched. Bytes that are not a
/// well-formed ModelProto as far as the walk goes (a truncated field, a group, a tag or length of more
/// than five bytes, a length from 2^31) give nothing left out, so that protobuf's parse of the file
/// itself says what is wrong, as it did before.
inline constexpr std::uint64_t min_left_out = std::uint64_t{64} << 10;

struct skim_options {
  /// Leave weights out however small a share of the file they are (else only when they are at least half
  /// of it: a model of small tensors is parsed from the file as it is, not copied first).
  bool any_share = false;
  /// The length from which a raw_data is left out (below min_left_out only for the fuzzer, whose inputs
  /// are small: the reader would then refuse a tensor small enough to read whose data was left out).
  std::uint64_t above = min_left_out;
  /// Leave out the large values of the top graph's Constant nodes too (exported models often hold their
  /// weights there). Only for a reader: put_back gives back initializers' weights only.
  bool constants = false;
};

/// `file` may be a mapping: a file that shrinks while it is walked is error(io) naming `name`.
[[nodiscard]] skimmed_model skim(std::span<const std::byte> file, const std::string& name, skim_options options = {});

/// The model `skimmed` (a ModelProto serialised by protobuf from a parse of skim's bytes, edited, its top
/// graph's first initializers the same ones) with each raw_data left out put back into its initializer,
/// copied from `file` (the bytes skim walked), where protobuf would have written it: the bytes a parse and
/// a serialisation of the whole file would give. error(io) naming `name` when `file` is a mapping of a
/// file that shrank; error(unsupported) when `skimmed` is not such a model (a bug).
[[nodiscard]] std::string put_back(std::span<const std::byte> skimmed, std::span<const std::byte> file,
                                   const std::unordered_map<std::size_t, left_out_field>& left_out,
                                   const std::string& name);

}  // namespace reshape1::onnx::detail

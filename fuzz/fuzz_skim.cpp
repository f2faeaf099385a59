// Fuzz target: the skimmed parse of an ONNX file (src/onnx/skim.hpp), raw_data left out from 8 bytes on
// (the reader leaves out only from 64 KiB, beyond what these inputs reach). Whatever the bytes: protobuf
// parses the skimmed bytes exactly when it parses the file; each raw_data left out is the one protobuf
// keeps, at the offset given; and the skimmed model, serialised by protobuf and given its weights back by
// put_back, parses to the very message the file parses to. With Constant nodes' values left out too (what
// the reader parses), the same without put_back.
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <span>
#include <string>

#include "fuzz_input.hpp"
#include "onnx/skim.hpp"
#include "reshape1/error.hpp"

namespace {

namespace fuzz = reshape1::fuzz;
namespace skim = reshape1::onnx::detail;

/// The reader's skim, Constant nodes' values left out too: protobuf parses it exactly when it parses the
/// file, and to the same message once the raw_data left out (each the one protobuf keeps, of a Constant
/// node of the default domain) is cleared from the file's.
void constants_left_out(const std::uint8_t* data, std::size_t size) {
  const auto s = skim::skim(std::as_bytes(std::span(data, size)), "fuzz input",
                            {.any_share = true, .above = 8, .constants = true});
  if (s.bytes.empty()) return;
  ::onnx::ModelProto whole, skimmed;
  const bool whole_parses = whole.ParseFromArray(data, static_cast<int>(size));
  if (whole_parses != skimmed.ParseFromString(s.bytes)) fuzz::invariant_broken("skim constants: one of the two parses");
  if (!whole_parses) return;
  for (const auto& [at, field] : s.constants_left_out) {
    const auto [node, attribute] = at;
    if (node >= static_cast<std::size_t>(whole.graph().node_size()) ||
        attribute >= static_cast<std::size_t>(whole.graph().node(static_cast<int>(node)).attribute_size()))
      fuzz::invariant_broken("skim constants: a value left out that the graph does not hold");
    auto* n = whole.mutable_graph()->mutable_node(static_cast<int>(node));
    if (n->op_type() != "Constant" || !(n->domain().empty() || n->domain() == "ai.onnx"))
      fuzz::invariant_broken("skim constants: a value left out of a node that is not a Constant");
    auto* t = n->mutable_attribute(static_cast<int>(attribute))->mutable_t();
    if (t->raw_data().size() != field.length || field.offset + field.length > size ||
        std::memcmp(t->raw_data().data(), data + field.offset, field.length) != 0)
      fuzz::invariant_broken("skim constants: a raw_data left out is not the one protobuf keeps");
    t->clear_raw_data();
  }
  for (const auto& [index, field] : s.left_out)
    if (index < static_cast<std::size_t>(whole.graph().initializer_size()))
      whole.mutable_graph()->mutable_initializer(static_cast<int>(index))->clear_raw_data();
  google::protobuf::util::DefaultFieldComparator floats;
  floats.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer same;
  same.set_field_comparator(&floats);
  if (!same.Compare(skimmed, whole)) fuzz::invariant_broken("skim constants: not the message the file parses to");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constants_left_out(data, size);
  const auto bytes = std::as_bytes(std::span(data, size));
  const auto s = skim::skim(bytes, "fuzz input", {.any_share = true, .above = 8});
  if (s.bytes.empty()) {
    if (!s.left_out.empty()) fuzz::invariant_broken("skim: weights left out of nothing");
    return 0;
  }
  ::onnx::ModelProto whole, skimmed;
  const bool whole_parses = whole.ParseFromArray(data, static_cast<int>(size));
  const bool skimmed_parses = skimmed.ParseFromString(s.bytes);
  if (whole_parses != skimmed_parses) fuzz::invariant_broken("skim: protobuf parses one of the two only");
  if (!whole_parses) return 0;
  for (const auto& [index, field] : s.left_out) {
    if (index >= static_cast<std::size_t>(whole.graph().initializer_size()) ||
        index >= static_cast<std::size_t>(skimmed.graph().initializer_size()))
      fuzz::invariant_broken("skim: an initializer left out that the graph does not hold");
    const auto& t = whole.graph().initializer(static_cast<int>(index));
    if (skimmed.graph().initializer(static_cast<int>(index)).has_raw_data())
      fuzz::invariant_broken("skim: a tensor left out keeps raw_data");
    if (t.raw_data().size() != field.length || field.offset + field.length > size ||
        std::memcmp(t.raw_data().data(), data + field.offset, field.length) != 0)
      fuzz::invariant_broken("skim: a raw_data left out is not the one protobuf keeps");
  }
  std::string back;
  try {
    const auto serialised = skimmed.SerializeAsString();
    back = skim::put_back(std::as_bytes(std::span(serialised)), bytes, s.left_out, "m.onnx");
  } catch (const reshape1::error&) {
    fuzz::invariant_broken("put_back: refused a model protobuf wrote");
  }
  ::onnx::ModelProto restored;
  if (!restored.ParseFromString(back)) fuzz::invariant_broken("put_back: protobuf cannot parse its bytes");
  // Floats compare with ==, and a NaN in float_data is the same bits on both sides yet not equal to itself.
  google::protobuf::util::DefaultFieldComparator floats;
  floats.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer same;
  same.set_field_comparator(&floats);
  if (!same.Compare(restored, whole)) fuzz::invariant_broken("put_back: not the message the file parses to");
  if (restored.SerializeAsString() != back) fuzz::invariant_broken("put_back: not where protobuf writes raw_data");
  return 0;
}

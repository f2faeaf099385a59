// The shared ONNX models (when ../shared is beside the checkout, always in CI): their reports pinned, their
// other dynamic dimensions given sizes, and what reshape1 propagates held against ONNX's own shape inference.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "../onnx_test_util.hpp"
#include "reshape1/model/batch.hpp"
#include "reshape1/model/check.hpp"
#include "reshape1/onnx.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

// ---- the shared ONNX models ------------------------------------------------------------------------

const fs::path shared = fs::path(RESHAPE1_SOURCE_DIR) / ".." / "shared" / "onnx-models";

fs::path shared_model(const std::string& folder) {
  for (const auto& e : fs::directory_iterator(shared / folder))
    if (e.path().extension() == ".onnx") return e.path();
  return {};
}

struct shared_expected {
  const char* folder;
  const char* check;  ///< model::check's counts: reshapes, reshape errors, not covered, rule errors
  model::batch_verdict verdict;
  const char* findings;
};

class shared_models : public ::testing::TestWithParam<shared_expected> {};

TEST_P(shared_models, pinned_reports) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto& e = GetParam();
  const auto g = onnx::read(shared_model(e.folder));
  const auto c = model::check(g);
  EXPECT_EQ(fmt::format("{} reshapes, {} errors, {} not covered, {} rule errors, {} mismatches", c.summary.reshapes.count,
                        c.summary.reshapes.errors, c.summary.layers.not_covered, c.summary.layers.rule_errors,
                        c.summary.layers.shape_mismatches),
            e.check);
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(r.summary.verdict(), e.verdict) << r.summary_line();
  EXPECT_EQ(listed(r), e.findings);
}

INSTANTIATE_TEST_SUITE_P(
    onnx, shared_models,
    ::testing::Values(
        shared_expected{"ultraface-rfb-320-simplified-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::no,
                        "swallows_batch 328, swallows_batch 342, swallows_batch 374, swallows_batch 388, "
                        "swallows_batch 414, swallows_batch 428, swallows_batch 446, swallows_batch 458"},
        shared_expected{"ultraface-rfb-320-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"dtln-model1-audio-lstm-opset11", "0 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"paddleocr-v4-rec-opset9", "9 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"silero-vad-v4-if-lstm-opset16", "2 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"faceplugin-age-ssrnet-opset9", "6 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""},
        shared_expected{"faceplugin-headpose-shufflenetv2-opset9",
                        "32 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches", model::batch_verdict::no,
                        "fails Reshape_13"},
        shared_expected{"faceplugin-landmark-flatten-opset9", "1 reshapes, 0 errors, 0 not covered, 0 rule errors, 0 mismatches",
                        model::batch_verdict::yes, ""}),
    [](const auto& p) {
      std::string n = p.param.folder;
      for (auto& ch : n)
        if (ch == '-' || ch == '.') ch = '_';
      return n;
    });

// A dynamic dimension besides the batch (Silero's audio chunk, PaddleOCR's line width) is a size apart from
// the batch: where the sample batches follow it (Silero: a Reshape's -1 over it, the sequence length its LSTM
// reads through a Shape) the batch is decided with it dynamic, as ONNX Runtime confirms (ort_agreement runs
// Silero's and PaddleOCR's fixed files at 1, 2 and 4). A Flatten to [N·8·L,L] has a product the sample
// batches do not know: given a size, the answer is ONNX Runtime's.
TEST(onnx, other_dynamic_dimensions_given_a_size) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto dynamic = model::check_batch(onnx::read(shared_model("silero-vad-v4-if-lstm-opset16")), {.batch = dimension(4)});
  EXPECT_EQ(dynamic.summary.verdict(), model::batch_verdict::yes) << dynamic.summary_line();
  // PaddleOCR's text width is such a size too: its opset-9 Softmax normalises [N,8,L,L] along the last axis,
  // each row apart (the 2-D coercion's rows are independent: reshape1 keeps the leading dimensions).
  const auto ocr_dynamic = model::check_batch(onnx::read(shared_model("paddleocr-v4-rec-opset9")), {.batch = dimension(4)});
  EXPECT_EQ(ocr_dynamic.summary.verdict(), model::batch_verdict::yes) << ocr_dynamic.summary_line();
  // A Flatten past such a size leaves both output dimensions unknown at the samples: the hint asks for sizes
  // (it suggested vouching for Reshape, which decides nothing); the library spells the option as Python
  // does, the command line as --shape.
  const auto r = model::check_batch(read_fixture("flatten_past_size"), {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].name, "flatten");
  EXPECT_EQ(r.findings[0].hint,
            "the shapes here follow the inputs' other dynamic dimensions ('x' [4,8,?@L,?@L]): give them sizes with shapes");
  EXPECT_EQ(model::check_batch(read_fixture("flatten_past_size"), {.shapes = {{"x", parse_shape("[4,8,5,5]")}}})
                .summary.verdict(),
            model::batch_verdict::yes);
  const auto silero = onnx::read(shared_model("silero-vad-v4-if-lstm-opset16"));
  const auto given = model::check_batch(silero, {.shapes = {{"input", parse_shape("[4,512]")},
                                                        {"h", parse_shape("[2,4,64]")},
                                                        {"c", parse_shape("[2,4,64]")}}});
  EXPECT_EQ(given.summary.verdict(), model::batch_verdict::yes) << given.summary_line();
  // h and c hold the dim_param `batch` at axis 1, as input's axis 0 does: that is their batch axis. The
  // sample rate sr is a scalar: no batch.
  for (const auto& in : given.inputs) {
    const std::optional<std::size_t> want = in.name == "sr" ? std::nullopt
                                            : in.name == "input" ? std::optional<std::size_t>(0)
                                                                 : std::optional<std::size_t>(1);
    EXPECT_EQ(in.batch_index, want) << in.name;
  }
  const auto ocr = onnx::read(shared_model("paddleocr-v4-rec-opset9"));
  const auto o = model::check_batch(ocr, {.shapes = {{"x", parse_shape("[4,3,48,320]")}}});
  EXPECT_EQ(o.summary.verdict(), model::batch_verdict::yes) << o.summary_line();
}

// ---- against ONNX's own shape inference -------------------------------------------------------------
// ONNX's InferShapes (1.12, opsets up to 17) writes the shapes it infers into value_info; reshape1 then
// compares each with what it propagates, as it compares an IR's declared shapes. A shape_mismatch would
// be a disagreement between the two; none is allowed. reshape1 may know more (ONNX 1.12 gives the
// simplified UltraFace's Reshapes [1,?,2]): only the reverse, ONNX static where reshape1 has an interval,
// is counted (refinable), and pinned.

struct inferred_expected {
  const char* folder;
  int inferred;  ///< value_info entries InferShapes adds (the simplified UltraFace declares them all already)
  std::size_t refinable;
};

class against_onnx_inference : public ::testing::TestWithParam<inferred_expected> {};

TEST_P(against_onnx_inference, no_shape_disagrees) {
  if (!fs::exists(shared)) GTEST_SKIP() << "../shared is not beside the checkout";
  const auto& e = GetParam();
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(slurp(shared_model(e.folder))));
  const auto declared_before = m.graph().value_info_size();
  ::onnx::shape_inference::InferShapes(m);
  EXPECT_EQ(m.graph().value_info_size() - declared_before, e.inferred);
  const auto g = read_bytes(m.SerializeAsString(), e.folder);
  const auto report = model::check(g);
  EXPECT_EQ(report.summary.layers.shape_mismatches, 0u);
  EXPECT_EQ(report.summary.layers.refinable, e.refinable);
  for (const auto& f : report.layers)
    if (f.issue == model::layer_issue::shape_mismatch)
      ADD_FAILURE() << f.name << " (" << f.type << "): ONNX " << to_string(f.declared) << ", reshape1 "
                    << to_string(f.propagated);
}

INSTANTIATE_TEST_SUITE_P(onnx, against_onnx_inference,
                         ::testing::Values(inferred_expected{"ultraface-rfb-320-simplified-opset9", 0, 0},
                                           inferred_expected{"ultraface-rfb-320-opset9", 240, 0},
                                           inferred_expected{"dtln-model1-audio-lstm-opset11", 38, 0},
                                           inferred_expected{"paddleocr-v4-rec-opset9", 764, 0},
                                           inferred_expected{"silero-vad-v4-if-lstm-opset16", 1, 0},
                                           inferred_expected{"faceplugin-age-ssrnet-opset9", 132, 0},
                                           inferred_expected{"faceplugin-headpose-shufflenetv2-opset9", 217, 0},
                                           inferred_expected{"faceplugin-landmark-flatten-opset9", 78, 0}),
                         [](const auto& p) {
                           std::string n = p.param.folder;
                           for (auto& ch : n)
                             if (ch == '-' || ch == '.') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace reshape1::test

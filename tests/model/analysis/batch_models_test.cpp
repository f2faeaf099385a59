// check_batch on real models: the two shipped with the tests always, the 17 shared ones when ../shared is
// beside the checkout (always in CI). Each report at batch 4 and at a dynamic batch is pinned, with what in
// the model's XML explains it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "../ir_builder.hpp"
#include "reshape1/model/batch.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

std::string listed_with_codes(const model::batch_report& r) {
  std::string s;
  for (const auto& f : r.findings) {
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", model::name(f.issue), f.id);
    // Every finding says why as a code; a reason other than an error names what it is about.
    EXPECT_FALSE(f.code.empty()) << f.what;
  }
  return s;
}


/// The findings at batch 4 and at batch ? (the same unless `at_dynamic` is given), and the summary line at 4.
void expect_report(const fs::path& xml, const std::string& findings, const std::string& line,
                   const char* at_dynamic = nullptr) {
  SCOPED_TRACE(xml.string());
  const auto g = model::read_ir(xml, fs::path(xml).replace_extension(".bin"));
  const auto at4 = model::check_batch(g, {.batch = dimension(4)});
  EXPECT_EQ(listed_with_codes(at4), findings);
  EXPECT_EQ(at4.summary_line(), line);
  EXPECT_EQ(at4.summary.failing_at_declared, 0u);
  const auto dynamic = model::check_batch(g, {.batch = dimension()});
  EXPECT_EQ(listed_with_codes(dynamic), at_dynamic != nullptr ? std::string(at_dynamic) : findings);
  // Every input got the new batch at the index the report names.
  for (const auto& in : at4.inputs)
    if (in.batch_index) {
      EXPECT_EQ(in.requested[*in.batch_index].range(), interval(4));
    }
}

#define SHARED(test, path, findings, line, ...)           \
  TEST(batch_models, test) {                             \
    const auto xml = shared_model(path);                 \
    if (xml.empty()) GTEST_SKIP() << "no shared models"; \
    expect_report(xml, findings, line __VA_OPT__(, ) __VA_ARGS__); \
  }

// Shipped with the tests: SSD heads that end in DetectionOutput. Its output [1,1,200,7] holds keep_top_k
// (200) detections per image: at batch N it is [1,1,N·200,7], data-dependent post-processing that grows
// with the batch, not a fault.
TEST(batch_models, face_detection_0200_shipped) {
  expect_report(fs::path(RESHAPE1_TEST_DATA) / "ir-models" / "face-detection-0200" / "face-detection-0200.xml",
                "scales_with_batch 1144", "reshapes to batch 4: yes (1 output grows with the batch, as post-processing does)");
}
// face-detection-retail-0005: the two flattens before DetectionOutput, Reshapes 267 ('525', [1,-1] on the
// [1,19,19,36] box predictions) and 280 ('496', [1,-1] on the [1,19,19,18] class scores), write the batch 1
// as a constant: at batch 4 the -1 takes all four images into one row, N·12996 and N·6498, and
// DetectionOutput reads them as one image. 282 and 285 come after 280 and keep what it folded.
TEST(batch_models, face_detection_retail_0005_shipped) {
  expect_report(fs::path(RESHAPE1_TEST_DATA) / "ir-models" / "face-detection-retail-0005" / "other.xml",
                "swallows_batch 267, swallows_batch 280", "reshapes to batch 4: no: 2 Reshapes swallow the batch");
}

// A plain CNN: Flatten through a Reshape whose pattern ShapeOf computes; follows the batch.
SHARED(keras_mnist_cnn, "keras-mnist-cnn-mo2021.4/mnist.xml", "", "reshapes to batch 4: yes")
// The six Reshapes named Transpose_* turn the LSTM states [1,N,C] into [N,1,C] with the pattern [-1,1,0]:
// the 1 sits where the batch was, but the -1 takes exactly the batch, which keeps its meaning.
SHARED(lstm_gesture, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", "", "reshapes to batch 4: yes")
// The palm detector's four head Reshapes (776 '265', 787 '234', 801 '270', 812 '238') flatten the
// classifier and regressor maps with [1,-1,1] / [1,-1,18]: the constant 1 replaces the batch and the -1
// takes N·1152 or N·864 anchors; the Concats then make [1,N·2016,...] outputs in which images are mixed.
SHARED(mediapipe_hand_detector, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml",
       "swallows_batch 812, swallows_batch 787, swallows_batch 776, swallows_batch 801",
       "reshapes to batch 4: no: 4 Reshapes swallow the batch")
SHARED(face_detection_0200, "omz-face-detection-0200/face-detection-0200.xml", "scales_with_batch 1144",
       "reshapes to batch 4: yes (1 output grows with the batch, as post-processing does)")
// The same SSD structure as face-detection-0200 (DetectionOutput 476, keep_top_k 200), with flattens
// that copy the batch (pattern [0,-1], special_zero=true).
SHARED(face_detection_adas_0001, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml",
       "scales_with_batch 476", "reshapes to batch 4: yes (1 output grows with the batch, as post-processing does)")
SHARED(head_pose_estimation_adas_0001,
       "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", "",
       "reshapes to batch 4: yes")
SHARED(landmarks_regression_retail_0009,
       "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", "",
       "reshapes to batch 4: yes")
// Two inputs: data [1,3,24,94] and seq_ind [88,1], whose batch is its dimension 1 (88 is the sequence).
// With no layout in the model, dimension 0 is taken for both: seq_ind becomes [4,1] and CTCGreedyDecoder
// 99 refuses a mask of 4 steps for 88; `--layout seq_ind=TN` is the fix (tested below).
SHARED(license_plate_recognition_barrier_0001,
       "omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml", "fails 99",
       "reshapes to batch 4: no: 1 layer fails")
// SSD-style heads without DetectionOutput: every output keeps the batch in dimension 0.
SHARED(person_detection_action_recognition_0005,
       "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml", "",
       "reshapes to batch 4: yes")
SHARED(person_reidentification_retail_0288,
       "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", "",
       "reshapes to batch 4: yes")
// Each of its five detection levels has three heads that pass through Gather(indices=0, axis=0) before the
// post-processing (among them Gather_636 (532), Gather_646 (641) and Gather_656 (594), the boxes, scores and
// classes of one level): at batch N only image 0 reaches NonMaxSuppression. The outputs' sizes do not follow
// the batch, which hid it (this model said "yes" before the batching rules).
SHARED(person_vehicle_bike_detection_2004,
       "omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml",
       "drops_samples 1463, drops_samples 1510, drops_samples 1411, drops_samples 1942, drops_samples 1895, "
       "drops_samples 1843, drops_samples 2275, drops_samples 2327, drops_samples 2374, drops_samples 979, "
       "drops_samples 1078, drops_samples 1031, drops_samples 641, drops_samples 594, drops_samples 532",
       "reshapes to batch 4: no: 15 layers drop samples",
       // At ?, the run over every batch does not know the FPN upsample's sizes exactly, so Resize_177 cannot
       // show they are batch 1's at every batch: the six Gathers after it are not decided (still no).
       "drops_samples 1463, drops_samples 1510, drops_samples 1411, drops_samples 1942, drops_samples 1895, "
       "drops_samples 1843, drops_samples 2275, drops_samples 2327, drops_samples 2374")
SHARED(road_segmentation_adas_0001, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml", "",
       "reshapes to batch 4: yes")
SHARED(single_image_super_resolution_1033,
       "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml", "",
       "reshapes to batch 4: yes")
SHARED(synet_face_detection_retail_0005, "synet-face-detection-retail-0005/other.xml",
       "swallows_batch 267, swallows_batch 280", "reshapes to batch 4: no: 2 Reshapes swallow the batch")
// YOLO11n: the attention block's Reshape 523 hard-codes [1,2,128,400] and fails at batch 4; the head's
// three Reshapes 863/1034/1277 ([1,144,-1]) keep 1 where the batch was and the -1 takes N·6400, N·1600,
// N·400; the DFL Reshape 1283 ([1,4,16,8400]) then fails on [1,64,N·8400], and the final Concat 1313 on
// 8400 against N·8400. Everything after a failing layer is unknown and not checked.
SHARED(yolo11n, "yolo11n-int8-ov2025.2/yolo11n.xml",
       "fails 523, swallows_batch 863, swallows_batch 1034, swallows_batch 1277, fails 1283, fails 1313",
       "reshapes to batch 4: no: 3 layers fail, 3 Reshapes swallow the batch")
// YOLOv8n at 320x320 (OpenVINO 2025.4 export): the same head as YOLO11n without the attention block.
SHARED(yolov8n_320, "yolov8n-int8-320-ov2025.4/yolov8n.xml",
       "swallows_batch 612, swallows_batch 751, swallows_batch 890, fails 896, fails 926",
       "reshapes to batch 4: no: 2 layers fail, 3 Reshapes swallow the batch")
// YOLOv8n through ONNX (2024.1): the same, with special_zero=true patterns.
SHARED(yolov8n_onnx, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml",
       "swallows_batch 608, swallows_batch 746, swallows_batch 884, fails 890, fails 932",
       "reshapes to batch 4: no: 2 layers fail, 3 Reshapes swallow the batch")

// Without a layout its failure rests on a guess (seq_ind's dimension 0, 88, where the image has 1): the
// finding says so, and names the layout that the answer below proves.
TEST(batch_models, license_plate_says_its_batch_index_was_guessed) {
  const auto xml = shared_model("omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  const auto g = model::read_ir(xml, fs::path(xml).replace_extension(".bin"));
  const auto r = model::check_batch(g, {.batch = dimension(4)});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(r.findings[0].hint.starts_with(
      "input 'seq_ind' (id 0) has 88 at dimension 0, taken as its batch for want of a layout, where the other inputs "
      "have 1: if its batch is dimension 1, say so with layouts['seq_ind']=[?,N]; "))
      << r.findings[0].hint;
  // A model whose inputs agree gets no such hint.
  const auto retail = model::read_ir(shared_model("synet-face-detection-retail-0005/other.xml"),
                                     fs::path(shared_model("synet-face-detection-retail-0005/other.xml")).replace_extension(".bin"));
  for (const auto& f : model::check_batch(retail, {.batch = dimension(4)}).findings)
    EXPECT_EQ(f.hint.find("for want of a layout"), std::string::npos) << f.hint;
}

TEST(batch_models, license_plate_with_its_layout) {
  const auto xml = shared_model("omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml");
  if (xml.empty()) GTEST_SKIP() << "no shared models";
  const auto g = model::read_ir(xml, fs::path(xml).replace_extension(".bin"));
  for (const auto* layout : {"TN", "[?,N]"}) {
    const auto with = model::check_batch(g, {.batch = dimension(4), .layouts = {{"seq_ind", layout}}});
    EXPECT_EQ(listed_with_codes(with), "") << layout;
  }
  const auto r = model::check_batch(g, {.batch = dimension(4), .layouts = {{"seq_ind", "TN"}}});
  EXPECT_EQ(listed_with_codes(r), "");
  EXPECT_EQ(to_string(r.inputs.at(0).requested), "[88,4]");
  EXPECT_EQ(to_string(r.outputs.at(0).reshaped), "[4,88,1,1]");
}

}  // namespace
}  // namespace reshape1::test

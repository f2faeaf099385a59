// The self-check on real models: every layer of each of the 17 shared models (and the two shipped with
// the tests) is propagated by a rule, and no propagated output disagrees with the declared one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "ir_builder.hpp"
#include "reshape1/model/check.hpp"

namespace reshape1::test {
namespace {

namespace fs = std::filesystem;

void expect_self_consistent(const fs::path& xml, std::size_t layers) {
  SCOPED_TRACE(xml.string());
  const auto g = model::read_ir(xml, fs::path(xml).replace_extension(".bin"));
  const auto r = model::check(g);
  EXPECT_EQ(r.summary.layers.count, layers);
  EXPECT_EQ(r.summary.layers.propagated, layers);  // every output of every layer has a known rank
  EXPECT_EQ(r.summary.layers.not_covered, 0u);
  EXPECT_EQ(r.summary.layers.rule_errors, 0u);
  EXPECT_EQ(r.summary.layers.shape_mismatches, 0u);
  for (const auto& f : r.layers)
    ADD_FAILURE() << model::name(f.issue) << ": layer " << f.id << " '" << f.name << "' " << f.type << "-" << f.opset
                  << " port " << f.port << ": declared " << to_string(f.declared) << ", propagated "
                  << to_string(f.propagated) << " " << f.message;
}


#define SHARED_MODEL(test, path, layers)                 \
  TEST(shared_models, test) {                            \
    const auto xml = shared_model(path);                 \
    if (xml.empty()) GTEST_SKIP() << "no shared models"; \
    expect_self_consistent(xml, layers);                 \
  }

SHARED_MODEL(keras_mnist_cnn, "keras-mnist-cnn-mo2021.4/mnist.xml", 33)
SHARED_MODEL(lstm_gesture, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", 120)
SHARED_MODEL(mediapipe_hand_detector, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml", 815)
SHARED_MODEL(face_detection_0200, "omz-face-detection-0200/face-detection-0200.xml", 1146)
SHARED_MODEL(face_detection_adas_0001, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", 478)
SHARED_MODEL(head_pose_estimation_adas_0001,
             "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", 202)
SHARED_MODEL(landmarks_regression_retail_0009,
             "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", 168)
SHARED_MODEL(license_plate_recognition_barrier_0001,
             "omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml", 101)
SHARED_MODEL(person_detection_action_recognition_0005,
             "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml", 1958)
SHARED_MODEL(person_reidentification_retail_0288,
             "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", 1174)
SHARED_MODEL(person_vehicle_bike_detection_2004,
             "omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml", 2743)
SHARED_MODEL(road_segmentation_adas_0001, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml",
             786)
SHARED_MODEL(single_image_super_resolution_1033,
             "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml", 123)
SHARED_MODEL(synet_face_detection_retail_0005, "synet-face-detection-retail-0005/other.xml", 305)
SHARED_MODEL(yolo11n, "yolo11n-int8-ov2025.2/yolo11n.xml", 1315)
SHARED_MODEL(yolov8n_320, "yolov8n-int8-320-ov2025.4/yolov8n.xml", 928)
SHARED_MODEL(yolov8n_onnx, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml", 934)

TEST(shipped_models, face_detection_0200) {
  expect_self_consistent(fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-0200/face-detection-0200.xml", 1146);
}

TEST(shipped_models, face_detection_retail_0005) {
  expect_self_consistent(fs::path(RESHAPE1_TEST_DATA) / "ir-models/face-detection-retail-0005/other.xml", 305);
}

TEST(shipped_models, every_pair_in_the_models_has_a_rule) {
  // The 59 (type, opset) pairs of the shared models.
  const std::pair<const char*, int> pairs[] = {
      {"Add", 1}, {"AvgPool", 1}, {"Broadcast", 3}, {"CTCGreedyDecoder", 1}, {"Clamp", 1}, {"Concat", 1},
      {"Const", 1}, {"Convert", 1}, {"Convolution", 1}, {"DetectionOutput", 1}, {"Divide", 1}, {"Equal", 1},
      {"Exp", 1}, {"FakeQuantize", 1}, {"Gather", 1}, {"Gather", 8}, {"Greater", 1}, {"GroupConvolution", 1},
      {"Interpolate", 4}, {"Interpolate", 11}, {"LSTMSequence", 5}, {"MVN", 6}, {"MatMul", 1}, {"MaxPool", 1},
      {"MaxPool", 8}, {"MaxPool", 14}, {"Mod", 1}, {"Multiply", 1}, {"NonMaxSuppression", 9}, {"NonZero", 3},
      {"NormalizeL2", 1}, {"PReLU", 1}, {"Pad", 1}, {"Parameter", 1}, {"PriorBox", 1}, {"PriorBoxClustered", 1},
      {"ReLU", 1}, {"ReduceMax", 1}, {"ReduceMean", 1}, {"ReduceMin", 1}, {"ReduceProd", 1}, {"Reshape", 1},
      {"Result", 1}, {"ScatterUpdate", 3}, {"Select", 1}, {"ShapeOf", 1}, {"ShapeOf", 3}, {"Sigmoid", 1},
      {"SoftMax", 1}, {"SoftMax", 8}, {"Squeeze", 1}, {"StridedSlice", 1}, {"Subtract", 1}, {"Swish", 4},
      {"Tile", 1}, {"TopK", 3}, {"Transpose", 1}, {"Unsqueeze", 1}, {"VariadicSplit", 1}};
  EXPECT_EQ(std::size(pairs), 59u);
  for (const auto& [type, opset] : pairs) EXPECT_TRUE(model::covered(type, opset)) << type << "-" << opset;
  EXPECT_FALSE(model::covered("Reshape", 2));
  EXPECT_FALSE(model::covered("If", 8));
}

}  // namespace
}  // namespace reshape1::test

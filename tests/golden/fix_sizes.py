#!/usr/bin/env python3
"""`fix --shape` on every shared model with its sizes free (H and W of an image, the length of a sequence),
pinned, each outcome explained from the graph.

For each case below: reshape1's report (`fix MODEL --shape ... --dry-run`: nothing is written) is compared
with tests/golden/fix_sizes/<model>.txt, and its outcome (fixed, with how many rewrites, or refused) with
the one the table pins, whose comment says why. A "fixed" case that rewrites patterns is run by ONNX Runtime
where tests/onnx/torch_sizes.py has its truth; here the report is what is pinned: a refusal must keep naming
what stops it.

    fix_sizes.py RESHAPE1 [--write]
"""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
EXPECTED = pathlib.Path(__file__).resolve().parent / "fix_sizes"
IR, ONNX = "ir-models", "onnx-models"

# (folder, model file, --shape arguments, outcome, rewrites)
CASES = [
    # A Keras Flatten [-1,576] before a Dense of 576 inputs: no pattern keeps the Dense's weights; and at ? the
    # first convolution's window is larger than the smallest member (1).
    (IR, "keras-mnist-cnn-mo2021.4/mnist.xml", ["conv2d_input=[1,1,?,?]"], "refused", 0),
    # Three LSTMSequences whose states and lengths come from ShapeOf: nothing baked, the length is freed.
    (IR, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", ["input=[1,?,42]"], "fixed", 0),
    # Anchors for a 192x192 input: a Slice of 12 and a constant 24 on the feature maps (the 12x12 and 24x24
    # grids), and a member where the two paths of the FPN meet at 13 and 12: nothing to rewrite them with.
    (IR, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml", ["input_1=[1,?,?,3]"], "refused", 0),
    # Its patterns already copy the batch and infer the rest ([0,-1,...]): nothing baked.
    (IR, "omz-face-detection-0200/face-detection-0200.xml", ["image=[1,3,?,?]"], "fixed", 0),
    # SSD's box count 20224 split into [10112,2] (boxes, classes): no other Reshape keeps one factor.
    (IR, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", ["data=[1,3,?,?]"], "refused", 0),
    # Three flattens of 512 before the angle heads' fully connected layers, whose weights take 512.
    (IR, "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", ["data=[1,3,?,?]"],
     "refused", 0),
    # A convolution whose window (6) is the whole 6x6 map at 48x48 (global pooling written for one size).
    (IR, "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", ["0=[1,3,?,?]"],
     "refused", 0),
    # The plate's width: a flatten of 6248 before a fully connected layer, and the 88 decoding steps baked in
    # a pattern (88 = W/1 at 94: a size that changes has the value).
    (IR, "omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml",
     ["data=[1,3,24,?]"], "refused", 0),
    # Stride-2 pooling on a skip path: the smallest member (1) is below the window.
    (IR, "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml",
     ["data=[1,3,?,?]"], "refused", 0),
    # Attention over 16x2 cells of a 256x128 crop: [1,16,2] patterns whose reading keeps what check names.
    (IR, "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", ["data=[1,3,?,?]"],
     "refused", 0),
    # Detection heads whose -1 takes boxes of several maps at once: no reading groups them by one size.
    (IR, "omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml", ["image=[1,3,?,?]"],
     "refused", 0),
    # Runs at multiples of 32 only (a skip connection meets 128 and 129 at a member): no rewrite divides.
    (IR, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml", ["data=[1,3,?,?]"], "refused", 0),
    # Two inputs, one 4x the other: at ? they are two sizes that need not agree, and the sum of the paths fails.
    (IR, "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml",
     ["1=[1,3,?,?]", "0=[1,3,?,?]"], "refused", 0),
    # Every pattern copies the batch or infers ([0,-1]): nothing baked.
    (IR, "synet-face-detection-retail-0005/other.xml", ["input.1=[1,3,?,?]"], "fixed", 0),
    # The attention's [1,2,64,400] (400 = 20x20 cells) and the anchors' 8400: at ? a view regroups H·W that
    # its reading cannot compute, and the concatenated anchors are baked.
    (IR, "yolo11n-int8-ov2025.2/yolo11n.xml", ["x=[1,3,?,?]"], "refused", 0),
    # The DFL's [1,4,16,2100] and the anchors (2100 at 320x320): as YOLO11n.
    (IR, "yolov8n-int8-320-ov2025.4/yolov8n.xml", ["x=[1,3,?,?]"], "refused", 0),
    (IR, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml", ["images=[1,3,?,?]"], "refused", 0),
    # An audio LSTM over frames: its length is freed, nothing baked.
    (ONNX, "dtln-model1-audio-lstm-opset11/model_1.onnx", ["input_2=[1,?,257]"], "fixed", 0),
    # Slices at fixed positions along the map's height (SSR-Net's stage heads): placed on a size.
    (ONNX, "faceplugin-age-ssrnet-opset9/fr_age.onnx", ["input=[1,3,?,?]"], "refused", 0),
    # ShuffleNetV2's channel shuffles on square maps: at ? H and W are two sizes of one value (28 = 28), so
    # which of them a pattern's 28 copies nothing shows (and `?@S` twice does not reach the maps: the
    # propagation names no size after a strided convolution). Asked at 448x448, one value is one size: every
    # shuffle is computed from its input's shape (32 rewrites; the model written runs there in ONNX Runtime).
    (ONNX, "faceplugin-headpose-shufflenetv2-opset9/fr_pose.onnx", ["input=[1,3,?,?]"], "refused", 0),
    (ONNX, "faceplugin-headpose-shufflenetv2-opset9/fr_pose.onnx", ["input=[1,3,448,448]"], "fixed", 32),
    # A convolution over the whole 4x4 map, then a Gemm of 2048 inputs: the head is for one size.
    (ONNX, "faceplugin-landmark-flatten-opset9/fr_landmark.onnx", ["input=[1,1,?,?]"], "refused", 0),
    # Any width: its reshapes read the shape. An average pool of 2 over a width that the smallest member
    # makes 1 gives 1 column, as ONNX Runtime pools an input shorter than the window (OpenVINO refuses it,
    # and so did reshape1 before it pooled ONNX models as ONNX Runtime does): nothing to rewrite.
    (ONNX, "paddleocr-v4-rec-opset9/ch_PP-OCRv4_rec_infer.onnx", ["x=[?,3,48,?]"], "fixed", 0),
    # Reflect padding of 96 needs at least 97 samples; an If on the length.
    (ONNX, "silero-vad-v4-if-lstm-opset16/silero_vad.onnx", ["input=[?,?]"], "refused", 0),
    # The box heads' patterns are computed from Shape there (their values unknown at ?), and the anchors baked.
    (ONNX, "ultraface-rfb-320-opset9/version-RFB-320.onnx", ["input=[1,3,?,?]"], "refused", 0),
    # The same heads folded to [1,-1,4]: boxes of four maps each, no one reading.
    (ONNX, "ultraface-rfb-320-simplified-opset9/version-RFB-320_simplified.onnx", ["input=[1,3,?,?]"], "refused", 0),
]


def outcome(binary: str, command) -> tuple:
    """('fixed', rewrites) or ('refused', 0), from fix's --json report; ('exit N', 0) for a bad run."""
    p = subprocess.run([binary, *command, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    if p.returncode not in (0, 1):
        return f"exit {p.returncode}", 0
    report = json.loads(p.stdout)
    return ("fixed", len(report["changes"])) if report["fixed"] else ("refused", 0)


def main() -> int:
    binary = sys.argv[1]
    write = "--write" in sys.argv[2:]
    if not SHARED.is_dir():
        print(f"{SHARED} is not there: nothing to check")
        return 77
    texts, failures = {}, []
    for kind, model, args, want, want_rewrites in CASES:
        shown = os.path.relpath(SHARED / kind / model, ROOT)
        command = ["fix", shown, "--dry-run"] + [x for a in args for x in ("--shape", a)]
        p = subprocess.run([binary, *command], capture_output=True, text=True, cwd=ROOT, timeout=900)
        texts.setdefault(model.split("/")[0], []).append(f"$ reshape1 {' '.join(command)}\n[exit {p.returncode}]\n{p.stdout}{p.stderr}")
        got, rewrites = outcome(binary, command)
        if (got, rewrites) != (want, want_rewrites):
            failures.append(f"{model} {' '.join(args)}: fix {got} ({rewrites} rewrites), pinned {want} ({want_rewrites})")
        print(f"{model} {' '.join(args)}: {got}, {rewrites} rewrites")
    for folder, parts in texts.items():
        expected = EXPECTED / f"{folder}.txt"
        text = "\n".join(parts)
        if write:
            expected.write_text(text)
        elif not expected.is_file() or expected.read_text() != text:
            failures.append(f"{folder}: the reports differ from {os.path.relpath(expected, ROOT)} (fix_sizes.py --write rewrites it)")
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} reports, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

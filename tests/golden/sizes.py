#!/usr/bin/env python3
"""`check --shape` on every shared model at two other sizes, pinned, each answer explained from the graph.

For each case below: reshape1's report (text, exit code) is compared with tests/golden/sizes/<model>.txt,
and its answer with the one the table pins, whose comment says why the graph gives it. For the ONNX models,
ONNX Runtime runs a copy with the dims that change freed (onnx_free_batch --free) at the same shapes:
reshape1's "no" must be a model that ONNX Runtime refuses there (the only proof there is without the
model's source; a "yes" or "cannot tell" is no claim about what it computes, which tests/onnx/torch_sizes.py
and the size differential check against the truth). Each ONNX Runtime outcome is pinned too.

    sizes.py RESHAPE1 ONNX_FREE_BATCH [--write]
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
EXPECTED = pathlib.Path(__file__).resolve().parent / "sizes"
SAME = ROOT / "tests" / "onnx" / "ort" / "same.js"
NODE = os.environ.get("RESHAPE1_NODE", "node")

IR, ONNX = "ir-models", "onnx-models"
SR = {"sr": {"shape": [], "type": "int64", "value": 16000}}
# ONNX Runtime runs it where OpenVINO, whose semantics reshape1 computes, refuses a layer (the comment says which).
OPENVINO_REFUSES = "runs; OpenVINO refuses"

# (folder, model file, --shape arguments, reshape1's answer, ONNX Runtime's outcome or None for IR)
CASES = [
    # A Keras Flatten written as Reshape [-1,576] (3*3*64 at 28x28) before the Dense: 10x10x64 at 56x56 and
    # 4x6x64 at 32x40 are no multiple of 576. Dense weights take 576 inputs; no export could keep them.
    (IR, "keras-mnist-cnn-mo2021.4/mnist.xml", ["conv2d_input=[1,1,56,56]"], "no", None),
    (IR, "keras-mnist-cnn-mo2021.4/mnist.xml", ["conv2d_input=[1,1,32,40]"], "no", None),
    # Three LSTMSequence layers whose initial states and lengths are built from ShapeOf (Broadcast, Gather):
    # no constant equals 30 or a product with it.
    (IR, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", ["input=[1,60,42]"], "yes", None),
    (IR, "lstm-gesture-tf2onnx-ir11/gesture_recognition_lstm.xml", ["input=[1,15,42]"], "yes", None),
    # BlazePalm's FPN upsamples with Interpolate to fixed sizes (12x12, 24x24: the 1/16 and 1/8 maps at 192)
    # and adds the result to the lateral map, which at 256 is 16x16: the Add fails.
    (IR, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml", ["input_1=[1,256,256,3]"], "no", None),
    (IR, "mediapipe-hand-detector-tflitefe-ir11/hand_detector.xml", ["input_1=[1,128,320,3]"], "no", None),
    # SSD whose priors come from PriorBoxClustered on the feature maps' shapes: every size is read from a
    # ShapeOf; the box and class Reshapes use 0 and -1.
    (IR, "omz-face-detection-0200/face-detection-0200.xml", ["image=[1,3,512,512]"], "yes", None),
    (IR, "omz-face-detection-0200/face-detection-0200.xml", ["image=[1,3,320,448]"], "yes", None),
    # The class Reshape of the last SSD head, [0,-1,2] on [1,2,3,8] (its 1/128 map, NHWC after a Transpose):
    # its 2 (background/face) equals that map's height at 384x672. At 768x1344 the height becomes 3, so the 2
    # may stand for it: cannot tell (a coincidence; vouch with --assume-constant). At 320x544 that map is
    # 2x4: the height does not change, nothing to ask.
    (IR, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", ["data=[1,3,768,1344]"], "cannot tell", None),
    (IR, "omz-face-detection-adas-0001-fp16-mo2021.2/face-detection-adas-0001.xml", ["data=[1,3,320,544]"], "yes", None),
    # Three fully connected heads, each after Reshape [-1,512] of a [1,128,2,2] map: 5x5 and 2x3 maps are no
    # multiple of 512.
    (IR, "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", ["data=[1,3,120,120]"], "no", None),
    (IR, "omz-head-pose-estimation-adas-0001-fp16-int8-mo2021.1/head-pose-estimation-adas-0001.xml", ["data=[1,3,64,80]"], "no", None),
    # A 6x6 depthwise convolution over the whole 6x6 map (global pooling written as a window): at 96x96 the
    # map is 12x12 and the layer makes 7x7 outputs where it made one; the next layers run on, so no layer
    # fails: cannot tell.
    (IR, "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", ["0=[1,3,96,96]"], "cannot tell", None),
    (IR, "omz-landmarks-regression-retail-0009-fp16-int8/landmarks-regression-retail-0009.xml", ["0=[1,3,64,48]"], "cannot tell", None),
    # LPRNet: a Reshape [-1,6248] (71*1*88 at width 94) feeds a fully connected layer whose result is tiled
    # back over the 88 columns (Tile by the constant 88) and concatenated with the map: at width 188 the
    # Reshape fails (182 columns) and so does the Concat (182 and 88); at height 48 the map keeps 7 rows where
    # it had 1, a Reshape [-1,128] puts them in the first dimension and the Concat fails (7 and 1).
    (IR, "omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml", ["data=[1,3,24,188]"], "no", None),
    (IR, "omz-license-plate-recognition-barrier-0001-fp16/license-plate-recognition-barrier-0001.xml", ["data=[1,3,48,94]"], "no", None),
    # SSD heads with PriorBoxClustered read from ShapeOf and Reshapes with 0 and -1: nothing written for 400x680.
    (IR, "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml", ["data=[1,3,800,1360]"], "yes", None),
    (IR, "omz-person-detection-action-recognition-0005-fp16/person-detection-action-recognition-0005.xml", ["data=[1,3,384,640]"], "yes", None),
    # Re-id: four blocks Reshape their [1,32,16,8] maps with patterns whose 16 is the height at 256x128 (the
    # 1/16 map), and a 16x8 depthwise convolution covers that whole map (global pooling as a window): at
    # 512x256 the map is 32x16, the patterns may stand for its height and the window makes 17x9 outputs where
    # it made one: cannot tell. At 192x96 the map is 12x6 and the 16-high window does not fit: no.
    (IR, "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", ["data=[1,3,512,256]"], "cannot tell", None),
    (IR, "omz-person-reidentification-retail-0288-fp16/person-reidentification-retail-0288.xml", ["data=[1,3,192,96]"], "no", None),
    # A detector whose FPN and head compute their sizes from ShapeOf (so they follow the input), but
    # with many small constants (2, 3, 4: indices, halves, the stride 32) that equal the small maps' sizes
    # at 256x448 (4x7, 2x4): 53 layers where a constant may stand for a size. Coincidences, we believe, but
    # nothing in the graph tells them apart: cannot tell.
    (IR, "omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml", ["image=[1,3,512,896]"], "cannot tell", None),
    (IR, "omz-person-vehicle-bike-detection-2004-fp16/person-vehicle-bike-detection-2004.xml", ["image=[1,3,320,512]"], "cannot tell", None),
    # Fully convolutional segmentation; its Interpolates compute their sizes from ShapeOf: nothing baked.
    (IR, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml", ["data=[1,3,1024,1792]"], "yes", None),
    (IR, "omz-road-segmentation-adas-0001-mo2021.3/road-segmentation-adas-0001.xml", ["data=[1,3,256,448]"], "yes", None),
    # Super-resolution by 3 from input 0 (360x640), added to input 1 (1080x1920) upsampled: the two must
    # keep the ratio 3. 240x426 times 3 is 720x1278, not 720x1280: the Multiply fails. 180x320 and 540x960
    # keep it.
    (IR, "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml", ["1=[1,3,720,1280]", "0=[1,3,240,426]"], "no", None),
    (IR, "omz-single-image-super-resolution-1033-fp16/single-image-super-resolution-1033.xml", ["1=[1,3,540,960]", "0=[1,3,180,320]"], "yes", None),
    # SSD with PriorBoxClustered from ShapeOf: nothing baked.
    (IR, "synet-face-detection-retail-0005/other.xml", ["input.1=[1,3,600,600]"], "yes", None),
    (IR, "synet-face-detection-retail-0005/other.xml", ["input.1=[1,3,320,240]"], "yes", None),
    # YOLO11's attention block views its 20x20 map as [1,2,128,400] (400 = 20*20 baked): at 320 and 480x640
    # the element counts differ: no. (Its head's anchors and strides are baked too: the Concat fails.)
    (IR, "yolo11n-int8-ov2025.2/yolo11n.xml", ["x=[1,3,320,320]"], "no", None),
    (IR, "yolo11n-int8-ov2025.2/yolo11n.xml", ["x=[1,3,480,640]"], "no", None),
    # YOLOv8's DFL views the boxes as [1,4,16,2100] (2100 anchors at 320) and concatenates them with the
    # class scores [.., 2100·k]: at other sizes the anchor count is another (8400 at 640): no.
    (IR, "yolov8n-int8-320-ov2025.4/yolov8n.xml", ["x=[1,3,640,640]"], "no", None),
    (IR, "yolov8n-int8-320-ov2025.4/yolov8n.xml", ["x=[1,3,256,416]"], "no", None),
    (IR, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml", ["images=[1,3,320,320]"], "no", None),
    (IR, "yolov8n-int8-ov2024.1-onnx/yolov8n.xml", ["images=[1,3,480,640]"], "no", None),
    # DTLN: LSTMs over the frames with their states as inputs and no Reshape; no constant equals a frame
    # count: more frames per call keep every layer's meaning.
    (ONNX, "dtln-model1-audio-lstm-opset11/model_1.onnx", ["input_2=[1,4,257]"], "yes", "runs"),
    (ONNX, "dtln-model1-audio-lstm-opset11/model_1.onnx", ["input_2=[1,2,257]"], "yes", "runs"),
    # SSR-Net: a Flatten then Gemm whose weights take 160 features of the 64x64 map (and Pads with all-zero
    # amounts along H, written by the export for SAME padding at 64): the Gemm fails at other sizes. Its 8x8
    # poolings of stride 8 cut a 32x32 map into 4x4 bins, as adaptive pooling exported at 64 would
    # (window_tiles_size: the file cannot tell a fixed 8x8 window from one computed from the size).
    (ONNX, "faceplugin-age-ssrnet-opset9/fr_age.onnx", ["input=[1,3,128,128]"], "no", "fails"),
    (ONNX, "faceplugin-age-ssrnet-opset9/fr_age.onnx", ["input=[1,3,32,48]"], "no", "fails"),
    # ShuffleNetV2's channel shuffle exported as Reshape [1,2,58,28,28]: the 28x28 map at 224 is baked.
    (ONNX, "faceplugin-headpose-shufflenetv2-opset9/fr_pose.onnx", ["input=[1,3,448,448]"], "no", "fails"),
    (ONNX, "faceplugin-headpose-shufflenetv2-opset9/fr_pose.onnx", ["input=[1,3,160,192]"], "no", "fails"),
    # A 4x4 convolution over the whole 4x4 map, then Flatten and Gemm of 512 features: at 128 the Gemm gets
    # 12800; at 48x64 the map is 3x4 and the 4x4 window does not fit.
    (ONNX, "faceplugin-landmark-flatten-opset9/fr_landmark.onnx", ["input=[1,1,128,128]"], "no", "fails"),
    (ONNX, "faceplugin-landmark-flatten-opset9/fr_landmark.onnx", ["input=[1,1,48,64]"], "no", "fails"),
    # PP-OCRv4 rec takes any width (its reshapes read the shape, the width is declared ?); its height 48 is
    # pooled to 1 by an AveragePool (kernel 3x2, strides 3x2, no padding) on a 3-high map: at height 32 the
    # map is 2 high. OpenVINO refuses a window larger than the padded input; ONNX Runtime's output size,
    # (2 - 3) / 3 + 1 with the quotient truncated toward zero, is one row, and reshape1 pools a model from
    # ONNX as ONNX Runtime does, so nothing fails: cannot tell, for the constants that equal a size of the
    # 48-high maps (the 6 of p2o.Div.6, half of 12; Slice ends).
    (ONNX, "paddleocr-v4-rec-opset9/ch_PP-OCRv4_rec_infer.onnx", ["x=[1,3,48,320]"], "yes", "runs"),
    (ONNX, "paddleocr-v4-rec-opset9/ch_PP-OCRv4_rec_infer.onnx", ["x=[1,3,32,320]"], "cannot tell", "runs"),
    # Silero VAD v4 computes its STFT framing from the input's length; its one If tests a dimension of the
    # padded input that is 1 at every length (a squeeze the export wrote as an If); h and c, declared
    # [2,batch,64], follow `batch` to 1.
    (ONNX, "silero-vad-v4-if-lstm-opset16/silero_vad.onnx", ["input=[1,1024]"], "yes", "runs"),
    (ONNX, "silero-vad-v4-if-lstm-opset16/silero_vad.onnx", ["input=[1,256]"], "yes", "runs"),
    # UltraFace: its priors are a constant [1,4420,2] (for 240x320) that the decoding multiplies by the
    # boxes: at 480x640 and 240x240 there are 17640 and 3326 boxes and the Mul fails.
    (ONNX, "ultraface-rfb-320-opset9/version-RFB-320.onnx", ["input=[1,3,480,640]"], "no", "fails"),
    (ONNX, "ultraface-rfb-320-opset9/version-RFB-320.onnx", ["input=[1,3,240,240]"], "no", "fails"),
    # The simplified UltraFace returns the raw boxes (no decoding, no priors): it runs at any size, but its
    # box Reshapes, [1,-1,4] and [1,-1,2] on NHWC maps, hold 4 and 2 that equal halves of the small maps'
    # sizes (8x10 at 240x320 gives 4; 4x5 gives 2): coincidences that change at the new sizes: cannot tell.
    (ONNX, "ultraface-rfb-320-simplified-opset9/version-RFB-320_simplified.onnx", ["input=[1,3,480,640]"], "cannot tell", "runs"),
    (ONNX, "ultraface-rfb-320-simplified-opset9/version-RFB-320_simplified.onnx", ["input=[1,3,240,240]"], "cannot tell", "runs"),
]

ANSWER = {0: "yes", 1: "no", 4: "cannot tell"}


def shapes(args):
    """{input: [dims]} of the --shape arguments."""
    return {a.split("=", 1)[0]: json.loads(a.split("=", 1)[1]) for a in args}


def dims(text):
    return [int(d) if re.fullmatch(r"-?\d+", d) else None for d in text.strip("[]").split(",")] if text != "[]" else []


def main() -> int:
    binary, free = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv[3:]
    if not SHARED.is_dir():
        print(f"{SHARED} is not there: nothing to check")
        return 77
    texts, failures, pairs = {}, [], []
    with tempfile.TemporaryDirectory(prefix="reshape1-sizes-") as tmp:
        tmp = pathlib.Path(tmp)
        for i, (kind, model, args, want, want_ort) in enumerate(CASES):
            path = SHARED / kind / model
            shown = os.path.relpath(path, ROOT)
            command = ["check", shown] + [x for a in args for x in ("--shape", a)]
            p = subprocess.run([binary, *command], capture_output=True, text=True, cwd=ROOT, timeout=600)
            said = ANSWER.get(p.returncode, f"exit {p.returncode}")
            texts.setdefault(model.split("/")[0], []).append(f"$ reshape1 {' '.join(command)}\n[exit {p.returncode}]\n{p.stdout}{p.stderr}")
            if said != want:
                failures.append(f"{model} {' '.join(args)}: reshape1 says {said}, pinned {want}")
            if kind != ONNX:
                continue
            # Free the dims the request changes and run the model there.
            report = json.loads(subprocess.run([binary, *command, "--json"], capture_output=True, text=True,
                                               cwd=ROOT, timeout=600).stdout)
            asked = shapes(args)
            feeds, freeing = {}, []
            for entry in report["inputs"]:
                name = entry["name"]
                declared = dims(entry["declared"])
                at = asked.get(name, declared)
                for k, (d, a) in enumerate(zip(declared, at)):
                    if d != a:
                        freeing += ["--free", f"{name}={k}"]
                feeds[name] = SR[name] if name in SR else [1 if a is None else a for a in at]
            freed = tmp / f"{i}.onnx"
            subprocess.run([free, str(path), str(freed), *freeing], check=True)
            spec = tmp / f"{i}.json"
            spec.write_text(json.dumps({"inputs": feeds, "seed": 1}))
            pairs.append((i, [str(freed), None, str(spec)]))
        if pairs:
            listing = tmp / "pairs.json"
            listing.write_text(json.dumps([p for _, p in pairs]))
            p = subprocess.run([NODE, str(SAME), "--many", str(listing)], capture_output=True, text=True, timeout=900)
            if p.returncode != 0:
                print(p.stdout + p.stderr)
                return 1
            for (i, _), line in zip(pairs, p.stdout.splitlines()):
                kind, model, args, want, want_ort = CASES[i]
                got = json.loads(line)
                print(f"{model} {' '.join(args)}: reshape1 {want}, ONNX Runtime {got['outcome']} {got['detail'][:120]}")
                if got["outcome"] != want_ort.split(";")[0]:
                    failures.append(f"{model} {' '.join(args)}: ONNX Runtime {got['outcome']}, pinned {want_ort}: {got['detail']}")
                if want == "no" and got["outcome"] != "fails" and want_ort != OPENVINO_REFUSES:
                    failures.append(f"{model} {' '.join(args)}: reshape1 says no where ONNX Runtime runs it")
    for folder, parts in texts.items():
        expected = EXPECTED / f"{folder}.txt"
        text = "\n".join(parts)
        if write:
            expected.write_text(text)
        elif not expected.is_file() or expected.read_text() != text:
            failures.append(f"{folder}: the reports differ from {os.path.relpath(expected, ROOT)} (sizes.py --write rewrites it)")
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} reports, {len(pairs)} run by ONNX Runtime, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

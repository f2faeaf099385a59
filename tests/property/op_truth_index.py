"""Per-op truth, more families (loaded by op_truth.py's main()): indexing, scattering, Range, Trilu,
ConstantOfShape, Shape and Size, Resize and Upsample, RoiAlign, QuantizeLinear and DequantizeLinear, Cast, the
windows, Det and the random generators, each a single-node model whose value operands (indices, axes, shapes,
sizes, scales, k, ranges) are initializers, run by ONNX Runtime and by `reshape1 shapes --json` as op_truth.py
says. Only shapes are compared (the random ops' values are random)."""
import struct

import op_truth as T
from op_truth import (BOOL, DOUBLE, FLOAT, FLOAT16, INT8, INT32, INT64, UINT8, Case, axis, flt, i, ints, product,
                      shape, string)

INT16, UINT16, UINT64 = 5, 4, 13


def floats_attr(name, values):
    return f'attribute {{ name: "{name}" type: FLOATS floats: {[float(v) for v in values]} }} '


def tensor_attr(name, elem_type, values, dims=(1,)):
    """A TENSOR attribute (ConstantOfShape's value): its values in the field of its type."""
    field = T.DATA_FIELDS.get(elem_type, "int32_data")
    number = float if field in ("float_data", "double_data") else int
    dims_text = "".join(f" dims: {d}" for d in dims)
    return (f'attribute {{ name: "{name}" type: TENSOR t {{ data_type: {elem_type}{dims_text} '
            f'{field}: {[number(v) for v in values]} }} }} ')


def half(v):
    """float16 bits of v (Case writes float16 initializers' values to int32_data as bits)."""
    return struct.unpack("<H", struct.pack("<e", v))[0]


def fconst(values, dims, t=FLOAT):
    if t == FLOAT16:
        return ("const", FLOAT16, [half(v) for v in values], dims)
    return ("const", t, values, dims)


def data_input(t, dims):
    return dims if t == FLOAT else ("typed", t, dims)


def tag(bad, case):
    case.intent = bad
    return case


# ----------------------------------------------------------------------------------------------- GatherND etc.

def gather_nd_elements(rng):
    """GatherND (11, 12, 13): data of rank r >= 1, indices [batch..., rest..., m] with its first batch_dims axes
    those of data and m in 1..r - batch_dims: indices.shape[:-1] + data.shape[batch_dims + m:]; values in
    [-d, d - 1] (negative ones count from the end). GatherElements (11, 13): indices of data's rank, each axis but
    axis's at most data's (smaller is valid in ONNX Runtime), any length on axis: indices' shape. Invalid (~10%):
    an index out of range (ONNX Runtime refuses it when run), m past r - batch_dims, batch axes that differ,
    batch_dims at least indices' rank, GatherElements indices of another rank or larger than data off axis."""
    bad = rng.choice(["range", "m", "batch", "bdims", "rank", "larger"]) if rng.random() < 0.12 else None
    if rng.random() < 0.5:
        opset = rng.choice([11, 12, 13])
        r = rng.randint(1, 4)
        data = shape(rng, r, zero=0.05)
        b = rng.randint(0, r - 1) if opset >= 12 and rng.random() < 0.5 else 0
        m = rng.randint(1, r - b)
        rest = shape(rng, rng.randint(0, 2), zero=0.05)
        if bad == "m":
            m = r - b + 1
        ishape = data[:b] + rest + [m]
        if bad == "batch" and b:
            ishape[0] += 1
        if bad == "bdims":
            b = len(ishape)
            if opset == 11:
                opset = 12
        values = []
        for _ in range(product(ishape[:-1])):
            for j in range(m):
                d = data[b + j] if b + j < r else 3
                values.append(rng.randint(-d, d - 1) if d else 0)
        if bad == "range" and values:
            k = rng.randrange(len(values))
            d = data[b + k % m] if b + k % m < r else 3
            values[k] = rng.choice([d, -d - 1, d + 3])
        attrs = i("batch_dims", b) if (b or rng.random() < 0.3) and opset >= 12 else ""
        return tag(bad, Case("GatherND", opset, [data, ("ints", values, ishape)], attrs))
    opset = rng.choice([11, 13])
    r = rng.randint(1, 4)
    data = shape(rng, r, zero=0.05)
    a = axis(rng, r, bad=0.03)
    ax = a % r if -r <= a < r else 0
    ishape = [rng.randint(0, 4) if k == ax else rng.randint(min(1, d), d) for k, d in enumerate(data)]
    if bad == "larger":
        others = [k for k in range(r) if k != ax]
        if others:
            ishape[rng.choice(others)] += 2
    elif bad == "rank":
        ishape = ishape + [1] if rng.random() < 0.5 or r == 1 else ishape[:-1]
    d = data[ax]
    values = [rng.randint(-d, d - 1) if d else 0 for _ in range(product(ishape))]
    if bad == "range" and values:
        values[rng.randrange(len(values))] = rng.choice([d, -d - 1, d + 2])
    return tag(bad, Case("GatherElements", opset, [data, ("ints", values, ishape)], i("axis", a)))


# ------------------------------------------------------------------------------------------------- Scatter

def scatter(rng):
    """ScatterND (11, 13, 16 with reduction none/add/mul, 18 with max/min too; mean or foo, which ONNX Runtime runs as
    none): data of rank r, indices [..., k] with k in 1..r, updates indices.shape[:-1] + data.shape[k:]: data's
    shape. ScatterElements (11, 13, 16, 18 with
    reduction) and Scatter (9; deprecated at 11, where ONNX Runtime has no kernel): indices of data's rank, each axis
    at most data's, updates of indices' shape: data's shape. Indices distinct, in range (negative ones too).
    Invalid (~10%): updates of another shape, k past r, an index out of range (ONNX Runtime refuses it when run),
    indices of another rank."""
    bad = rng.choice(["updates", "k", "range", "rank"]) if rng.random() < 0.1 else None
    op = rng.choice(["ScatterND", "ScatterElements", "ScatterElements", "Scatter"])
    r = rng.randint(1, 4)
    data = shape(rng, r, zero=0.05)
    if op == "ScatterND":
        opset = rng.choice([11, 13, 16, 18])
        k = rng.randint(1, r)
        if bad == "k":
            k = r + 1
        rest = shape(rng, rng.randint(0, 2), zero=0.05)
        pool = [[]]
        for j in range(min(k, r)):
            pool = [p + [v] for p in pool for v in range(data[j])]
        rng.shuffle(pool)
        count = product(rest)
        if count > len(pool):
            rest = [len(pool)] if rng.random() < 0.5 or not pool else [1, len(pool)]
            count = len(pool)
        rows = pool[:count]
        values = []
        for row in rows:
            values += [v - data[j] if rng.random() < 0.3 else v for j, v in enumerate(row)] + [0] * (k - len(row))
        if bad == "range" and values:
            values[0] = data[0] + rng.randint(0, 2)
        ishape = rest + [k]
        updates = rest + data[k:]
        attrs = ""
        if opset >= 16 and rng.random() < 0.6:
            attrs = string("reduction", rng.choice(["none", "add", "mul", "mean", "foo"] + (["max", "min"] if opset >= 18 else [])))
    else:
        opset = rng.choice([9, 11]) if op == "Scatter" else rng.choice([11, 13, 16, 18])
        a = axis(rng, r, bad=0.03)
        ax = a % r if -r <= a < r else 0
        ishape = [rng.randint(min(1, d), d) for d in data]
        if bad == "rank":
            ishape = ishape + [1]
        values = []
        for _ in range(product(ishape)):
            d = data[ax]
            values.append(rng.randint(-d, d - 1) if d else 0)
        if bad == "range" and values:
            values[0] = data[ax] + 1
        updates = list(ishape)
        attrs = i("axis", a)
        if op == "ScatterElements" and opset >= 16 and rng.random() < 0.6:
            attrs += string("reduction", rng.choice(["none", "add", "mul", "mean", "foo"] + (["max", "min"] if opset >= 18 else [])))
    if bad == "updates":
        updates = updates + [1] if rng.random() < 0.5 or not updates else [updates[0] + 1] + updates[1:]
    return tag(bad, Case(op, opset, [data, ("ints", values, ishape), updates], attrs))


# ------------------------------------------------------------------------------------ Range, Trilu, ConstantOfShape

def range_trilu(rng):
    """Range (11): start, limit and delta scalar initializers of one type (int64, int32, float, double), output
    [max(ceil((limit - start) / delta), 0)]: empty ranges and negative deltas too. Invalid: delta 0 (ONNX Runtime
    refuses it when run), a 1-D operand of 2 values. Trilu (14): an input of rank 2 to 4, k absent or a scalar
    int64 initializer (negative, past the matrix), upper 0 or 1: the input's shape; invalid: rank below 2.
    ConstantOfShape (9, 20): a 1-D int64 shape initializer (a 0 dimension, or empty: a scalar) and a value of
    several types: that shape; invalid: a negative dimension, a shape of rank 2."""
    c = rng.random()
    bad = None
    if c < 0.4:
        t = rng.choice([INT64, INT32, FLOAT, DOUBLE])
        if t in (INT64, INT32):
            start, limit = rng.randint(-6, 6), rng.randint(-6, 6)
            delta = rng.choice([1, 2, 3, -1, -2, 5])
        else:
            start = rng.choice([-3, -1.5, 0, 0.5, 1, 2.25, 0.1])
            limit = rng.choice([-2, 0, 1, 2.5, 3, 4.75, 0.7])
            delta = rng.choice([0.5, 1, 0.25, -0.5, -1, 1.5, 0.3, -0.7])
        if rng.random() < 0.1:
            bad = rng.choice(["zero", "rank"])
        if bad == "zero":
            delta = 0
        operands = [("const", t, [v], []) if t != INT64 else ("ints", [v], []) for v in (start, limit, delta)]
        if bad == "rank":
            operands[0] = ("const", t, [start, start], [2])
        return tag(bad, Case("Range", 11, operands))
    if c < 0.7:
        r = rng.randint(2, 4)
        if rng.random() < 0.06:
            bad, r = "rank", rng.randint(0, 1)
        s = shape(rng, r, zero=0.08)
        inputs = [s]
        if rng.random() < 0.7:
            inputs.append(("ints", [rng.randint(-6, 6)], rng.choice([[], [1]])))
        attrs = i("upper", rng.randint(0, 1)) if rng.random() < 0.7 else ""
        t = rng.choice([FLOAT, FLOAT, INT64, INT32, DOUBLE])
        inputs[0] = data_input(t, s)
        return tag(bad, Case("Trilu", 14, inputs, attrs))
    opset = rng.choice([9, 20])
    s = shape(rng, rng.randint(0, 4), zero=0.1)
    dims = [len(s)]
    if rng.random() < 0.1:
        bad = rng.choice(["negative", "rank2"])
        if bad == "negative":
            s = s + [-1]
            dims = [len(s)]
        else:
            s = s + [2]
            dims = [1, len(s)]
    vt = rng.choice([None, FLOAT, INT64, INT32, DOUBLE, UINT8, BOOL, FLOAT16])
    attrs = ""
    if vt is not None:
        attrs = tensor_attr("value", vt, [half(1.5) if vt == FLOAT16 else 1], [1])
    return tag(bad, Case("ConstantOfShape", opset, [("ints", s, dims)], attrs))


# -------------------------------------------------------------------------------------------------- Shape, Size

def shape_size(rng):
    """Shape (1, 13, 15, 19, 21): [rank] of any input (rank 0 too), from 15 start and end (negative, past either end:
    clamped, end before start: [0]). Size (1, 13, 19): a scalar. Inputs of several element types. Nothing is
    invalid but an attribute Shape does not have (start before 15: refused by both)."""
    t = rng.choice([FLOAT, FLOAT, INT64, INT32, BOOL, UINT8, DOUBLE, FLOAT16])
    s = shape(rng, rng.randint(0, 5), zero=0.1)
    x = data_input(t, s)
    size = rng.random() < 0.3
    opset = rng.choice([1, 13, 19] if size else [1, 13, 15, 19, 21])
    if opset == 1 and t == FLOAT16:
        # ONNX Runtime runs a float16 Size-1 through a Cast it inserts, a Cast-1 (whose 'to' is a string): refused.
        x = s
    if size:
        return Case("Size", opset, [x])
    attrs = ""
    bad = None
    if opset >= 15 or rng.random() < 0.03:
        if rng.random() < 0.7:
            attrs += i("start", rng.randint(-7, 7))
        if rng.random() < 0.6:
            attrs += i("end", rng.randint(-7, 7))
        if opset < 15 and attrs:
            bad = "attribute"
    return tag(bad, Case("Shape", opset, [x], attrs))


# --------------------------------------------------------------------------------------------- Resize, Upsample

SCALES = [0.5, 1.0, 1.0, 2.0, 1.5, 0.75, 3.0, 0.6, 1.3, 0.25, 2.5]
UP_SCALES = [1.0, 1.0, 2.0, 1.5, 3.0, 2.5, 1.3]


def resize(rng):
    """Resize: X of rank 1 to 5 (linear on the ranks and axes ONNX Runtime's kernel takes: 2-D, 3-D, 4-D scaling the
    inner two or the middle two axes, 5-D the inner three; cubic on 2-D or on 4-D scaling the inner two; one case
    in twenty of the others, which ONNX Runtime refuses); at 10 scales (input); at 11 and 13 roi (with
    tf_crop_and_resize: 2r values), scales or sizes (the other empty or left out); at 18 and 19 axes (a subset, in
    any order, negative), keep_aspect_ratio_policy (stretch, not_larger, not_smaller with sizes), antialias.
    Output: floor(d * scale) with scales, sizes as given (or scaled by the policy's one scale, rounded).
    Upsample: 7 (scales attribute), 9 (scales input), each scale at least 1. Invalid (~10%): both scales and
    sizes, scales or sizes of another length, a scale of 0 (below 1 for Upsample); sizes asking more than 0 of an
    input dimension 0 (refused by ONNX Runtime when run)."""
    bad = rng.choice(["both", "length", "zero"]) if rng.random() < 0.1 else None
    if rng.random() < 0.15:
        opset = rng.choice([7, 9])
        r = rng.randint(1, 4)
        s = shape(rng, r, zero=0.03)
        mode = rng.choice(["nearest", "linear"])
        if mode == "linear" and r not in (2, 4):
            mode = "nearest"
        scales = [1.0 if mode == "linear" and r == 4 and k < 2 else rng.choice(UP_SCALES) for k in range(r)]
        if bad == "length":
            scales = scales + [1.0]
        elif bad == "zero":
            scales[0] = 0.0
        attrs = string("mode", mode)
        if opset == 7:
            return tag(bad, Case("Upsample", 7, [s], attrs + floats_attr("scales", scales)))
        return tag(bad, Case("Upsample", 9, [s, fconst(scales, [len(scales)])], attrs))
    opset = rng.choice([10, 11, 13, 18, 19])
    mode = rng.choice(["nearest", "linear", "cubic"])
    if bad is None and mode != "nearest" and rng.random() < 0.05:
        bad = "kernel"  # a rank or scaled axes ONNX Runtime's kernel does not take for the mode
    if mode == "cubic":
        r = rng.choice([2, 4]) if bad != "kernel" else rng.choice([1, 3, 5])
    elif mode == "linear":
        r = rng.choice([2, 3, 4, 4, 5]) if bad != "kernel" else 1
    else:
        r = rng.randint(1, 5)
    s = shape(rng, r, zero=0.03)
    # The axes ONNX Runtime's kernel lets the mode scale: of 4-D linear the inner two (NCHW) or the middle two
    # (NHWC), of 4-D cubic the inner two, of 5-D linear the inner three.
    if mode == "linear" and r == 4 and rng.random() < 0.3:
        free = [1, 2]
    elif mode != "nearest" and r in (4, 5):
        free = list(range(2, r))
    else:
        free = list(range(r))
    if opset >= 18 and rng.random() < 0.4:
        picked = rng.sample(free, rng.randint(1, len(free)))
        axes = [a - r if rng.random() < 0.3 else a for a in picked]
    else:
        picked, axes = list(range(r)), None
    use_sizes = opset >= 11 and rng.random() < 0.45
    policy = None
    attrs = string("mode", mode) if rng.random() < 0.9 or mode != "nearest" else ""
    ctm = None
    if opset >= 11:
        ctm = rng.choice([None, "half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                          "tf_crop_and_resize"] + (["tf_half_pixel_for_nn"] if opset < 13 and mode == "nearest" else [])
                         + (["half_pixel_symmetric"] if opset >= 19 else []))
        if ctm:
            attrs += string("coordinate_transformation_mode", ctm)
    if opset >= 18:
        if axes is not None:
            attrs += ints("axes", axes)
        if use_sizes and rng.random() < 0.5:
            policy = rng.choice(["stretch", "not_larger", "not_smaller"])
            attrs += string("keep_aspect_ratio_policy", policy)
        if mode != "nearest" and rng.random() < 0.3:
            attrs += i("antialias", 1)
    scales = [rng.choice(SCALES) if a in free else 1.0 for a in picked]
    sizes = [rng.randint(1, 6) if a in free else s[a] for a in picked]
    n = len(picked)
    if bad == "length":
        scales, sizes = scales + [1.0], sizes + [s[0]]
    elif bad == "zero":
        scales[0] = 0.0
    if opset == 10:
        return tag(bad, Case("Resize", 10, [s, fconst(scales, [len(scales)])], attrs))
    roi = None
    if ctm == "tf_crop_and_resize":
        lo = [rng.choice([0.0, 0.1, 0.25]) for _ in range(n)]
        hi = [rng.choice([1.0, 0.9, 0.75]) for _ in range(n)]
        roi = fconst(lo + hi, [2 * n])
    elif opset == 11 or rng.random() < 0.2:
        roi = fconst([], [0])
    empty = fconst([], [0])
    if bad == "both":
        inputs = [s, roi or empty, fconst(scales, [len(scales)]), ("ints", sizes, [len(sizes)])]
    elif use_sizes:
        inputs = [s, roi if roi is not None else (empty if opset == 11 else None),
                  empty if opset == 11 or rng.random() < 0.5 else None, ("ints", sizes, [len(sizes)])]
    else:
        inputs = [s, roi if roi is not None else (empty if opset == 11 else None), fconst(scales, [len(scales)])]
    return tag(bad, Case("Resize", opset, inputs, attrs))


# ----------------------------------------------------------------------------------------------------- RoiAlign

def roi(rng):
    """RoiAlign (10, 16 at opsets 16 and 21; one case in six at 22, which ONNX Runtime 1.30 has no kernel for): X [N, C, H, W], rois [R, 4] (a float initializer, boxes inside the image, R of 0
    too) and batch_indices [R] (an int64 initializer in [0, N)): [R, C, output_height, output_width] (default 1),
    mode avg or max, sampling_ratio, spatial_scale, from 16 coordinate_transformation_mode. Invalid (~10%): rois
    of 5 columns, batch_indices of another count, a batch index out of range (ONNX Runtime refuses it when run),
    X of rank 3."""
    bad = rng.choice(["cols", "count", "batch", "rank"]) if rng.random() < 0.12 else None
    opset = 22 if rng.random() < 0.16 else rng.choice([10, 16, 21])
    n = rng.randint(1, 3)
    x = [n, rng.randint(0, 3) if rng.random() < 0.05 else rng.randint(1, 3), rng.randint(1, 6), rng.randint(1, 6)]
    count = 0 if rng.random() < 0.07 else rng.randint(1, 4)
    rois, batch = [], []
    for _ in range(count):
        x1, y1 = rng.randint(0, x[3] - 1), rng.randint(0, x[2] - 1)
        rois += [x1, y1, x1 + rng.randint(0, 3) + 0.5, y1 + rng.randint(0, 3) + 0.5]
        batch.append(rng.randrange(n))
    cols = 4
    if bad == "cols":
        rois = [v for k in range(count) for v in rois[4 * k:4 * k + 4] + [1.0]]
        cols = 5
    elif bad == "count":
        batch = batch + [0]
    elif bad == "batch":
        if not batch:
            rois, batch, count = [0, 0, 1, 1], [0], 1
        batch[0] = rng.choice([n, -1])
    elif bad == "rank":
        x = x[:3]
    attrs = ""
    if rng.random() < 0.7:
        attrs += i("output_height", rng.randint(1, 4))
    if rng.random() < 0.7:
        attrs += i("output_width", rng.randint(1, 4))
    if rng.random() < 0.4:
        attrs += string("mode", rng.choice(["avg", "max"]))
    if rng.random() < 0.3:
        attrs += i("sampling_ratio", rng.randint(0, 2))
    if rng.random() < 0.3:
        attrs += flt("spatial_scale", rng.choice([0.5, 1.0, 0.25]))
    if opset >= 16 and rng.random() < 0.4:
        attrs += string("coordinate_transformation_mode", rng.choice(["half_pixel", "output_half_pixel"]))
    return tag(bad, Case("RoiAlign", opset, [x, fconst(rois, [count, cols]), ("ints", batch, [len(batch)])], attrs))


# ----------------------------------------------------------------------------------- QuantizeLinear, Dequantize

def quant_dq(rng):
    """QuantizeLinear and DequantizeLinear (10, 13, 19, 21, 23, 24, 25): the input's shape. Scale (and zero point,
    uint8 or int8, or none) a scalar, from 13 a 1-D per-axis [x.shape[axis]] (axis negative too), from 21 blocked
    (x's shape with ceil(d / block_size) on axis, block_size attribute); QuantizeLinear from 21 an output_dtype
    when no zero point says the type, DequantizeLinear from 23 an output_dtype (float, float16); DequantizeLinear
    from 19 of float 8 constants, from 21 of 4-bit ones (with their zero points, or none). Invalid (~10%):
    a per-axis scale of another length, a blocked scale of another shape, a zero point of another shape than the
    scale, per-axis before 13."""
    bad = rng.choice(["axis_len", "block", "zp_shape", "early"]) if rng.random() < 0.1 else None
    op = rng.choice(["QuantizeLinear", "DequantizeLinear"])
    opset = rng.choice([10, 13, 19, 21, 23, 24, 25])
    r = rng.randint(0, 4)
    s = shape(rng, r, zero=0.05)
    kind = "scalar"
    if opset >= 13 and r and rng.random() < 0.4:
        kind = "axis"
    if opset >= 21 and r and rng.random() < 0.35:
        kind = "block"
    if bad == "early" and r:
        opset, kind = 10, "axis"
    if kind == "block":
        # ONNX Runtime 1.30 dies (SIGFPE, a division by 0) on blocked quantization of an input with a 0 dimension.
        s = [d or 1 for d in s]
    attrs = ""
    if kind == "scalar":
        sdims = rng.choice([[], [1]]) if opset >= 13 else []
    else:
        a = rng.randint(-r, r - 1)
        ax = a % r
        if a != 1 or rng.random() < 0.5:
            attrs += i("axis", a)
        elif r < 2:
            attrs += i("axis", a)
        if kind == "axis":
            sdims = [s[ax]]
            if bad == "axis_len":
                sdims = [s[ax] + 1]
        else:
            bs = rng.randint(1, 3)
            attrs += i("block_size", bs)
            sdims = list(s)
            sdims[ax] = -(-s[ax] // bs)
            if bad == "block":
                sdims[ax] += 1
    nscale = product(sdims)
    zt = rng.choice([UINT8, INT8, None])
    ftype = FLOAT if opset < 19 or rng.random() < 0.8 else FLOAT16
    scale = fconst([0.5] * nscale, sdims, ftype)
    zdims = sdims if bad != "zp_shape" else sdims + [1]
    zero = ("const", zt, [1] * product(zdims), zdims) if zt else None
    if op == "QuantizeLinear":
        x = data_input(ftype, s)
        inputs = [x, scale] + ([zero] if zero else [])
        if opset >= 21 and not zero and rng.random() < 0.5:
            attrs += i("output_dtype", rng.choice([UINT8, INT8, INT16, UINT16]))
        if opset >= 19 and rng.random() < 0.2:
            attrs += i("saturate", 1)
        return tag(bad, Case(op, opset, inputs, attrs))
    x = data_input(zt or rng.choice([UINT8, INT8, INT32]), s)
    if not zt and opset < 21:
        x = data_input(rng.choice([UINT8, INT8, INT32]), s)
    narrow = [17, 19] + ([21, 22] if opset >= 21 else [])  # FLOAT8E4M3FN, FLOAT8E5M2; UINT4, INT4 from 21
    if opset >= 19 and rng.random() < 0.3:
        # The narrow types, as constants (ONNX Runtime's JavaScript binding feeds and returns none of them): x and
        # the zero point of one type.
        nt = rng.choice(narrow)
        x = ("const", nt, [1] * product(s), s)
        zero = ("const", nt, [0] * product(zdims), zdims) if rng.random() < 0.5 else None
    inputs = [x, scale] + ([zero] if zero else [])
    if opset >= 23 and rng.random() < 0.3:
        attrs += i("output_dtype", ftype)
    return tag(bad, Case(op, opset, inputs, attrs))


# ------------------------------------------------------------------------------------ Cast, windows, Det

CAST_TO = [FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, BOOL, FLOAT16, DOUBLE, 12, UINT64]
FLOAT8 = [17, 18, 19, 20]


def cast_window(rng):
    """Cast (6, 9, 13, 19 with saturate, 21) to numeric types, from 19 the float8 types too; CastLike (15, 19, 21):
    the input's shape. HannWindow, HammingWindow, BlackmanWindow (17): size a scalar int64 or int32 initializer
    (0 and 1 too), periodic, output_datatype: [size]. Det (11, 22): [..., M, M] -> [...]. Invalid (~10%): a window
    size of rank 1 or negative, Det of a non-square or rank-1 input, Cast to undefined. Det at 22 one case in ten
    (ONNX Runtime 1.30 has no kernel of it: refused)."""
    c = rng.random()
    bad = None
    if c < 0.4:
        s = shape(rng, rng.randint(0, 4), zero=0.08)
        t = rng.choice([FLOAT, INT64, INT32, UINT8, BOOL, DOUBLE, FLOAT16])
        opset = rng.choice([6, 9, 13, 19, 21])
        to = rng.choice(CAST_TO + (FLOAT8 if opset >= 19 else []))
        if rng.random() < 0.04:
            bad, to = "to", 0
        attrs = i("to", to)
        # saturate 0 beside a target that is not float8: ONNX Runtime refuses it (reshape1 too), so rarely.
        if opset >= 19 and rng.random() < (0.4 if to in FLOAT8 else 0.05):
            attrs += i("saturate", rng.randint(0, 1))
        return tag(bad, Case("Cast", opset, [data_input(t, s)], attrs))
    if c < 0.55:
        s = shape(rng, rng.randint(0, 4), zero=0.08)
        t = rng.choice([FLOAT, INT64, INT32, DOUBLE])
        like = rng.choice([INT64, FLOAT, INT32, DOUBLE, UINT8])
        return Case("CastLike", rng.choice([15, 19, 21]), [data_input(t, s), ("const", like, [1], [1])])
    if c < 0.8:
        op = rng.choice(["HannWindow", "HammingWindow", "BlackmanWindow"])
        n = rng.randint(0, 8)
        st = rng.choice([INT64, INT32])
        dims = []
        if rng.random() < 0.1:
            bad = rng.choice(["rank", "negative"])
            if bad == "rank":
                dims = [1]
            else:
                n = -2
        attrs = ""
        if rng.random() < 0.5:
            attrs += i("periodic", rng.randint(0, 1))
        if rng.random() < 0.5:
            attrs += i("output_datatype", rng.choice([FLOAT, DOUBLE, INT64, INT32, UINT8, FLOAT16]))
        return tag(bad, Case(op, 17, [("const", st, [n], dims) if st != INT64 else ("ints", [n], dims)], attrs))
    m = rng.randint(0, 4) if rng.random() < 0.9 else rng.randint(1, 4)
    s = shape(rng, rng.randint(0, 2), zero=0.05) + [m, m]
    if rng.random() < 0.1:
        bad = rng.choice(["square", "rank"])
        s = s[:-1] + [m + 1] if bad == "square" else [m]
    return tag(bad, Case("Det", 22 if rng.random() < 0.1 else rng.choice([11, 21]), [data_input(rng.choice([FLOAT, FLOAT, DOUBLE]), s)]))


# -------------------------------------------------------------------------------------------- random ops

def random_shape(rng):
    """At opsets 1 (7 for Multinomial, 15 for Bernoulli), 15 and 21, one case in ten at 22 (ONNX Runtime 1.30 has no
    kernel of 22: refused). RandomNormal and RandomUniform: the shape attribute (a 0 dimension, rank 0 to 4), dtype
    float or double (ONNX Runtime has no float16 kernel). RandomNormalLike and RandomUniformLike: the input's
    shape, dtype or the input's type. Multinomial: [batch, classes] -> [batch, sample_size] (default 1), dtype int32 or int64. Bernoulli (15,
    22): the input's shape, dtype. Only shapes are compared. Invalid (~10%): no shape attribute, Multinomial of a
    rank-1 or 3-D input, a Like of an integer input without dtype (ONNX Runtime takes float types only)."""
    op = rng.choice(["RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                     "Bernoulli"])
    bad = None
    seed = flt("seed", 3.0)
    # ONNX Runtime 1.30 registers these kernels up to opset 21 (22: no kernel), of float and double only.
    opset = 22 if rng.random() < 0.1 else rng.choice([1, 15, 21])
    if op in ("RandomNormal", "RandomUniform"):
        s = shape(rng, rng.randint(0, 4), zero=0.08)
        attrs = ints("shape", s) + seed
        if rng.random() < 0.5:
            attrs += i("dtype", rng.choice([FLOAT, DOUBLE]))
        if rng.random() < 0.06:
            bad, attrs = "shape", seed
        return tag(bad, Case(op, opset, [], attrs))
    if op == "Multinomial":
        s = [rng.randint(1, 4), rng.randint(1, 5)]
        if rng.random() < 0.1:
            bad = "rank"
            s = rng.choice([[3], s + [2]])
        attrs = seed
        if rng.random() < 0.7:
            attrs += i("sample_size", rng.randint(1, 5))
        if rng.random() < 0.5:
            attrs += i("dtype", rng.choice([INT32, INT64]))
        return tag(bad, Case(op, 7 if opset == 1 else opset, [s], attrs))
    s = shape(rng, rng.randint(0, 4), zero=0.08)
    t = rng.choice([FLOAT, FLOAT, DOUBLE])
    attrs = seed
    if op == "Bernoulli":
        if rng.random() < 0.5:
            attrs += i("dtype", rng.choice([FLOAT, DOUBLE, INT64, INT32, BOOL]))
        return Case(op, 15 if opset == 1 else opset, [data_input(t, s)], attrs)
    if rng.random() < 0.08:
        bad, t = "integer", INT64
    elif rng.random() < 0.4:
        attrs += i("dtype", rng.choice([FLOAT, DOUBLE]))
    return tag(bad, Case(op, opset, [data_input(t, s)], attrs))


FAMILIES = {
    "gather_nd_elements": gather_nd_elements, "scatter": scatter, "range_trilu": range_trilu,
    "shape_size": shape_size, "resize": resize, "roi": roi, "quant_dq": quant_dq, "cast_window": cast_window,
    "random_shape": random_shape,
}

# Disagreements known and not fixed yet, as op_truth.KNOWN.
KNOWN = [
    ("Det", "Could not find an implementation", "Det-22 of a double input: ONNX Runtime 1.30's Det-22 kernel takes "
                                                "float only (op_list.tsv says cpu: it runs float); reshape1 shapes it "
                                                "as Det-11"),
    ("RoiAlign", "is out of range [0,", "a batch index out of [0, N): ONNX Runtime refuses it when run, reshape1 "
                                        "does not read the indices' values"),
    ("Resize", "keep_aspect_ratio_policy not_", "Resize-18/19 with keep_aspect_ratio_policy not_larger or "
                                                "not_smaller: ONNX Runtime scales every axis by one factor (the least "
                                                "or the greatest of sizes / input), reshape1 leaves it not covered"),
    ("Resize", "'Linear' mode only supports", "linear of a rank or scaled axes ONNX Runtime's kernel does not take "
                                              "(1-D; 4-D or 5-D scaling an outer axis): ONNX Runtime refuses it, "
                                              "reshape1 shapes it as ONNX says"),
    ("Resize", "'Cubic' mode only support", "cubic of a rank other than 2 or 4 (or 4-D scaling an outer axis): as "
                                            "linear's"),
    ("ScatterElements", "indices element out of data bounds", "an index out of range: ONNX Runtime refuses it when "
                                                              "run, reshape1 does not read the indices' values"),
]

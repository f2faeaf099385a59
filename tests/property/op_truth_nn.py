"""Per-op truth for the neural-network ops with no family in op_truth.py: convolutions, Gemm, the normalisations and
global pools, PRelu and Clip, Dropout, the recurrent ops, DepthToSpace and SpaceToDepth, Einsum, more elementwise
unary ops, the variadic and comparison ops, and com.microsoft's fused and quantised nn ops. Loaded by op_truth.py's
main() (FAMILIES and KNOWN); each family builds its cases with op_truth's helpers.

Each family's docstring says what it draws (valid), which invalid cases it makes (about one time in ten) and what
ONNX Runtime 1.30 does with them.
"""
from op_truth import Case, with_intent, ints, i, flt, string, shape, broadcastable, product
from op_truth import FLOAT, INT8, INT32, INT64, UINT8, BOOL, MS


def _floats(dims, value=0.1):
    return ("const", FLOAT, [value] * product(dims), dims)


def _scalar_f(v):
    return ("const", FLOAT, [v], [])


def _u8(v=3):
    return ("const", UINT8, [v], [])


def _conv_geometry(rng, r, transposed=False):
    """Spatial sizes, kernel, strides, dilations for r axes (the dilated kernel within the input for Conv)."""
    sp = [rng.randint(1, 6) for _ in range(r)]
    k = [rng.randint(1, min(3, s) if not transposed else 3) for s in sp]
    st = [rng.randint(1, 3) for _ in range(r)]
    dl = [1] * r
    if rng.random() < 0.3:
        dl = [rng.randint(1, 2) if transposed or 2 * (kk - 1) + 1 <= s else 1 for kk, s in zip(k, sp)]
    return sp, k, st, dl


def conv(rng):
    """Conv (opsets 1, 11, 22; X [N, C, spatial...] with 1-3 spatial axes, W [M, C/group, k...], bias [M]) and
    ConvInteger (10; uint8 X and W, optional uint8 scalar zero points): [N, M, out...], out = floor((in + pads -
    d*(k-1) - 1) / s) + 1, or ceil(in / s) for SAME_*, the kernel from W (kernel_shape, when given, W's), strides,
    pads (each below its kernel), dilations, group 1 or 2. Valid with the dilated kernel within the unpadded input.
    Invalid (~12%): C/group not W[1] ('Invalid input shape' / channel mismatch), a bias of another length, M not a
    multiple of group, dilations with auto_pad SAME_* (ONNX Runtime refuses it: 'Dilation not supported for
    AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER'; reshape1 refuses the model when read), a kernel larger than
    the padded input, kernel_shape not W's."""
    integer = rng.random() < 0.2
    r = rng.choice([1, 2, 2, 3])
    group = rng.choice([1, 1, 2])
    c, m = group * rng.randint(1, 2), group * rng.randint(1, 2)
    sp, k, st, dl = _conv_geometry(rng, r)
    n = 0 if rng.random() < 0.05 else rng.randint(1, 2)
    x = [n, c] + sp
    w = [m, c // group] + k
    attrs = ints("kernel_shape", k) if rng.random() < 0.4 else ""
    if rng.random() < 0.6:
        attrs += ints("strides", st)
    else:
        st = [1] * r
    p = rng.random()
    auto = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]) if p < 0.25 else None
    if p >= 0.55:
        attrs += ints("pads", [rng.randint(0, kk - 1) for kk in k + k])
    elif auto:
        attrs += string("auto_pad", auto)
    if dl != [1] * r and auto not in ("SAME_UPPER", "SAME_LOWER"):
        attrs += ints("dilations", dl)
    bias = [m] if not integer and rng.random() < 0.5 else None
    bad = rng.choice(["channels", "bias", "group", "same_dil", "big", "kernel_shape"]) if rng.random() < 0.12 else None
    if bad == "channels":
        w[1] += 1
    elif bad == "bias":
        bias = [m + 1]
    elif bad == "group" and group == 2:
        w[0] = m + 1
    elif bad == "same_dil":
        attrs = string("auto_pad", rng.choice(["SAME_UPPER", "SAME_LOWER"])) + ints("dilations", [2] * r)
    elif bad == "big":
        attrs = ""
        w = [m, c // group] + [s + 2 for s in sp]
    elif bad == "kernel_shape":
        attrs = ints("kernel_shape", [kk + 1 for kk in k])
    if group > 1:
        attrs += i("group", group)
    if integer:
        ins = [("typed", UINT8, x), ("typed", UINT8, w)]
        if rng.random() < 0.5:
            ins += [_u8(rng.randint(0, 255))] + ([_u8(0)] if rng.random() < 0.5 else [])
        return with_intent(Case("ConvInteger", 10, ins, attrs), bad)
    ins = [x, w] + ([bias] if bias else [])
    return with_intent(Case("Conv", rng.choice([1, 11, 22]), ins, attrs), bad)


def conv_transpose(rng):
    """ConvTranspose (1, 11, 22): X [N, C, spatial...] (1-3 axes), W [C, M/group, k...], bias [M]: [N, M, out...],
    out = s*(in-1) + output_padding + d*(k-1) + 1 - pad_begin - pad_end; with output_shape (the spatial sizes) that
    shape (pads computed, SAME_UPPER's split unless SAME_LOWER); with auto_pad SAME_* in*s (stride 2 often, a past
    bug); VALID no pads. output_padding below its stride. Invalid (~12%): C not W[0] ('filter number not equal to input
    channel number'), a bias of another length, output_padding not below max(stride, dilation), an output_shape
    larger than the full output (a negative total pad)."""
    r = rng.choice([1, 2, 2, 3])
    group = rng.choice([1, 1, 2])
    c = group * rng.randint(1, 2)
    mg = rng.randint(1, 2)
    sp, k, st, dl = _conv_geometry(rng, r, transposed=True)
    n = 0 if rng.random() < 0.05 else rng.randint(1, 2)
    x = [n, c] + sp
    w = [c, mg] + k
    op = [rng.randint(0, s - 1) if rng.random() < 0.3 else 0 for s in st]
    full = [s * (a - 1) + o + d * (kk - 1) + 1 for s, a, o, d, kk in zip(st, sp, op, dl, k)]
    attrs = ints("strides", st)
    if dl != [1] * r:
        attrs += ints("dilations", dl)
    if any(op):
        attrs += ints("output_padding", op)
    if rng.random() < 0.3:
        attrs += ints("kernel_shape", k)
    p = rng.random()
    if p < 0.2:
        attrs = ints("strides", [2] * r) + ints("kernel_shape", k) + (ints("dilations", dl) if dl != [1] * r else "")
        attrs += string("auto_pad", rng.choice(["SAME_UPPER", "SAME_LOWER"]))
    elif p < 0.3:
        attrs += string("auto_pad", "VALID")
    elif p < 0.5:
        attrs += ints("output_shape", [rng.randint(max(1, f - 3), f) for f in full])
    elif p < 0.8:
        pads = [0] * (2 * r)
        for a in range(r):
            pb = rng.randint(0, min(full[a] - 1, 2))
            pads[a], pads[a + r] = pb, rng.randint(0, min(full[a] - 1 - pb, 2))
        attrs += ints("pads", pads)
    bias = [mg * group] if rng.random() < 0.5 else None
    bad = rng.choice(["channels", "bias", "outpad", "outshape"]) if rng.random() < 0.12 else None
    if bad == "channels":
        x[1] += 1
    elif bad == "bias":
        bias = [mg * group + 1]
    elif bad == "outpad":
        attrs = ints("strides", st) + ints("output_padding", st)
    elif bad == "outshape":
        attrs = ints("strides", st) + ints("output_shape", [f + 2 for f in full])
    if group > 1:
        attrs += i("group", group)
    return with_intent(Case("ConvTranspose", rng.choice([1, 11, 22]), [x, w] + ([bias] if bias else []), attrs), bad)


def gemm(rng):
    """Gemm (7, 9, 11, 13): A [M, K] ([K, M] with transA), B [K, N] ([N, K] with transB), C unidirectionally
    broadcast to [M, N] ([N], [1, N], [M, 1], [M, N], [1], a scalar), required before 11: [M, N]. alpha, beta.
    Invalid (~12%): inner dimensions that differ, a C that does not broadcast to [M, N], a 3-D A."""
    m, k, n = rng.randint(0, 4) if rng.random() < 0.1 else rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
    ta, tb = rng.randint(0, 1), rng.randint(0, 1)
    opset = rng.choice([7, 9, 11, 13])
    a = [k, m] if ta else [m, k]
    b = [n, k] if tb else [k, n]
    cshape = rng.choice([[n], [1, n], [m, 1], [m, n], [1], [], [1, 1]])
    if opset >= 11 and rng.random() < 0.3:
        cshape = None
    bad = rng.choice(["inner", "c", "rank"]) if rng.random() < 0.12 else None
    if bad == "inner":
        b[1 if tb else 0] += 1
    elif bad == "c":
        cshape = rng.choice([[n + 1], [m + 1, n], [2, m, n]])
    elif bad == "rank":
        a = [1] + a
    attrs = ""
    if ta or rng.random() < 0.3:
        attrs += i("transA", ta)
    if tb or rng.random() < 0.3:
        attrs += i("transB", tb)
    if rng.random() < 0.3:
        attrs += flt("alpha", 0.5) + flt("beta", 2.0)
    return with_intent(Case("Gemm", opset, [a, b] + ([cshape] if cshape is not None else []), attrs), bad)


def norm_more(rng):
    """BatchNormalization (9, 14, 15; X [N, C, ...] of rank 2-4, scale, B, mean, var [C]: Y of X's shape; at 14 and
    15 training_mode 1 with three outputs, the running mean and variance [C]; with one output ONNX Runtime, and
    reshape1, refuse it: 'should be 3 when Training_mode = True'), InstanceNormalization (6, 22; X of rank 3-5, no
    dimension of 0 (an empty one stops ONNX Runtime's process), scale and B [C]: X's shape), LRN (1, 13; X [N, C, H,
    W], size odd: X's shape), GlobalAveragePool, GlobalMaxPool (1, 22) and GlobalLpPool (2, 22) (X of rank 3-5, a
    batch of 0 at times: [N, C, 1...]; ONNX Runtime refuses a spatial dimension of 0, 'Only N can be zero', and has
    no GlobalLpPool-22 kernel). Invalid (~10%): a scale, B, mean or var of another length than C (refused at load or
    run), X of rank 2 for the global pools ('Input dimension cannot be less than 3' when run), LRN's size even or 0
    (refused when the kernel loads); reshape1 refuses them too (the global pools' rank where X declares it)."""
    op = rng.choice(["BatchNormalization", "InstanceNormalization", "LRN", "GlobalAveragePool", "GlobalMaxPool",
                     "GlobalLpPool"])
    bad = rng.random() < 0.1
    if op == "BatchNormalization":
        x = [rng.randint(1, 3), rng.randint(1, 4)] + shape(rng, rng.randint(0, 2))
        c = x[1]
        opset = rng.choice([9, 14, 15])
        attrs = flt("epsilon", 0.001) if rng.random() < 0.3 else ""
        outputs = 1
        if opset >= 14 and rng.random() < 0.3:
            attrs += i("training_mode", 1)
            outputs = rng.choice([1, 3])
        params = [[c], [c], [c], [c]]
        if bad:
            params[rng.randrange(4)] = [c + 1]
        return with_intent(Case(op, opset, [x] + params, attrs, outputs=outputs), "length" if bad else None)
    if op == "InstanceNormalization":
        # No dimension of 0: an empty spatial axis stops ONNX Runtime's process.
        x = [rng.randint(1, 3), rng.randint(1, 4)] + shape(rng, rng.randint(1, 3), zero=0.0)
        c = x[1]
        sc = [c + 1] if bad else [c]
        return with_intent(Case(op, rng.choice([6, 22]), [x, sc, [c]], flt("epsilon", 0.01) if rng.random() < 0.3 else ""),
                           "length" if bad else None)
    if op == "LRN":
        x = [rng.randint(1, 2), rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 4)]
        size = rng.choice([1, 3, 5])
        if bad:
            size = rng.choice([2, 4, 0])
        attrs = i("size", size)
        if rng.random() < 0.4:
            attrs += flt("alpha", 0.001) + flt("beta", 0.5) + flt("bias", 2.0)
        return with_intent(Case(op, rng.choice([1, 13]), [x], attrs), "size" if bad else None)
    n = rng.randint(0, 2) if rng.random() < 0.1 else rng.randint(1, 2)
    x = [n, rng.randint(1, 4)] + shape(rng, rng.randint(1, 3))
    if bad:
        x = x[:2]
    opset = rng.choice([2 if op == "GlobalLpPool" else 1] * (4 if op == "GlobalLpPool" else 1) + [22])
    attrs = i("p", rng.choice([1, 2, 3])) if op == "GlobalLpPool" and rng.random() < 0.5 else ""
    return with_intent(Case(op, opset, [x], attrs), "rank" if bad else None)


def prelu_clip(rng):
    """PRelu (7, 9, 16): X and a slope that broadcasts to X unidirectionally ([C] of X's axis 1 as for
    convolutions, X's trailing dimensions, ones), or, a fifth of the time, one of higher rank than X, or (~12%) one
    above X's dimensions of 1 (ONNX Runtime broadcasts both ways and runs them: [1] and [3] give [3], [3] and [2, 1]
    give [2, 3]; so does reshape1). Clip 6 (min, max
    attributes; min above max refused by both) and 11, 12, 13 (min and max optional scalar initializers, min above
    max too, which ONNX Runtime runs): X's shape. Invalid (~8%): a slope that does not broadcast (ONNX Runtime
    refuses it when run: 'Attempting to broadcast an axis'), a min that is not a scalar (refused when run: 'min
    should be a scalar')."""
    s = shape(rng, rng.randint(0, 4))
    bad = rng.random() < 0.08
    if rng.random() < 0.5:
        opset = rng.choice([7, 9, 16])
        if len(s) >= 2 and rng.random() < 0.3:
            slope = [s[1]] + [1] * (len(s) - 2)
        else:
            slope = broadcastable(rng, s)
        if rng.random() < 0.2:
            slope = [rng.choice([1, 2])] + ([1] * len(s) if rng.random() < 0.5 else list(s))
        grow = rng.random() < 0.12 and 1 in s
        if grow:  # a slope dimension above X's 1: ONNX Runtime broadcasts both ways
            slope = [3 if d == 1 else d for d in s]
        wide = [k for k, d in enumerate(s) if d > 1]
        if bad and wide:
            slope = list(s)
            slope[rng.choice(wide)] += 2
        return with_intent(Case("PRelu", opset, [s, slope]), "slope" if bad and wide else "grow" if grow else None)
    opset = rng.choice([6, 11, 12, 13])
    lo, hi = round(rng.uniform(-1, 1), 2), round(rng.uniform(-1, 1), 2)
    if opset == 6:
        attrs = (flt("min", lo) if rng.random() < 0.6 else "") + (flt("max", hi) if rng.random() < 0.6 else "")
        return Case("Clip", 6, [s], attrs)
    ins = [s]
    c = rng.random()
    if c < 0.3:
        ins += [_scalar_f(lo), _scalar_f(hi)]
    elif c < 0.5:
        ins += [_scalar_f(lo)]
    elif c < 0.7:
        ins += [None, _scalar_f(hi)]
    if bad:
        ins = [s, ("const", FLOAT, [lo, hi], [2])]
    return with_intent(Case("Clip", opset, ins), "scalar" if bad else None)


def dropout(rng):
    """Dropout 7 and 10 (ratio attribute) and 12, 13, 22 (ratio and training_mode optional scalar initializers,
    training_mode false or true): output X's shape, the mask (bool from 10) X's shape too. Invalid (~8%): a ratio
    that is not a scalar (ONNX Runtime refuses it when it loads it), a ratio of 1 in training mode (ONNX Runtime
    refuses it when run: 'ratio must be in the range [0, 1)')."""
    s = shape(rng)
    opset = rng.choice([7, 10, 12, 13, 22])
    outputs = rng.randint(1, 2)
    bad = rng.random() < 0.08
    if opset < 12:
        return Case("Dropout", opset, [s], flt("ratio", 0.3) if rng.random() < 0.5 else "", outputs=outputs)
    ins = [s]
    if rng.random() < 0.7:
        ins.append(_scalar_f(rng.choice([0.0, 0.25, 0.5])))
        if rng.random() < 0.6:
            ins.append(("const", BOOL, [rng.randint(0, 1)], []))
    if bad:
        if rng.random() < 0.5:
            ins = [s, ("const", FLOAT, [0.1, 0.2], [2])]
        else:
            ins = [s, _scalar_f(1.0), ("const", BOOL, [1], [])]
    attrs = i("seed", 3) if rng.random() < 0.3 else ""
    return with_intent(Case("Dropout", opset, ins, attrs, outputs=outputs), "ratio" if bad else None)


def recurrent(rng):
    """RNN, GRU, LSTM (7, 14, 22): X [L, B, I] ([B, L, I] with layout 1, 14 on), W [D, gates*H, I], R [D, gates*H,
    H], B [D, 2*gates*H] (gates 1, 3, 4; initializers), sequence_lens int32 [B] (values 1..L), initial_h (and
    initial_c, LSTM's P [D, 3H]) [D, B, H] ([B, D, H] with layout 1); direction, hidden_size, GRU's
    linear_before_reset. Outputs Y [L, D, B, H] ([B, L, D, H]), Y_h [D, B, H] ([B, D, H]), LSTM's Y_c too.
    L and B at least 1 (ONNX Runtime's process stops on empty ones). Invalid (~12%): W of another input size or
    gate count, R of another hidden size, B of another length, initial_h of another batch, hidden_size not W's,
    D of 2 without bidirectional."""
    op = rng.choice(["RNN", "GRU", "LSTM"])
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    opset = rng.choice([7, 14, 22])
    layout = 1 if opset >= 14 and rng.random() < 0.1 else 0
    l, b, inp, h = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 3)
    direction = rng.choice(["forward", "reverse", "bidirectional"])
    d = 2 if direction == "bidirectional" else 1
    w, rr, bias = [d, gates * h, inp], [d, gates * h, h], [d, 2 * gates * h] if rng.random() < 0.5 else None
    hidden = h
    lens = [rng.randint(1, l) for _ in range(b)] if rng.random() < 0.3 else None
    h0 = ([b, d, h] if layout else [d, b, h]) if rng.random() < 0.3 else None
    c0 = list(h0) if op == "LSTM" and h0 and rng.random() < 0.5 else None
    peep = [d, 3 * h] if op == "LSTM" and rng.random() < 0.2 else None
    bad = rng.choice(["w", "r", "b", "h0", "hidden", "d"]) if rng.random() < 0.12 else None
    if bad == "w":
        w[rng.choice([1, 2])] += 1
    elif bad == "r":
        rr[2] += 1
    elif bad == "b":
        bias = [d, gates * h]
    elif bad == "h0":
        h0 = [b + 1, d, h] if layout else [d, b + 1, h]
    elif bad == "hidden":
        hidden = h + 1
    elif bad == "d" and d == 1:
        w, rr = [2] + w[1:], [2] + rr[1:]
    x = [b, l, inp] if layout else [l, b, inp]
    ins = [x, _floats(w), _floats(rr), _floats(bias) if bias else None,
           ("const", INT32, lens, [b]) if lens else None, h0]
    if op == "LSTM":
        ins += [c0, _floats(peep) if peep else None]
    while ins[-1] is None:
        ins.pop()
    attrs = i("hidden_size", hidden)
    if direction != "forward" or rng.random() < 0.3:
        attrs += string("direction", direction)
    if layout or (opset >= 14 and rng.random() < 0.2):
        attrs += i("layout", layout)
    if op == "GRU" and rng.random() < 0.5:
        attrs += i("linear_before_reset", rng.randint(0, 1))
    outputs = rng.randint(1, 3 if op == "LSTM" else 2)
    return with_intent(Case(op, opset, ins, attrs, outputs=outputs), bad)


def space_depth(rng):
    """DepthToSpace (1; 11 and 13 with mode DCR or CRD): X [N, C, H, W] with C a multiple of b*b: [N, C/(b*b), H*b,
    W*b]; SpaceToDepth (1, 13): H and W multiples of b: [N, C*b*b, H/b, W/b]. Invalid (~10%): b not dividing,
    X of rank 3 or 5, blocksize 0."""
    b = rng.randint(1, 3)
    n = 0 if rng.random() < 0.05 else rng.randint(1, 2)
    bad = rng.choice(["divide", "rank", "zero"]) if rng.random() < 0.1 else None
    if rng.random() < 0.5:
        x = [n, b * b * rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 3)]
        if bad == "divide":
            x[1] += 1 if b > 1 else 0
        opset = rng.choice([1, 11, 13])
        attrs = ""
        if opset >= 11 and rng.random() < 0.7:
            attrs = string("mode", rng.choice(["DCR", "CRD"]))
        op = "DepthToSpace"
    else:
        x = [n, rng.randint(1, 3), b * rng.randint(0, 2), b * rng.randint(1, 2)]
        if bad == "divide":
            x[2] += 1 if b > 1 else 0
        opset = rng.choice([1, 13])
        attrs = ""
        op = "SpaceToDepth"
    if bad == "rank":
        x = x[:3] if rng.random() < 0.5 else x + [1]
    if bad == "zero":
        b = 0
    return with_intent(Case(op, opset, [x], i("blocksize", b) + attrs), bad)


def einsum(rng):
    """Einsum (12): one to three operands over letters of fixed sizes: transposes, a repeated letter in one operand
    (a diagonal, "ii->i"), contractions, batch matmul, a leading ellipsis whose dimensions broadcast (1 against
    another size), the output explicit (any letters of the inputs, each once, "..." where the inputs have one) or
    implicit (the letters that occur once, in alphabetical order, after the ellipsis). Invalid (~10%): a letter of two
    sizes, an output letter no input has, an operand of another rank than its term."""
    letters = "abcdefg"
    size = {c: rng.randint(1, 4) for c in letters}
    if rng.random() < 0.1:
        size[rng.choice(letters)] = 0
    nops = rng.choice([1, 2, 2, 2, 3])
    ellipsis = rng.random() < 0.25
    batch = shape(rng, rng.randint(1, 2), zero=0.0) if ellipsis else []
    terms, shapes = [], []
    pool = letters[:rng.randint(2, 5)]
    for _ in range(nops):
        term = rng.sample(pool, rng.randint(0 if nops > 1 else 1, min(3, len(pool))))
        if nops == 1 and term and rng.random() < 0.3:
            term.insert(rng.randint(0, len(term)), rng.choice(term))  # a diagonal
        dims = [size[c] for c in term]
        if ellipsis:
            eb = [d if rng.random() < 0.7 else 1 for d in batch]
            terms.append("..." + "".join(term))
            shapes.append(eb + dims)
        else:
            terms.append("".join(term))
            shapes.append(dims)
    used = "".join(t.replace("...", "") for t in terms)
    bad = rng.choice(["size", "letter", "rank", "ellipsis"]) if rng.random() < 0.1 else None
    if rng.random() < 0.35:
        equation = ",".join(terms)
    else:
        distinct = sorted(set(used))
        out = rng.sample(distinct, rng.randint(0, len(distinct)))
        if bad == "letter" and distinct:  # (with every operand a scalar, ONNX Runtime's process stops on it)
            out.append("z")
        equation = ",".join(terms) + "->" + ("..." if ellipsis else "") + "".join(out)
    if bad == "size":
        k = rng.randrange(nops)
        if shapes[k]:
            shapes[k][-1] += 1
    elif bad == "rank":
        shapes[0] = shapes[0] + [2]
    elif bad == "ellipsis" and ellipsis and nops > 1:
        shapes[0] = [2] + shapes[0]
    return with_intent(Case("Einsum", 12, shapes, string("equation", equation)), bad)


UNARY_OPSETS = {"Acos": [7, 22], "Acosh": [9, 22], "Asin": [7, 22], "Asinh": [9, 22], "Atan": [7, 22],
                "Atanh": [9, 22], "Cos": [7, 22], "Cosh": [9, 22], "Sin": [7, 22], "Sinh": [9, 22], "Tan": [7, 22],
                "Ceil": [6, 13], "Floor": [6, 13], "Round": [11, 22], "Sqrt": [6, 13], "Reciprocal": [6, 13],
                "Log": [6, 13], "Erf": [9, 13], "Sign": [9, 13], "Elu": [6, 22], "LeakyRelu": [6, 16],
                "HardSigmoid": [6, 22], "HardSwish": [14, 22], "Not": [1]}


def unary_more(rng):
    """Elementwise unary ops at their opsets (UNARY_OPSETS; Not of a bool): the input's shape, whatever alpha or
    beta (float only: ONNX Runtime has no double kernel for several of them). Invalid (~6%): an int32 input (a type
    error when loaded), an attribute the op does not have (refused when loaded, by both)."""
    op = rng.choice(sorted(UNARY_OPSETS))
    s = shape(rng)
    opset = rng.choice(UNARY_OPSETS[op])
    t = BOOL if op == "Not" else FLOAT
    attrs = ""
    if op in ("Elu", "LeakyRelu", "HardSigmoid") and rng.random() < 0.6:
        attrs = flt("alpha", 0.3)
        if op == "HardSigmoid" and rng.random() < 0.5:
            attrs += flt("beta", 0.4)
    bad = rng.choice(["type", "attr"]) if rng.random() < 0.06 else None
    if bad == "type":
        t = INT32 if op != "Not" else FLOAT
    elif bad == "attr":
        attrs += i("axis", 0)
    return with_intent(Case(op, opset, [("typed", t, s) if t != FLOAT else s], attrs), bad)


def _broadcast_set(rng, n):
    base = shape(rng)
    out = [broadcastable(rng, base) for _ in range(n)]
    if out and rng.random() < 0.5:
        out[rng.randrange(n)] = base
    rng.shuffle(out)
    return out


def variadic(rng):
    """Sum, Mean (8, 13), Max, Min (8, 12, 13) of 1-4 inputs; Mod (10, 13; int32 with the divisor an initializer of
    1..5, fmod 0 or 1; float with fmod 1); Where (9, 16; a bool condition, three shapes); Less, LessOrEqual,
    GreaterOrEqual (12, 16); And, Or, Xor (7; bool): the multidirectional broadcast of the inputs (bool for the
    comparisons). Invalid (~10%, broadcastable's): shapes that do not broadcast; a float Mod with fmod 0 (ONNX
    Runtime: 'fmod attribute must be true for float, float16 and double types')."""
    op = rng.choice(["Sum", "Mean", "Max", "Min", "Mod", "Where", "Less", "LessOrEqual", "GreaterOrEqual", "And", "Or",
                     "Xor"])
    if op in ("Sum", "Mean", "Max", "Min"):
        opset = rng.choice([8, 13] if op in ("Sum", "Mean") else [8, 12, 13])
        return Case(op, opset, _broadcast_set(rng, rng.randint(1, 4)))
    if op == "Where":
        c, x, y = _broadcast_set(rng, 3)
        return Case(op, rng.choice([9, 16]), [("typed", BOOL, c), x, y])
    a, b = _broadcast_set(rng, 2)
    if op == "Mod":
        opset = rng.choice([10, 13])
        if rng.random() < 0.5:
            fmod = 1 if rng.random() > 0.08 else 0
            return with_intent(Case(op, opset, [a, b], i("fmod", fmod)), None if fmod else "fmod")
        divisor = ("const", INT32, [rng.randint(1, 5) for _ in range(product(b))], b)
        attrs = i("fmod", rng.randint(0, 1)) if rng.random() < 0.6 else ""
        return Case(op, opset, [("typed", INT32, a), divisor], attrs)
    if op in ("And", "Or", "Xor"):
        return Case(op, 7, [("typed", BOOL, a), ("typed", BOOL, b)])
    return Case(op, rng.choice([12, 16]), [a, b])


def contrib_nn(rng):
    """com.microsoft (opset 1 of it, beside 17): FusedConv (Conv's shapes, activation Relu, Tanh, Sigmoid or
    LeakyRelu with activation_params; bias), FusedGemm (Gemm's, activation), TransposeMatMul (MatMul's with transA,
    transB of the last two axes, alpha), QGemm (uint8 A [M, K] and B [K, N] with scalar scales and zero points, C
    int32 optional; y_scale given: uint8 output), QLinearLeakyRelu and QLinearSigmoid (the input's shape),
    QLinearSoftmax (opset attribute 13 or 12, axis), QLinearWhere (three-way broadcast of a bool condition and two
    uint8 operands). Invalid (~10%): inner dimensions that differ, channels that differ, shapes that do not
    broadcast, an axis out of range."""
    op = rng.choice(["FusedConv", "FusedGemm", "TransposeMatMul", "QGemm", "QLinearLeakyRelu", "QLinearSigmoid",
                     "QLinearSoftmax", "QLinearWhere"])
    bad = rng.random() < 0.1
    if op == "FusedConv":
        r = rng.choice([1, 2, 2, 3])
        c, m = rng.randint(1, 3), rng.randint(1, 3)
        sp, k, st, dl = _conv_geometry(rng, r)
        w = [m, c + (1 if bad else 0)] + k
        act = rng.choice(["Relu", "Tanh", "Sigmoid", "LeakyRelu"])
        attrs = string("activation", act) + ints("strides", st)
        if act == "LeakyRelu":
            attrs += 'attribute { name: "activation_params" type: FLOATS floats: [0.1] } '
        if rng.random() < 0.4:
            attrs += ints("pads", [rng.randint(0, kk - 1) for kk in k + k])
        if dl != [1] * r:
            attrs += ints("dilations", dl)
        ins = [[rng.randint(1, 2), c] + sp, _floats(w)] + ([_floats([m])] if rng.random() < 0.5 else [])
        return with_intent(Case(op, 17, ins, attrs, domain=MS), "channels" if bad else None)
    if op in ("FusedGemm", "TransposeMatMul"):
        m, k, n = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        ta, tb = rng.randint(0, 1), rng.randint(0, 1)
        batch = shape(rng, rng.randint(0, 2), zero=0.0) if op == "TransposeMatMul" else []
        a = batch + ([k, m] if ta else [m, k])
        b = [n, k] if tb else [k, n]
        if bad:
            b[1 if tb else 0] += 1
        attrs = i("transA", ta) + i("transB", tb) + flt("alpha", 0.5)
        ins = [a, b]
        if op == "FusedGemm":
            attrs += string("activation", rng.choice(["Relu", "Tanh", "Sigmoid"]))
            if rng.random() < 0.7:
                ins.append(rng.choice([[n], [m, n], [1, n], [m, 1]]))
        return with_intent(Case(op, 17, ins, attrs, domain=MS), "inner" if bad else None)
    if op == "QGemm":
        m, k, n = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        ta, tb = rng.randint(0, 1), rng.randint(0, 1)
        a = [k, m] if ta else [m, k]
        b = [n, k] if tb else [k, n]
        if bad:
            b[1 if tb else 0] += 1
        q = _scalar_f(0.1)
        ins = [("typed", UINT8, a), q, _u8(), ("typed", UINT8, b), q, _u8()]
        cshape = rng.choice([None, [n], [m, n], [1, n]])
        ins.append(("const", INT32, [1] * product(cshape), cshape) if cshape else None)
        if rng.random() < 0.5:
            ins += [q, _u8()]
        while ins[-1] is None:
            ins.pop()
        return with_intent(Case(op, 17, ins, i("transA", ta) + i("transB", tb) + flt("alpha", 1.0), domain=MS),
                           "inner" if bad else None)
    q, z = _scalar_f(0.05), _u8(128)
    if op in ("QLinearLeakyRelu", "QLinearSigmoid"):
        s = shape(rng)
        attrs = flt("alpha", 0.1) if op == "QLinearLeakyRelu" else ""
        return Case(op, 17, [("typed", INT32 if bad else UINT8, s), q, z, q, z], attrs, domain=MS)
    if op == "QLinearSoftmax":
        s = shape(rng, rng.randint(1, 4), zero=0.0)  # an empty input stops ONNX Runtime's process
        r = len(s)
        ver = rng.choice([12, 13])
        a = rng.randint(-r, r - 1) if not bad else r
        attrs = i("opset", ver) + (i("axis", a) if rng.random() < 0.8 or bad else "")
        return with_intent(Case(op, 17, [("typed", UINT8, s), q, z, q, z], attrs, domain=MS), "axis" if bad else None)
    c, x, y = _broadcast_set(rng, 3)
    return Case(op, 17, [("typed", BOOL, c), ("typed", UINT8, x), q, z, ("typed", UINT8, y), q, z, q, z], domain=MS)


def deform_conv(rng):
    """DeformConv (19, 22): X [N, C, H, W], W [M, C/group, kH, kW], offset [N, offset_group * 2 * kH * kW, oH, oW],
    optional B [M] and mask [N, offset_group * kH * kW, oH, oW]: [N, M, oH, oW] as Conv's (strides, pads,
    dilations, kernel_shape when given W's), group 1 or 2, offset_group dividing C. Valid with the dilated kernel
    within the padded input. Invalid (~15%, each refused by ONNX Runtime when it runs): offset or mask of another
    channel count, position or batch, a bias of another length, offset_group not dividing C, C not W[1] * group,
    kernel_shape not W's, a rank other than 4."""
    group, og = rng.choice([1, 1, 2]), rng.choice([1, 1, 2])
    c, m = group * og * rng.randint(1, 2), group * rng.randint(1, 2)
    sp, k, st, dl = _conv_geometry(rng, 2)
    n = 0 if rng.random() < 0.05 else rng.randint(1, 2)
    pads = [rng.randint(0, kk - 1) for kk in k + k] if rng.random() < 0.5 else [0] * 4
    out = [(s + pads[a] + pads[a + 2] - dl[a] * (k[a] - 1) - 1) // st[a] + 1 for a, s in enumerate(sp)]
    if any(o < 1 for o in out):  # the dilated kernel past the input: undilated instead
        dl = [1, 1]
        out = [(s + pads[a] + pads[a + 2] - (k[a] - 1) - 1) // st[a] + 1 for a, s in enumerate(sp)]
    attrs = ints("strides", st) + ints("dilations", dl) + ints("pads", pads)
    if rng.random() < 0.4:
        attrs += ints("kernel_shape", k)
    if group > 1:
        attrs += i("group", group)
    if og > 1:
        attrs += i("offset_group", og)
    x, w = [n, c] + sp, [m, c // group] + k
    offset, mask = [n, og * 2 * k[0] * k[1]] + out, [n, og * k[0] * k[1]] + out
    bias = [m] if rng.random() < 0.5 else None
    with_mask = rng.random() < 0.5
    bad = rng.choice(["offset_c", "offset_hw", "offset_n", "mask_c", "bias", "og", "channels", "kernel_shape",
                      "rank"]) if rng.random() < 0.15 else None
    if bad == "offset_c":
        offset[1] += 1
    elif bad == "offset_hw":
        offset[rng.choice([2, 3])] += 1
    elif bad == "offset_n":
        offset[0] = 2 if n == 1 else 1
    elif bad == "mask_c":
        with_mask = True
        mask[1] += 1
    elif bad == "bias":
        bias = [m + 1]
    elif bad == "og":
        attrs += i("offset_group", c + 1) if og == 1 else ""
    elif bad == "channels":
        w[1] += 1
    elif bad == "kernel_shape":
        attrs += ints("kernel_shape", [kk + 1 for kk in k]) if "kernel_shape" not in attrs else ""
    elif bad == "rank":
        offset = offset[:3]
    ins = [x, w, offset] + ([bias] if bias or with_mask else []) + ([mask] if with_mask else [])
    if with_mask and not bias:
        ins[3] = None
    return with_intent(Case("DeformConv", rng.choice([19, 22]), ins, attrs), bad)


def qlinear_pool_concat(rng):
    """com.microsoft's QLinearAveragePool, QLinearGlobalAveragePool and QLinearConcat (the QOperator ops ONNX Runtime's
    quantiser writes), of uint8 or int8 tensors with scalar scales and zero points of their type.
    QLinearAveragePool: X [N, C, spatial...], or with channels_last [N, spatial..., C] (1 to 3 spatial axes), with
    kernel_shape, strides, pads or auto_pad, ceil_mode and count_include_pad: AveragePool's output, the channels where
    X has them. QLinearGlobalAveragePool: X of rank 3 to 5: [N, C, 1...], or [N, 1..., C] with channels_last.
    QLinearConcat: 2 or 3 inputs of one rank (1 to 4, N of 0 too) joined along axis (negative too).
    Invalid, about one time in ten: X of another rank than the kernel's plus 2, a kernel past the padded input (ORT at
    run: a negative output), X of rank 2 for the global pool (ORT at run: 'Input dimension cannot be less than 3'),
    inputs that differ off the axis or an axis out of range (ORT at run), inputs not in threes (ORT at load: 'Each
    input must be (tensor, scale, zero_point) tuple')."""
    op = rng.choice(["QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearConcat"])
    t = rng.choice([UINT8, INT8])
    scale, zero = ("const", FLOAT, [0.5], []), ("const", t, [1], [])
    bad = rng.choice(["rank", "big", "axis", "dims", "threes"]) if rng.random() < 0.12 else None
    last = rng.random() < 0.4
    attrs = i("channels_last", 1) if last else ""
    if op == "QLinearAveragePool":
        sp = [rng.randint(1, 6) for _ in range(rng.randint(1, 3))]
        k = [rng.randint(1, min(3, s)) for s in sp]
        attrs += ints("kernel_shape", k)
        if rng.random() < 0.6:
            attrs += ints("strides", [rng.randint(1, 3) for _ in sp])
        auto = rng.choice(["NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"])
        if auto != "NOTSET":
            attrs += string("auto_pad", auto)
        elif rng.random() < 0.5:
            attrs += ints("pads", [rng.randint(0, kk - 1) for kk in k] * 2)
        if rng.random() < 0.3:
            attrs += i("ceil_mode", 1)
        if rng.random() < 0.3:
            attrs += i("count_include_pad", 1)
        n, c = rng.randint(1, 2), rng.randint(1, 3)
        if bad == "rank":
            sp = sp + [2]
        elif bad == "big":
            attrs = attrs.replace(f"ints: {k}", f"ints: {[s + 3 for s in sp]}", 1)
        x = [n] + sp + [c] if last else [n, c] + sp
        return with_intent(Case(op, 17, [("typed", t, x), scale, zero, scale, zero], attrs, domain=MS), bad)
    if op == "QLinearGlobalAveragePool":
        x = [rng.randint(1, 2), rng.randint(1, 3)] + [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
        if bad == "rank":
            x = x[:2]
        return with_intent(Case(op, 17, [("typed", t, x), scale, zero, scale, zero], attrs, domain=MS), bad)
    rank = rng.randint(1, 4)
    first = [rng.randint(0, 3) for _ in range(rank)]
    axis = rng.randint(-rank, rank - 1)
    parts = []
    for _ in range(rng.randint(2, 3)):
        d = list(first)
        d[axis] = rng.randint(0, 3)
        parts.append(d)
    if bad == "dims" and rank > 1:
        parts[1][(axis + 1) % rank] += 1
    elif bad == "axis":
        axis = rank if rng.random() < 0.5 else -rank - 1
    inputs = [scale, zero]
    for d in parts:
        inputs += [("typed", t, d), scale, zero]
    if bad == "threes":
        inputs = inputs[:-1]
    return with_intent(Case(op, 17, inputs, i("axis", axis), domain=MS), bad)


def experimental(rng):
    """ONNX's experimental ops that ONNX Runtime 1.30 runs at version 1 (models of opset 7 to 9; from opset 10 it refuses
    them as deprecated, drawn one time in ten): ImageScaler (X [N, C, H, W], bias of C values, scale), Affine, Scale,
    ScaledTanh and ParametricSoftplus (the input's shape, any rank), Crop (X [N, C, H, W], border of four, maybe a
    scale of two: [N, C, H - top - bottom, W - left - right] or [N, C, scale...]) and DynamicSlice (Slice-10 without
    steps: starts, ends and maybe axes, int64 or int32, negative and past the end too).
    Invalid, about one time in eight: ImageScaler's bias of another count (ORT at run: 'Bias size ... does not match
    the number of channels') or X of rank 3 (at run), ScaledTanh and ParametricSoftplus without alpha (at load),
    Crop's borders past the map or its window past it (at run), an axis out of range or given twice."""
    op = rng.choice(["ImageScaler", "Affine", "Scale", "ScaledTanh", "ParametricSoftplus", "Crop", "DynamicSlice"])
    opset = rng.choice([7, 8, 9]) if rng.random() < 0.9 else rng.choice([10, 11, 13])
    bad = rng.choice(["count", "rank", "attr", "past"]) if rng.random() < 0.12 else None
    if op == "ImageScaler":
        x = [rng.randint(1, 2), rng.randint(1, 4), rng.randint(1, 5), rng.randint(1, 5)]
        c = x[1] + (1 if bad == "count" else 0)
        if bad == "rank":
            x = x[:3]
        attrs = f'attribute {{ name: "bias" type: FLOATS floats: {[0.5] * c} }} ' + flt("scale", 2.0)
        return with_intent(Case(op, opset, [x], attrs), bad)
    if op in ("Affine", "Scale", "ScaledTanh", "ParametricSoftplus"):
        attrs = {"Affine": flt("alpha", 2.0) + flt("beta", 0.5), "Scale": flt("scale", 3.0)}.get(op, "")
        if op in ("ScaledTanh", "ParametricSoftplus") and bad != "attr":
            attrs = flt("alpha", 2.0) + flt("beta", 0.5)
        return with_intent(Case(op, opset, [shape(rng)], attrs), bad)
    if op == "Crop":
        h, w = rng.randint(1, 8), rng.randint(1, 8)
        border = [rng.randint(0, w // 2), rng.randint(0, h // 2), rng.randint(0, w // 2), rng.randint(0, h // 2)]
        attrs = ints("border", border)
        if rng.random() < 0.4:
            sizes = [rng.randint(0, h - border[1]), rng.randint(0, w - border[0])]
            if bad == "past":
                sizes[0] += 1
            attrs += ints("scale", sizes)
        elif bad == "past":
            attrs = ints("border", [border[0], h + 1 - border[3], border[2], border[3]])
        return with_intent(Case(op, opset, [[rng.randint(1, 2), rng.randint(1, 3), h, w]], attrs), bad)
    x = shape(rng, rng.randint(1, 3), zero=0.0)
    axes = rng.sample(range(len(x)), rng.randint(1, len(x)))
    starts = [rng.randint(-x[a] - 1, x[a] + 1) for a in axes]
    ends = [rng.choice([rng.randint(-x[a] - 1, x[a] + 1), 2**31 - 1]) for a in axes]
    if bad == "past":
        axes[0] = len(x)
    elif bad == "count" and len(axes) > 1:
        axes[1] = axes[0]
    t = rng.choice([INT64, INT32])
    inputs = [x, ("const", t, starts, [len(axes)]), ("const", t, ends, [len(axes)])]
    if rng.random() < 0.7 or bad:
        inputs.append(("const", t, axes, [len(axes)]))
    else:
        inputs = [x, ("const", t, starts + [0] * (len(x) - len(axes)), [len(x)]),
                  ("const", t, ends + [2**31 - 1] * (len(x) - len(axes)), [len(x)])]
    return with_intent(Case(op, opset, inputs), bad)


FAMILIES = {
    "conv": conv, "conv_transpose": conv_transpose, "gemm": gemm, "norm_more": norm_more, "prelu_clip": prelu_clip,
    "dropout": dropout, "recurrent": recurrent, "space_depth": space_depth, "einsum": einsum,
    "unary_more": unary_more, "variadic": variadic, "contrib_nn": contrib_nn, "deform_conv": deform_conv,
    "qlinear_pool_concat": qlinear_pool_concat, "experimental": experimental,
}

# Disagreements known and not fixed yet, each (op, words in the problem or ONNX Runtime's error, why).
KNOWN = [
    ("GlobalAveragePool", "invalid channel count", "a 4-D input of C = 0 (the batch empty too): ONNX Runtime's NCHWc "
                                                   "layout transform (its ReorderOutput, which depends on the machine) "
                                                   "refuses it where its pooling kernel runs it; reshape1 follows the "
                                                   "kernel: [0, 0, 1, 1] of an empty batch"),
    ("GlobalMaxPool", "invalid channel count", "as GlobalAveragePool"),
    ("RNN", "Batchwise recurrent operations (layout == 1) are not supported", "layout 1: ONNX Runtime 1.30's CPU "
                                                                              "kernels refuse it; reshape1 gives the "
                                                                              "spec's batch-major shapes"),
    ("GRU", "Batchwise recurrent operations (layout == 1) are not supported", "as RNN"),
    ("LSTM", "Batchwise recurrent operations (layout == 1) are not supported", "as RNN"),
    ("QLinearSoftmax", "'axis' must be in [", "com.microsoft.QLinearSoftmax with opset attribute 12 and an axis out "
                                              "of range: ONNX Runtime refuses the model when it loads it, reshape1 "
                                              "gives the input's shape (with opset 13 it refuses too)"),
    ("Einsum", "Ellipsis represents incompatible dimensions", "ellipses of two non-zero ranks ('...ab' of [2, 1, 1] "
                                                              "beside '...bc' of [3, 1, 4]): ONNX Runtime refuses "
                                                              "the model when it loads it (ONNX's inference), "
                                                              "reshape1 broadcasts them as numpy does"),
]

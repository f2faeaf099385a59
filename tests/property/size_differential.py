#!/usr/bin/env python3
"""Differential test of `reshape1 check MODEL.onnx --shape x=[1,C,H',W']` at new sizes, against ONNX Runtime.

Each program is a small image computation over x [1,C,H,W] whose values may depend on H and W (a view to
[1, C*H*W], a mean written as a sum divided by H*W, a crop to the width, a grid from Range(W), an
interpolation to 2H x 2W...). It is "exported" twice as a fixed-shape export does: at size A and at size B,
every value computed from H and W folded into a constant. ONNX Runtime runs export A at B, with its input's
H and W freed (dim_param) and no declared output shape, against export B (tests/onnx/ort/same.js):
"same", "differ" or "fails". reshape1 checks export A at B's shape; its verdict is held against that:
  - a "yes" where export A differs or fails at B is a failure (the models are kept and printed);
  - among the programs that compute the same, at most 10% may get "no" or "cannot tell";
  - at least a third of the programs must differ or fail, so that both sides are tested.
Some families hold deliberate coincidences (a channel count equal to H at A, which keeps its meaning).
Counts per family are printed.

With --fix, each program that differs or fails is also given to `fix --shape x=[1,C,?,?]`: a model it writes
must equal export B at B and export A at A in ONNX Runtime (a wrong fix is a failure); the share fixed of
the families with a rewrite (REWRITABLE) is printed, and must be 90% at least.

    size_differential.py RESHAPE1 ONNX_FROM_TEXT [--programs N] [--seed S] [--keep DIR] [--fix] [--only FAMILY]
"""
import argparse
import collections
import json
import math
import os
import pathlib
import random
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SAME = HERE.parent / "onnx" / "ort" / "same.js"
NODE = os.environ.get("RESHAPE1_NODE", "node")


def attr(name, v):
    if isinstance(v, bool) or isinstance(v, int):
        return f'attribute {{ name: "{name}" i: {int(v)} type: INT }}'
    if isinstance(v, float):
        return f'attribute {{ name: "{name}" f: {v!r} type: FLOAT }}'
    if isinstance(v, str):
        return f'attribute {{ name: "{name}" s: "{v}" type: STRING }}'
    return f'attribute {{ name: "{name}" ints: [{", ".join(map(str, v))}] type: INTS }}'


class Program:
    """One export: nodes and initializers, the tensor `y` its output."""

    def __init__(self):
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, base):
        self.k += 1
        return f"{base}{self.k}"

    def i64(self, values, scalar=False):
        n = self.name("c")
        dims = "" if scalar else f"dims: {len(values)} "
        self.inits.append(f'initializer {{ name: "{n}" data_type: 7 {dims}int64_data: [{", ".join(map(str, values))}] }}')
        return n

    def f32(self, value):
        n = self.name("f")
        self.inits.append(f'initializer {{ name: "{n}" data_type: 1 float_data: [{value!r}] }}')
        return n

    def f32s(self, values, dims):
        n = self.name("f")
        self.inits.append(f'initializer {{ name: "{n}" data_type: 1 dims: [{", ".join(map(str, dims))}] '
                          f'float_data: [{", ".join(map(repr, values))}] }}')
        return n

    def op(self, op, inputs, out=None, **attrs):
        out = out or self.name("t")
        a = " ".join(attr(k, v) for k, v in attrs.items())
        ins = ", ".join(f'"{i}"' for i in inputs)
        self.nodes.append(f'node {{ name: "{out}" op_type: "{op}" input: [{ins}] output: ["{out}"] {a} }}')
        return out

    def text(self, c, h, w, free):
        dims = [f"dim {{ dim_value: {d} }}" for d in (1, c)]
        dims += ['dim { dim_param: "H" }', 'dim { dim_param: "W" }'] if free else [f"dim {{ dim_value: {d} }}" for d in (h, w)]
        body = "\n  ".join(self.inits + self.nodes)
        return (f'ir_version: 8\nopset_import {{ domain: "" version: 13 }}\ngraph {{\n  name: "p"\n'
                f'  input {{ name: "x" type {{ tensor_type {{ elem_type: 1 shape {{ {" ".join(dims)} }} }} }} }}\n'
                f'  {body}\n  output {{ name: "y" type {{ tensor_type {{ elem_type: 1 }} }} }}\n}}\n')


# Each family writes the program at one size (c, h, w): every value the program computes from h and w is
# written as the constant it is there. Those with "_free" compute it from the shape, or need none.
def flatten_baked(p, c, h, w):
    p.op("Reshape", ["x", p.i64([1, c * h * w])], "y")

def flatten_minus1(p, c, h, w):
    p.op("Reshape", ["x", p.i64([1, -1])], "y")

def flatten_kept_channels(p, c, h, w):
    p.op("Reshape", ["x", p.i64([0, c, -1])], "y")

def mean_baked(p, c, h, w):
    s = p.op("ReduceSum", ["x", p.i64([2, 3])], keepdims=0)
    p.op("Div", [s, p.f32(float(h * w))], "y")

def mean_reciprocal(p, c, h, w):
    s = p.op("ReduceSum", ["x", p.i64([2, 3])], keepdims=0)
    p.op("Mul", [s, p.f32(1.0 / (h * w))], "y")

def mean_op(p, c, h, w):
    p.op("ReduceMean", ["x"], "y", axes=[2, 3], keepdims=0)

# Variances with Bessel's correction (torch's unbiased var and std) after a converter folded the count:
# the mean of squares times n, divided by n - 1; a sum of squares times 1/(n - 1); a mean of squares
# times n/(n - 1), under a square root.
def squares(p):
    mean = p.op("ReduceMean", ["x"], axes=[2, 3], keepdims=1)
    d = p.op("Sub", ["x", mean])
    return p.op("Mul", [d, d])

def variance_bessel(p, c, h, w):
    v = p.op("ReduceMean", [squares(p)], axes=[2, 3], keepdims=0)
    m = p.op("Mul", [v, p.f32(float(h * w))])
    p.op("Div", [m, p.f32(float(h * w - 1))], "y")

def variance_sum_bessel(p, c, h, w):
    s = p.op("ReduceSum", [squares(p), p.i64([2, 3])], keepdims=0)
    p.op("Mul", [s, p.f32(1.0 / (h * w - 1))], "y")

def std_ratio(p, c, h, w):
    v = p.op("ReduceMean", [squares(p)], axes=[2, 3], keepdims=0)
    u = p.op("Mul", [v, p.f32(h * w / (h * w - 1))])
    p.op("Sqrt", [u], "y")

# The same factors as a product's first operand (Mul(c, v)): a converter may write either order.
def mean_reciprocal_first(p, c, h, w):
    s = p.op("ReduceSum", ["x", p.i64([2, 3])], keepdims=0)
    p.op("Mul", [p.f32(1.0 / (h * w)), s], "y")

def variance_sum_bessel_first(p, c, h, w):
    s = p.op("ReduceSum", [squares(p), p.i64([2, 3])], keepdims=0)
    p.op("Mul", [p.f32(1.0 / (h * w - 1)), s], "y")

def std_ratio_first(p, c, h, w):
    v = p.op("ReduceMean", [squares(p)], axes=[2, 3], keepdims=0)
    u = p.op("Mul", [p.f32(h * w / (h * w - 1)), v])
    p.op("Sqrt", [u], "y")

def std_sqrt_ratio(p, c, h, w):
    v = p.op("ReduceMean", [squares(p)], axes=[2, 3], keepdims=0)
    s = p.op("Sqrt", [v])
    p.op("Mul", [s, p.f32((h * w / (h * w - 1)) ** 0.5)], "y")

# Counts a variance reaches by other ways: spread over two reductions (one axis at a time), of products
# that are no squares (a covariance, absolute or cubed deviations), in integers, or as a correction tensor
# of equal values, one per channel.
def centered(p, t):
    mean = p.op("ReduceMean", [t], axes=[2, 3], keepdims=1)
    return p.op("Sub", [t, mean])

# (The channel count picks the form: it is the same at both sizes.)
def variance_chained(p, c, h, w):
    if c == 2:  # summed over W kept, then over H, times 1/(n-1)
        s = p.op("ReduceSum", [squares(p), p.i64([3])], keepdims=1)
        s = p.op("ReduceSum", [s, p.i64([2])], keepdims=0)
        p.op("Mul", [s, p.f32(1.0 / (h * w - 1))], "y")
    else:  # averaged over W dropped, then over H, times n/(n-1)
        m = p.op("ReduceMean", [squares(p)], axes=[3], keepdims=0)
        m = p.op("ReduceMean", [m], axes=[2], keepdims=0)
        p.op("Mul", [m, p.f32(h * w / (h * w - 1))], "y")

def mean_chained(p, c, h, w):
    if c == 2:  # over W, then over H, divided
        s = p.op("ReduceSum", ["x", p.i64([3])], keepdims=0)
        s = p.op("ReduceSum", [s, p.i64([2])], keepdims=0)
        p.op("Div", [s, p.f32(float(h * w))], "y")
    else:  # over H dropped, then over the last axis, times the reciprocal
        s = p.op("ReduceSum", ["x", p.i64([2])], keepdims=0)
        s = p.op("ReduceSum", [s, p.i64([-1])], keepdims=1)
        p.op("Mul", [s, p.f32(1.0 / (h * w))], "y")

# The squares scaled by a constant before they are summed: a product by 1.0 a converter left, a quotient by
# one, in either operand order.
def variance_scaled(p, c, h, w):
    if c == 2:
        sq = p.op("Mul", [squares(p), p.f32(1.0)])
    else:
        sq = p.op("Div", [p.op("Mul", [p.f32(1.0), squares(p)]), p.f32(1.0)])
    v = p.op("ReduceMean", [sq], axes=[2, 3], keepdims=0)
    s = p.op("Sqrt", [v])
    p.op("Mul", [s, p.f32((h * w / (h * w - 1)) ** 0.5)], "y")

def covariance(p, c, h, w):
    product = p.op("Mul", [centered(p, "x"), centered(p, p.op("Sigmoid", ["x"]))])
    s = p.op("ReduceSum", [product, p.i64([2, 3])], keepdims=0)
    p.op("Div", [s, p.f32(float(h * w - 1))], "y")

def abs_deviation(p, c, h, w):
    s = p.op("ReduceSum", [p.op("Abs", [centered(p, "x")]), p.i64([2, 3])], keepdims=0)
    p.op("Mul", [s, p.f32(1.0 / (h * w - 1))], "y")

def third_moment(p, c, h, w):
    s = p.op("ReduceSum", [p.op("Pow", [centered(p, "x"), p.f32(3.0)]), p.i64([2, 3])], keepdims=0)
    p.op("Div", [s, p.f32(float(h * w - 1))], "y")

def variance_int(p, c, h, w):
    xi = p.op("Cast", [p.op("Mul", ["x", p.f32(16.0)])], to=7)
    s = p.op("ReduceSum", [p.op("Mul", [xi, xi]), p.i64([2, 3])], keepdims=0)
    p.op("Cast", [p.op("Div", [s, p.i64([h * w - 1], scalar=True)])], "y", to=1)

def correction_tensor(p, c, h, w):
    s = p.op("ReduceSum", [squares(p), p.i64([2, 3])], keepdims=0)
    p.op("Mul", [s, p.f32s([1.0 / (h * w - 1)] * c, [1, c])], "y")

# Roots and logarithms of a count, and a count of axes that are not adjacent.
def std_root(p, c, h, w):
    n = p.op("ReduceL2", [centered(p, "x")], axes=[2, 3], keepdims=0)
    p.op("Div", [n, p.f32((h * w - 1) ** 0.5)], "y")

def root_mean_square(p, c, h, w):
    n = p.op("ReduceL2", ["x"], axes=[2, 3], keepdims=0)
    p.op("Mul", [n, p.f32(1.0 / (h * w) ** 0.5)], "y")

def log_mean_exp(p, c, h, w):
    s = p.op("ReduceLogSumExp", ["x"], axes=[2, 3], keepdims=0)
    p.op("Sub", [s, p.f32(math.log(h * w))], "y")

def mean_channels_width(p, c, h, w):
    s = p.op("ReduceSum", ["x", p.i64([1, 3])], keepdims=0)
    p.op("Div", [s, p.f32(float(c * w))], "y")

def crop_whole_width(p, c, h, w):
    p.op("Slice", ["x", p.i64([1]), p.i64([w]), p.i64([3])], "y")

def crop_half(p, c, h, w):
    p.op("Slice", ["x", p.i64([0]), p.i64([w // 2]), p.i64([3])], "y")

def crop_to_end(p, c, h, w):
    p.op("Slice", ["x", p.i64([1]), p.i64([2**62]), p.i64([3])], "y")

def last_row(p, c, h, w):
    p.op("Gather", ["x", p.i64([h - 1], scalar=True)], "y", axis=2)

def last_row_negative(p, c, h, w):
    p.op("Gather", ["x", p.i64([-1], scalar=True)], "y", axis=2)

def pool_window(p, c, h, w):
    q = p.op("AveragePool", ["x"], kernel_shape=[h, w])
    p.op("Flatten", [q], "y")

def pool_global(p, c, h, w):
    q = p.op("GlobalAveragePool", ["x"])
    p.op("Flatten", [q], "y")

def range_grid(p, c, h, w):
    r = p.op("Range", [p.i64([0], scalar=True), p.i64([w], scalar=True), p.i64([1], scalar=True)])
    g = p.op("Cast", [r], to=1)
    p.op("Add", ["x", g], "y")

# Counted constants (a Range folded at export into the numbers it gave): a grid of column positions added to
# the map, `arange(w)` as a [1,w] of floats; rows 1, 3, 5, ... as an [h,1] spread to a fixed [h,w] by Expand
# (yolov5's grid, in part); learned positions, `arange(w)` of int64 indexing a table of 128 (past the
# default samples' widths), added along W.
def counted_columns(p, c, h, w):
    p.op("Add", ["x", p.f32s([float(k) for k in range(w)], [1, w])], "y")

def counted_rows_expanded(p, c, h, w):
    g = p.op("Expand", [p.f32s([float(2 * k + 1) for k in range(h)], [h, 1]), p.i64([h, w])])
    p.op("Add", ["x", g], "y")

def counted_positions(p, c, h, w):
    table = p.f32s([float(k % 7) for k in range(128)], [128])
    positions = p.op("Gather", [table, p.i64(list(range(w)))], axis=0)
    p.op("Add", ["x", positions], "y")

# Grids folded whole (an exporter's constant folding, or onnx-simplifier's, of yolov5's `_make_grid`): one
# constant per channel of the map, the column less 0.5, the row less 0.5, their sum (each channel its own
# slopes along H and W), added to the map and scaled; the columns of a meshgrid, `[h,w]`, the same along H.
def folded_grid(p, c, h, w):
    values = [(j - 0.5, i - 0.5, float(i + j))[ch % 3] for ch in range(c) for i in range(h) for j in range(w)]
    g = p.op("Add", ["x", p.f32s(values, [1, c, h, w])])
    p.op("Mul", [g, p.f32(0.3)], "y")

def folded_meshgrid_columns(p, c, h, w):
    p.op("Add", ["x", p.f32s([float(j) for i in range(h) for j in range(w)], [h, w])], "y")

# Constants the same all along a size (an Expand folded at export): yolov5's anchor_grid, a value per channel at
# every cell, multiplied with the map; a row of one value added along W, `full((1, w), 0.5)`.
def spread_anchor_grid(p, c, h, w):
    p.op("Mul", ["x", p.f32s([0.25 * (ch + 1) for ch in range(c) for i in range(h) for j in range(w)], [1, c, h, w])], "y")

def spread_columns(p, c, h, w):
    p.op("Add", ["x", p.f32s([0.5] * w, [1, w])], "y")

# The same constants exported at a size of 1 (drawn so at A): a grid made at a height of 1, one row, and a count
# of the columns made at a width of 1, `[[0.]]` (the grid's width kept at B, so that only its height is wrong). Each spreads over the new size where the program's would hold
# one value per row or column; one size of 1 cannot show which (nothing to rewrite: refused).
def grid_at_height_1(p, c, h, w):
    folded_grid(p, c, h, w)

def columns_at_width_1(p, c, h, w):
    counted_columns(p, c, h, w)

# ... and the grid first added to the mean over H of the map, 1 high at every height, then spread over it.
def grid_after_mean_at_height_1(p, c, h, w):
    values = [(j - 0.5, i - 0.5, float(i + j))[ch % 3] for ch in range(c) for i in range(h) for j in range(w)]
    m = p.op("ReduceMean", ["x"], axes=[2], keepdims=1)
    g = p.op("Add", [m, p.f32s(values, [1, c, h, w])])
    p.op("Add", ["x", g], "y")

def resize_sizes(p, c, h, w):
    p.op("Resize", ["x", "", "", p.i64([1, c, 2 * h, 2 * w])], "y")

def resize_scales(p, c, h, w):
    n = p.name("s")
    p.inits.append(f'initializer {{ name: "{n}" data_type: 1 dims: 4 float_data: [1.0, 1.0, 2.0, 2.0] }}')
    p.op("Resize", ["x", "", n], "y")

def window_partition(p, c, h, w):
    v = p.op("Reshape", ["x", p.i64([1, c, h // 2, 2, w // 2, 2])])
    t = p.op("Transpose", [v], perm=[0, 1, 3, 5, 2, 4])
    p.op("Reshape", [t, p.i64([1, c * 4, h // 2, w // 2])], "y")

def window_partition_minus1(p, c, h, w):
    v = p.op("Reshape", ["x", p.i64([c, -1, 2, w])])
    p.op("ReduceMax", [v], "y", axes=[2], keepdims=0)

def attention_baked(p, c, h, w):
    v = p.op("Reshape", ["x", p.i64([1, c, h * w])])
    t = p.op("Transpose", [v], perm=[0, 2, 1])
    s = p.op("MatMul", [t, v])
    p.op("Softmax", [s], "y", axis=-1)

def attention_minus1(p, c, h, w):
    v = p.op("Reshape", ["x", p.i64([1, c, -1])])
    t = p.op("Transpose", [v], perm=[0, 2, 1])
    s = p.op("MatMul", [t, v])
    p.op("Softmax", [s], "y", axis=-1)

def channel_divisor(p, c, h, w):
    # A divisor that is the channel count; drawn with c == h at A (a coincidence): it keeps its meaning.
    s = p.op("ReduceSum", ["x", p.i64([1])], keepdims=1)
    p.op("Div", [s, p.f32(float(c))], "y")

def pad_to_multiple(p, c, h, w):
    m = 4
    p.op("Pad", ["x", p.i64([0, 0, 0, 0, 0, 0, 0, (m - w % m) % m])], "y")

def pad_window(p, c, h, w):
    # Swin's window block along W: pad W to a multiple of the window (4), cut it into windows, fold
    # the windows into the batch (the -1 keeps the window, 4, as a size that stays), attend within each,
    # fold back, crop to W and add the input. The pad, the window count and the crop are folded at export.
    m = 4
    wp = w + (m - w % m) % m
    q = p.op("Pad", ["x", p.i64([0, 0, 0, 0, 0, 0, 0, wp - w])])
    v = p.op("Reshape", [q, p.i64([1, c, h, wp // m, m])])
    t = p.op("Transpose", [v], perm=[0, 3, 1, 2, 4])
    win = p.op("Reshape", [t, p.i64([-1, c, h, m])])
    s = p.op("Softmax", [win], axis=-1)
    r = p.op("Reshape", [s, p.i64([1, wp // m, c, h, m])])
    t2 = p.op("Transpose", [r], perm=[0, 2, 3, 1, 4])
    full = p.op("Reshape", [t2, p.i64([1, c, h, wp])])
    crop = p.op("Slice", [full, p.i64([0]), p.i64([w]), p.i64([3])])
    p.op("Add", [crop, "x"], "y")

def pad_window_2d(p, c, h, w):
    # The same over H and W, as Swin pads both: windows of 4x4, cropped back along both axes.
    m = 4
    hp, wp = h + (m - h % m) % m, w + (m - w % m) % m
    q = p.op("Pad", ["x", p.i64([0, 0, 0, 0, 0, 0, hp - h, wp - w])])
    v = p.op("Reshape", [q, p.i64([1, c, hp // m, m, wp // m, m])])
    t = p.op("Transpose", [v], perm=[0, 2, 4, 1, 3, 5])
    win = p.op("Reshape", [t, p.i64([-1, c, m, m])])
    s = p.op("Softmax", [win], axis=-1)
    r = p.op("Reshape", [s, p.i64([1, hp // m, wp // m, c, m, m])])
    t2 = p.op("Transpose", [r], perm=[0, 3, 1, 4, 2, 5])
    full = p.op("Reshape", [t2, p.i64([1, c, hp, wp])])
    crop = p.op("Slice", [full, p.i64([0, 0]), p.i64([h, w]), p.i64([2, 3])])
    p.op("Add", [crop, "x"], "y")

def tile_rows(p, c, h, w):
    r = p.op("ReduceMean", ["x"], axes=[2], keepdims=1)
    t = p.op("Tile", [r, p.i64([1, 1, h, 1])])
    p.op("Sub", ["x", t], "y")

def expand_rows(p, c, h, w):
    r = p.op("ReduceMean", ["x"], axes=[2], keepdims=1)
    t = p.op("Expand", [r, p.i64([1, c, h, w])])
    p.op("Sub", ["x", t], "y")

def expand_computed(p, c, h, w):
    r = p.op("ReduceMean", ["x"], axes=[2], keepdims=1)
    t = p.op("Expand", [r, p.op("Shape", ["x"])])
    p.op("Sub", ["x", t], "y")

def topk_width(p, c, h, w):
    p.op("TopK", ["x", p.i64([w])], "y", axis=-1)
    p.nodes[-1] = p.nodes[-1].replace('output: ["y"]', 'output: ["y", "idx"]')

def topk_fixed(p, c, h, w):
    p.op("TopK", ["x", p.i64([2])], "y", axis=-1)
    p.nodes[-1] = p.nodes[-1].replace('output: ["y"]', 'output: ["y", "idx"]')

def view_from_shape(p, c, h, w):
    s = p.op("Shape", ["x"])
    first = p.op("Slice", [s, p.i64([0]), p.i64([2]), p.i64([0])])
    pattern = p.op("Concat", [first, p.i64([-1])], axis=0)
    p.op("Reshape", ["x", pattern], "y")

# x.shape folded at export into a table [1,c,h,w] that the program then indexes (shape_table): the width taken
# from it for a grid of columns, `arange(x.shape[3])`, added to the map; H and W sliced from it for an Expand of
# the map's mean back over them.
def shape_table_width(p, c, h, w):
    width = p.op("Gather", [p.i64([1, c, h, w]), p.i64([3], scalar=True)], axis=0)
    r = p.op("Range", [p.i64([0], scalar=True), width, p.i64([1], scalar=True)])
    p.op("Add", ["x", p.op("Cast", [r], to=1)], "y")

def shape_table_sliced(p, c, h, w):
    hw = p.op("Slice", [p.i64([1, c, h, w]), p.i64([2]), p.i64([4]), p.i64([0])])
    target = p.op("Concat", [p.i64([1, 1]), hw], axis=0)
    m = p.op("ReduceMean", ["x"], axes=[2, 3], keepdims=1)
    p.op("Sub", ["x", p.op("Expand", [m, target])], "y")

# ... and H·W computed from it as a mean's divisor: at another size the program runs and divides by the old count.
def shape_table_count(p, c, h, w):
    table = p.i64([1, c, h, w])
    rows, cols = (p.op("Gather", [table, p.i64([k], scalar=True)], axis=0) for k in (2, 3))
    count = p.op("Cast", [p.op("Mul", [rows, cols])], to=1)
    p.op("Div", [p.op("ReduceSum", ["x", p.i64([2, 3])], keepdims=1), count], "y")


FAMILIES = [flatten_baked, flatten_minus1, flatten_kept_channels, mean_baked, mean_reciprocal, mean_op,
            crop_whole_width, crop_half, crop_to_end, last_row, last_row_negative, pool_window, pool_global,
            range_grid, resize_sizes, resize_scales, window_partition, window_partition_minus1, attention_baked,
            attention_minus1, channel_divisor, pad_to_multiple, pad_window, pad_window_2d, tile_rows, expand_rows,
            expand_computed, topk_width, topk_fixed, view_from_shape, variance_bessel, variance_sum_bessel, std_ratio, std_sqrt_ratio,
            mean_reciprocal_first, variance_sum_bessel_first, std_ratio_first, variance_chained, mean_chained,
            covariance, abs_deviation, third_moment, variance_int, correction_tensor, std_root, root_mean_square,
            log_mean_exp, mean_channels_width, variance_scaled, counted_columns, counted_rows_expanded,
            counted_positions, folded_grid, folded_meshgrid_columns, grid_at_height_1, columns_at_width_1,
            grid_after_mean_at_height_1, spread_anchor_grid, spread_columns, shape_table_width, shape_table_sliced,
            shape_table_count]


# The families whose broken programs `fix --shape` has a rewrite for (issue 48: Reshape patterns, Resize's
# sizes, Slice's ends, a Gather's last position, TopK's k of a whole axis, a Range's limit, Tile's repeats and
# Expand's shape, a divisor that counts the elements summed, a factor one over it, a pooling window of the
# whole map, a pad to a window that a later Reshape keeps, a constant that counts along a size, a grid
# folded whole, a constant spread along a size, a table of the input's shape); the others'
# constants are refused, naming them.
# (Not pad_to_multiple: nothing in its graph names the multiple.)
# (Not window_partition: its split of H = 8 into `[4,2]` exports the same constants as a program that cuts H
# in 4 blocks of H/4, and nothing else in its graph tells them apart, so fix refuses it as the issue asks
# where no reading is supported. A cold attack measured 12 wrong fixes when a shared factor was taken as the
# window.)
REWRITABLE = {"flatten_baked", "attention_baked", "resize_sizes", "crop_half", "crop_whole_width",
              "last_row", "topk_width", "range_grid", "tile_rows", "expand_rows", "mean_baked", "mean_reciprocal",
              "pool_window", "variance_bessel", "variance_sum_bessel", "std_ratio", "mean_reciprocal_first",
              "variance_sum_bessel_first", "std_ratio_first", "variance_chained", "mean_chained",
              "mean_channels_width", "pad_window", "pad_window_2d", "counted_columns", "counted_rows_expanded",
              "counted_positions", "folded_grid", "folded_meshgrid_columns", "spread_anchor_grid", "spread_columns",
              "shape_table_width", "shape_table_sliced", "shape_table_count"}


def fix_phase(args, tmp, cases, outcomes, counts):
    """`fix --shape x=[1,C,?,?]` on each export A that ONNX Runtime found to differ or fail at B, and where that
    is refused and B's sizes are 2 at least, `x=[1,C,2..,2..]` (as fix's docs tell a user to ask where a
    tensor met may broadcast a 1); each model written is run at B against export B and at A against export A.
    Returns the wrong fixes (a model written that differs or fails at either) and, over the REWRITABLE
    families, (fixed, broken)."""
    wrong, pairs, fixed_of = [], [], {}
    rewritable = fixed = 0
    for (k, name, files, spec, (c, ha, wa, hb, wb)), o in zip(cases, outcomes):
        if o["outcome"] in ("same", "truth_fails"):
            continue
        rewritable += name in REWRITABLE
        out = tmp / f"{k}.fixed.onnx"
        for asked in ("?", "2..") if min(ha, wa, hb, wb) >= 2 else ("?",):
            p = subprocess.run([args.reshape1, "fix", str(files["declared"]), "--shape", f"x=[1,{c},{asked},{asked}]",
                                "-o", str(out)], capture_output=True, text=True, timeout=300)
            if p.returncode == 0 and out.exists():
                break
        if p.returncode != 0 or not out.exists():
            counts[name]["fix refused"] += 1
            continue
        at_a = tmp / f"{k}.a.json"
        at_a.write_text(json.dumps({"inputs": {"x": [1, c, ha, wa]}, "seed": k + 2}))
        fixed_of[k] = len(pairs)
        pairs += [[str(out), str(files["truth"]), str(spec)], [str(out), str(files["declared"]), str(at_a)]]
    if not pairs:
        return wrong, (fixed, rewritable)
    listing = tmp / "fixed.json"
    listing.write_text(json.dumps(pairs))
    out = subprocess.run([NODE, str(SAME), "--many", str(listing)], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr)
        sys.exit(out.returncode)
    judged = [json.loads(line) for line in out.stdout.splitlines()]
    for k, name, files, spec, (c, ha, wa, hb, wb) in cases:
        if k not in fixed_of:
            continue
        at_b, at_a = judged[fixed_of[k]], judged[fixed_of[k] + 1]
        if at_b["outcome"] == "same" and at_a["outcome"] == "same":
            counts[name]["fix same"] += 1
            fixed += name in REWRITABLE
        else:
            counts[name]["fix WRONG"] += 1
            wrong.append(f"{name} #{k} at A {ha}x{wa}, B {hb}x{wb}, C {c}: fix wrote a model that ONNX Runtime finds "
                         f"{at_b['outcome']} at B ({at_b['detail'][:120]}), {at_a['outcome']} at A")
    return wrong, (fixed, rewritable)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reshape1")
    ap.add_argument("from_text")
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep")
    ap.add_argument("--only", help="the programs of this family only")
    ap.add_argument("--fix", action="store_true",
                    help="also run fix --shape on the programs that differ or fail, and the models it writes")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    counts = collections.defaultdict(collections.Counter)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        cases = []
        for k in range(args.programs):
            family = FAMILIES[k % len(FAMILIES)]
            if args.only and family.__name__ != args.only:
                continue
            # Even sizes (a window partition by 2), above the channel counts and the other small constants
            # the families write. At A, H and W are drawn apart (neither equal nor one twice or half the
            # other), so that a constant matches a size other than its own only in the family that does so
            # by design (channel_divisor); with square images allowed, 11-14% of the programs that compute
            # the same get "cannot tell" (docs/batch.md).
            ha, wa = rnd.choice([8, 10, 12]), rnd.choice([14, 18, 22])
            if family in (pad_window, pad_window_2d):
                # Sizes at A apart from the window (4): H 8 is twice it (the 4 may be H/2), W 14 pads to 16, 4
                # windows of 4 (which is which?); fix refuses both, as it should.
                ha, wa = rnd.choice([10, 12]), rnd.choice([18, 22])
            hb, wb = rnd.choice([6, 8, 10, 12, 14, 20]), rnd.choice([6, 8, 10, 12, 14, 20])
            # Nor the same area: a constant equal to H·W at A is then H·W at B too, though it may stand for
            # another product that changes (8·W where H is 8: a cold attack's strips of 8 rows), so reshape1
            # cannot tell, where the program may compute the same by that coincidence.
            while (hb, wb) == (ha, wa) or hb * wb == ha * wa:
                wb += 2
            if family in (grid_at_height_1, grid_after_mean_at_height_1):
                ha, wb = 1, wa  # only the height changes: the grid along W stays right
            if family is columns_at_width_1:
                wa = 1
            # The coincidence: in half of its programs, channel_divisor's channel count is H at A.
            c = ha if family is channel_divisor and rnd.random() < 0.5 else rnd.choice([2, 3])
            if family in (pad_window, pad_window_2d):
                # Channels of no window's size: 2 or 3 is half the count of windows (rounded up), 5 pads 18 to
                # 20 as 4 does, 7 is half of 15 windows, and check and fix rightly read none of them.
                c = 11
            files = {}
            for tag, (h, w, free) in {"declared": (ha, wa, False), "run": (ha, wa, True), "truth": (hb, wb, False)}.items():
                p = Program()
                family(p, c, h, w)
                text = tmp / f"{k}.{tag}.textproto"
                text.write_text(p.text(c, h, w, free))
                files[tag] = tmp / f"{k}.{tag}.onnx"
                subprocess.run([args.from_text, str(text), str(files[tag])], check=True)
            spec = tmp / f"{k}.json"
            spec.write_text(json.dumps({"inputs": {"x": [1, c, hb, wb]}, "seed": k + 1}))
            cases.append((k, family.__name__, files, spec, (c, ha, wa, hb, wb)))
        listing = tmp / "list.json"
        listing.write_text(json.dumps([[str(f["run"]), str(f["truth"]), str(s)] for _, _, f, s, _ in cases]))
        out = subprocess.run([NODE, str(SAME), "--many", str(listing)], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr)
            sys.exit(out.returncode)
        outcomes = [json.loads(line) for line in out.stdout.splitlines()]
        judged = same = broken = false_answers = 0
        for (k, name, files, _, (c, ha, wa, hb, wb)), o in zip(cases, outcomes):
            if o["outcome"] == "truth_fails":
                counts[name]["truth fails"] += 1
                continue
            check = subprocess.run([args.reshape1, "check", str(files["declared"]), "--shape", f"x=[1,{c},{hb},{wb}]",
                                    "--json"], capture_output=True, text=True)
            verdict = json.loads(check.stdout)["summary"]["verdict"] if check.stdout else "error"
            judged += 1
            counts[name][f"{o['outcome']}/{verdict}"] += 1
            if o["outcome"] == "same":
                same += 1
                false_answers += verdict != "yes"
            else:
                broken += 1
                if verdict == "yes" or verdict == "error":
                    failures.append(f"{name} #{k} at A {ha}x{wa}, B {hb}x{wb}, C {c}: reshape1 says {verdict}, ONNX "
                                    f"Runtime: {o['outcome']} ({o['detail']})")
                    if args.keep:
                        keep = pathlib.Path(args.keep)
                        keep.mkdir(parents=True, exist_ok=True)
                        for tag in ("declared", "truth"):
                            (keep / f"{k}.{tag}.textproto").write_text((tmp / f"{k}.{tag}.textproto").read_text())
        fix_wrong, (fixed, rewritable) = fix_phase(args, tmp, cases, outcomes, counts) if args.fix else ([], (0, 0))
        failures += fix_wrong
    print(f"{'family':26} outcome/verdict counts")
    for name in sorted(counts):
        print(f"{name:26} {dict(sorted(counts[name].items()))}")
    print(f"{judged} programs judged: ONNX Runtime same {same}, differs or fails {broken}; reshape1 wrong yes "
          f"{len(failures)}, no or cannot tell where the same {false_answers}")
    if args.fix:
        print(f"fix --shape: {fixed} of {rewritable} broken programs of the families with a rewrite fixed "
              f"(ONNX Runtime same at A and B), {len(fix_wrong)} wrong fixes")
    bad = list(failures)
    if same and false_answers > 0.10 * same:
        bad.append(f"{false_answers} of {same} programs that compute the same got no or cannot tell (more than 10%)")
    # The target for fix --shape: 90% of the broken programs that have a rewrite are fixed.
    if args.fix and rewritable and fixed < 0.9 * rewritable:
        bad.append(f"fix --shape fixed {fixed} of {rewritable} broken programs with a rewrite (less than 90%)")
    if judged and broken < judged / 3:
        bad.append(f"only {broken} of {judged} programs differ or fail: the generator tests too little")
    if bad:
        print("\n".join(["FAIL"] + bad))
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes a chain of K channel shuffles, as an OpenVINO IR and as ONNX text, for measuring `reshape1 fix` on
Reshapes that follow one another (a ShuffleNet's blocks, a transformer's attention layers), where
make_copies.py measures Reshapes side by side.

Usage: make_chain.py K OUT   (writes OUT.xml, OUT.bin and OUT.textproto)

The input x is [1,8,4,4]; each shuffle is Reshape to [1,2,4,4,4], Transpose (0,2,1,3,4) and Reshape to
[1,8,4,4], both patterns Consts that write the declared batch 1. At another batch only the first Reshape
fails; the next one is seen once that one is fixed, so fix keeps 2K rewrites in 2K rounds. The ONNX text
becomes a model with the test tool built beside the tests: `build/ci/tests/onnx_from_text OUT.textproto
OUT.onnx`. bench/fix_scale/run.py takes the IR as `--model OUT.xml --copies 1`.
"""
import struct
import sys

SHAPE, SPLIT, PERM = [1, 8, 4, 4], [1, 2, 4, 4, 4], [0, 2, 1, 3, 4]


def dims(d):
    return "".join(f"<dim>{x}</dim>" for x in d)


def ir(k_count, out):
    layers, edges, weights = [], [], bytearray()
    ids = iter(range(1 << 30))

    def const(values):
        i, offset = next(ids), len(weights)
        weights.extend(struct.pack(f"<{len(values)}q", *values))
        layers.append(f'<layer id="{i}" name="c{i}" type="Const" version="opset1"><data element_type="i64" '
                      f'shape="{len(values)}" offset="{offset}" size="{8 * len(values)}"/><output><port id="0" '
                      f'precision="I64"><dim>{len(values)}</dim></port></output></layer>')
        return i

    def op(name, kind, data, ins, out_dims, sources):
        i = next(ids)
        ports = "".join(f'<port id="{p}">{dims(d)}</port>' for p, d in enumerate(ins))
        layers.append(f'<layer id="{i}" name="{name}" type="{kind}" version="opset1">{data}<input>{ports}</input>'
                      f'<output><port id="{len(ins)}" precision="FP32">{dims(out_dims)}</port></output></layer>')
        for port, (src, src_port) in enumerate(sources):
            edges.append(f'<edge from-layer="{src}" from-port="{src_port}" to-layer="{i}" to-port="{port}"/>')
        return i, len(ins)

    x = next(ids)
    layers.append(f'<layer id="{x}" name="x" type="Parameter" version="opset1"><data shape="1,8,4,4" '
                  f'element_type="f32"/><output><port id="0" precision="FP32">{dims(SHAPE)}</port></output></layer>')
    at = (x, 0)
    zero = '<data special_zero="true"/>'
    for k in range(k_count):
        at = op(f"r{k}a", "Reshape", zero, [SHAPE, [5]], SPLIT, [at, (const(SPLIT), 0)])
        at = op(f"t{k}", "Transpose", "", [SPLIT, [5]], [1, 4, 2, 4, 4], [at, (const(PERM), 0)])
        at = op(f"r{k}b", "Reshape", zero, [[1, 4, 2, 4, 4], [4]], SHAPE, [at, (const(SHAPE), 0)])
    y = next(ids)
    layers.append(f'<layer id="{y}" name="y" type="Result" version="opset1"><input><port id="0">{dims(SHAPE)}</port>'
                  f'</input></layer>')
    edges.append(f'<edge from-layer="{at[0]}" from-port="{at[1]}" to-layer="{y}" to-port="0"/>')
    with open(out + ".xml", "w") as f:
        f.write('<?xml version="1.0"?>\n<net name="chain" version="11">\n<layers>\n' + "\n".join(layers) +
                "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")
    with open(out + ".bin", "wb") as f:
        f.write(weights)
    return len(layers)


def onnx_text(k_count, out):
    def value_info(name, d):
        shape = " ".join(f"dim {{ dim_value: {x} }}" for x in d)
        return f'{{ name: "{name}" type {{ tensor_type {{ elem_type: 1 shape {{ {shape} }} }} }} }}'

    lines, at = [], "x"
    for k in range(k_count):
        lines += [f'  initializer {{ name: "s{k}a" data_type: 7 dims: 5 int64_data: {SPLIT} }}',
                  f'  initializer {{ name: "s{k}b" data_type: 7 dims: 4 int64_data: {SHAPE} }}',
                  f'  node {{ name: "r{k}a" op_type: "Reshape" input: ["{at}", "s{k}a"] output: ["{k}a"] }}',
                  f'  node {{ name: "t{k}" op_type: "Transpose" input: ["{k}a"] output: ["{k}t"] '
                  f'attribute {{ name: "perm" ints: {PERM} type: INTS }} }}',
                  f'  node {{ name: "r{k}b" op_type: "Reshape" input: ["{k}t", "s{k}b"] output: ["{k}b"] }}']
        at = f"{k}b"
    with open(out + ".textproto", "w") as f:
        f.write('ir_version: 8\nopset_import { version: 13 }\ngraph {\n  name: "chain"\n' + "\n".join(lines) +
                f'\n  input {value_info("x", SHAPE)}\n  output {value_info(at, SHAPE)}\n}}\n')


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(ir(int(sys.argv[1]), sys.argv[2]), "layers")
    onnx_text(int(sys.argv[1]), sys.argv[2])

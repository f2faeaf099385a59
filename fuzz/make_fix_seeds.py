#!/usr/bin/python3
"""Writes fuzz/corpus/ir/seed-fix-*: small IRs that `reshape1 fix` rewrites, in fuzz_ir's input format (a
2-byte little-endian XML length, the XML, the .bin), so that fuzzing starts from rewrites and not only from
refusals. Usage: fuzz/make_fix_seeds.py [DIR] (default: fuzz/corpus/ir beside this script)."""
import os
import struct
import sys
from typing import Dict, List

Dims = List[int]


def dims_xml(dims: Dims) -> str:
    return "".join(f"<dim>{d}</dim>" for d in dims)


class IR:
    """An IR built layer by layer; each layer's output is port `len(inputs)`."""

    def __init__(self) -> None:
        self.layers: List[str] = []
        self.edges: List[str] = []
        self.bin = b""
        self.inputs: Dict[int, int] = {}

    def layer(self, op: str, data: str, inputs: List[Dims], outputs: List[Dims]) -> int:
        index = len(self.layers)
        ports = [f'<port id="{k}">{dims_xml(d)}</port>' for k, d in enumerate(inputs)]
        outs = [f'<port id="{len(inputs) + k}" precision="FP32">{dims_xml(d)}</port>' for k, d in enumerate(outputs)]
        text = f'<layer id="{index}" name="{op.lower()}{index}" type="{op}" version="opset1">'
        if data:
            text += f"<data {data}/>"
        if inputs:
            text += "<input>" + "".join(ports) + "</input>"
        if outputs:
            text += "<output>" + "".join(outs) + "</output>"
        self.layers.append(text + "</layer>")
        self.inputs[index] = len(inputs)
        return index

    def edge(self, source: int, target: int, port: int) -> None:
        self.edges.append(f'<edge from-layer="{source}" from-port="{self.inputs[source]}" to-layer="{target}" '
                          f'to-port="{port}"/>')

    def parameter(self, dims: Dims) -> int:
        return self.layer("Parameter", f'element_type="f32" shape="{",".join(map(str, dims))}"', [], [dims])

    def const(self, values: List[int]) -> int:
        data = struct.pack(f"<{len(values)}q", *values)
        offset = len(self.bin)
        self.bin += data
        return self.layer("Const", f'element_type="i64" shape="{len(values)}" offset="{offset}" size="{len(data)}"',
                          [], [[len(values)]])

    def reshape(self, data: int, pattern: int, special_zero: bool, dims: Dims, length: int, out: Dims) -> int:
        flag = "true" if special_zero else "false"
        r = self.layer("Reshape", f'special_zero="{flag}"', [dims, [length]], [out])
        self.edge(data, r, 0)
        self.edge(pattern, r, 1)
        return r

    def result(self, source: int, dims: Dims) -> None:
        self.edge(source, self.layer("Result", "", [dims], []), 0)

    def fuzz_input(self) -> bytes:
        xml = ('<?xml version="1.0"?>\n<net name="seed" version="11">\n<layers>\n' + "\n".join(self.layers) +
               "\n</layers>\n<edges>\n" + "\n".join(self.edges) + "\n</edges>\n</net>\n").encode()
        return struct.pack("<H", len(xml)) + xml + self.bin


def seeds() -> Dict[str, IR]:
    found: Dict[str, IR] = {}
    for special_zero in (True, False):  # a pattern that writes the batch: 0, and the flag set when false
        m = IR()
        x = m.parameter([1, 2, 3])
        m.result(m.reshape(x, m.const([1, 6]), special_zero, [1, 2, 3], 2, [1, 6]), [1, 6])
        found["batch-written" if special_zero else "batch-written-special-zero-false"] = m
    m = IR()  # one Const that two Reshapes share: rewritten once, or cloned
    x = m.parameter([1, 2, 3])
    shared = m.const([1, 6])
    for _ in range(2):
        m.result(m.reshape(x, shared, True, [1, 2, 3], 2, [1, 6]), [1, 6])
    found["shared-const"] = m
    m = IR()  # the batch folded into one dimension: -1
    x = m.parameter([1, 2, 3])
    m.result(m.reshape(x, m.const([6]), True, [1, 2, 3], 1, [6]), [6])
    found["folded"] = m
    m = IR()  # a channel shuffle: the second Reshape is found once the first is fixed
    x = m.parameter([1, 4, 2, 2])
    split = m.reshape(x, m.const([1, 2, 2, 2, 2]), True, [1, 4, 2, 2], 5, [1, 2, 2, 2, 2])
    swap = m.layer("Transpose", "", [[1, 2, 2, 2, 2], [5]], [[1, 2, 2, 2, 2]])
    m.edge(split, swap, 0)
    m.edge(m.const([0, 2, 1, 3, 4]), swap, 1)
    m.result(m.reshape(swap, m.const([1, 4, 2, 2]), True, [1, 2, 2, 2, 2], 4, [1, 4, 2, 2]), [1, 4, 2, 2])
    found["channel-shuffle"] = m
    m = IR()  # a pattern that a Concat makes of two Consts
    x = m.parameter([1, 2, 3])
    concat = m.layer("Concat", 'axis="0"', [[1], [1]], [[2]])
    m.edge(m.const([1]), concat, 0)
    m.edge(m.const([6]), concat, 1)
    m.result(m.reshape(x, concat, True, [1, 2, 3], 2, [1, 6]), [1, 6])
    found["concat-pattern"] = m
    return found


def body_seed(outer: bool) -> bytes:
    """The hand-made TensorIterator (tests/data/models) with its body's pattern [0,-1] written as [1,-1]:
    fix rewrites it inside the body. With `outer`, the pattern is a Const of the model that the
    TensorIterator passes to a body Parameter at every step, and fix rewrites it there."""
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "models",
                         "tensor-iterator-lstm", "model")
    with open(model + ".xml", "rb") as f:
        xml = f.read().decode()
    with open(model + ".bin", "rb") as f:
        weights = bytearray(f.read())
    pattern = bytes(8) + b"\xff" * 8
    assert weights.count(pattern) == 1
    weights[weights.index(pattern)] = 1
    if outer:  # as tests/model/analysis/batch_test.cpp's fix_rewrites_a_body_pattern_held_around_the_body
        i64x2 = '<port id="0" precision="I64"><dim>2</dim></port>'
        for old, new in [
                ('<layer id="3" name="flatten_pattern" type="Const" version="opset1"><data element_type="i64" '
                 'shape="2" offset="0" size="16"/>',
                 '<layer id="3" name="pattern_in" type="Parameter" version="opset1"><data element_type="i64" shape="2"/>'),
                ('<port id="2" precision="FP32"><dim>1</dim><dim>8</dim></port></input>',
                 '<port id="2" precision="FP32"><dim>1</dim><dim>8</dim></port><port id="6" precision="I64"><dim>2</dim>'
                 '</port></input>'),
                ('<input external_port_id="2" internal_layer_id="2"/>',
                 '<input external_port_id="2" internal_layer_id="2"/><input external_port_id="6" internal_layer_id="3"/>'),
                ('<layer id="4" name="y" type="Result"',
                 '<layer id="7" name="outer_pattern" type="Const" version="opset1"><data element_type="i64" shape="2" '
                 f'offset="0" size="16"/><output>{i64x2}</output></layer><layer id="4" name="y" type="Result"'),
                ('<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>',
                 '<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>'
                 '<edge from-layer="7" from-port="0" to-layer="3" to-port="6"/>')]:
            assert xml.count(old) == 1, old
            xml = xml.replace(old, new)
    text = xml.encode()
    return struct.pack("<H", len(text)) + text + bytes(weights)


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "ir")
    made = {name: m.fuzz_input() for name, m in seeds().items()}
    made["tensor-iterator-body"] = body_seed(False)
    made["tensor-iterator-outer-pattern"] = body_seed(True)
    for name, data in made.items():
        with open(os.path.join(out, "seed-fix-" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

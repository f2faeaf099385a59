#!/usr/bin/env python3
"""Writes seeds for fuzz_skim into fuzz/corpus/skim (named by their SHA-1, as libFuzzer names its finds):
small ONNX models whose initializers hold raw_data longer than the 8 bytes fuzz_skim leaves out, written
in protobuf's wire format by hand (no onnx module needed), with the shapes a skim must get right: a
raw_data written twice (the long one last, or first), a field numbered after raw_data, the graph field
twice (protobuf merges them), a subgraph's initializer (not left out), and a file cut short; and Constant
nodes, whose values the reader's skim leaves out too: one of the default domain (twice, under its two
names), one of another domain and another op type (left whole), one whose tensor is written twice.

    make_skim_seeds.py [OUT_DIR]
"""
import hashlib
import pathlib
import sys


def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def tensor(name, dims, raws, extra=b""):
    t = b"".join(field(1, d) for d in dims) + field(2, 1) + field(8, name.encode())
    return t + b"".join(field(9, r) for r in raws) + extra


def value(name, dims):
    shape = b"".join(field(1, field(1, d)) for d in dims)
    return field(1, name.encode()) + field(2, field(1, field(1, 1) + field(2, shape)))


def node(op, ins, outs, attrs=b""):
    return b"".join(field(1, i.encode()) for i in ins) + b"".join(field(2, o.encode()) for o in outs) + \
        field(3, outs[0].encode()) + field(4, op.encode()) + attrs


def model(graphs):
    return field(1, 8) + field(8, field(2, 13)) + b"".join(field(7, g) for g in graphs)


def graph(initializers, nodes, inputs=(("x", [1, 4]),), outputs=(("y", [1, 4]),)):
    g = b"".join(field(1, n) for n in nodes) + field(2, b"g")
    g += b"".join(field(5, t) for t in initializers)
    g += b"".join(field(11, value(*i)) for i in inputs) + b"".join(field(12, value(*o)) for o in outputs)
    return g


def weights(n):
    return bytes((7 * k + 3) & 0xFF for k in range(n))


def seeds():
    add = [node("Add", ["x", "w"], ["y"])]
    yield model([graph([tensor("w", [4], [weights(16)])], add)])
    yield model([graph([tensor("w", [4], [weights(4), weights(16)])], add)])  # the long one last
    yield model([graph([tensor("w", [4], [weights(40), weights(16)])], add)])  # the long one first
    yield model([graph([tensor("w", [4], [weights(16)], field(12, b"doc") + field(14, 0))], add)])
    yield model([graph([tensor("w", [4], [weights(16)])], add), graph([tensor("v", [2], [weights(8 * 3)])], [])])
    body = graph([tensor("b", [4], [weights(16)])], [node("Identity", ["b"], ["o"])], (), (("o", [4]),))
    branch = field(5, field(1, b"then_branch") + field(6, body) + field(20, 5)) + \
        field(5, field(1, b"else_branch") + field(6, body) + field(20, 5))
    iff = [node("If", ["c"], ["y"], branch)]
    yield model([graph([tensor("w", [4], [weights(16)]), tensor("c", [], [b"\x01"])], iff)])
    whole = model([graph([tensor("w", [4], [weights(64)])], add)])
    yield whole[: len(whole) // 2]
    # raw_data and a field 9 of another wire type (protobuf keeps that one as an unknown field)
    yield model([graph([tensor("w", [4], [weights(16)], varint(9 << 3) + varint(5))], add)])
    # data in an external file and a stale raw_data beside it: not left out
    location = field(13, field(1, b"location") + field(2, b"w.bin")) + field(14, 1)
    yield model([graph([tensor("w", [4], [weights(16)], location)], add)])
    # a length written in six bytes, which protobuf refuses
    t = tensor("w", [4], [])
    raw = varint(9 << 3 | 2) + bytes([0x90, 0x80, 0x80, 0x80, 0x80, 0x00]) + weights(16)
    yield model([graph([t + raw], add)])
    # Constant nodes: the value attribute (name 1, t 5, type 20 = TENSOR) of a node of op_type 4, domain 7
    def constant(value_fields, op="Constant", domain=b""):
        attrs = field(5, field(1, b"value") + value_fields + field(20, 4))
        return node(op, [], ["w"], attrs) + (field(7, domain) if domain else b"")
    one = field(5, tensor("w", [4], [weights(16)]))
    yield model([graph([], [constant(one), add[0]])])
    yield model([graph([], [constant(one, domain=b"ai.onnx"), add[0]])])
    yield model([graph([], [constant(one, domain=b"com.example"), add[0]])])
    yield model([graph([], [constant(one, op="Custom"), add[0]])])
    yield model([graph([], [constant(field(5, tensor("w", [], [weights(40)])) + one), add[0]])])


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent / "corpus" / "skim"
    out.mkdir(parents=True, exist_ok=True)
    for s in seeds():
        (out / hashlib.sha1(s).hexdigest()).write_bytes(s)


if __name__ == "__main__":
    main()

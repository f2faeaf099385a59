#!/usr/bin/env python3
"""Writes the hand-made recurrent fixtures of this directory (run it here to regenerate them).

tensor-iterator-lstm/model.{xml,bin}: a TensorIterator over X [1,5,16] (sliced along axis 1) whose body
  reshapes each step [1,1,16] to [1,16] (a Reshape with pattern [0,-1]), runs an LSTMCell-4 (hidden 8) and
  unsqueezes its output; the hidden and cell states go round through back edges, the step outputs are
  concatenated along axis 1: Y [1,5,8], Ho [1,8], Co [1,8].
loop-trip-count/model.{xml,bin}: a Loop-5 with trip count 3 and a true condition (Consts) whose body adds
  1 to an accumulator [1,4] (a back edge), flattens it with a Reshape [0,-1], unsqueezes it to [1,1,4]
  and reads the current iteration: the last accumulator [1,4] and the per-iteration values concatenated
  along axis 1, [1,3,4].
"""
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent


def dims(shape):
    return "".join(f"<dim>{d}</dim>" for d in shape)


class Net:
    def __init__(self, blob):
        self.layers, self.edges, self.blob = [], [], blob

    def layer(self, lid, name, type_, version, data, ins, outs, precision="FP32", extra=""):
        x = f'<layer id="{lid}" name="{name}" type="{type_}" version="{version}">'
        if data:
            x += f"<data {data}/>"
        port = 0
        if ins:
            x += "<input>"
            for shape in ins:
                x += f'<port id="{port}" precision="{precision}">{dims(shape)}</port>'
                port += 1
            x += "</input>"
        if outs:
            x += "<output>"
            for shape in outs:
                x += f'<port id="{port}" precision="{precision}">{dims(shape)}</port>'
                port += 1
            x += "</output>"
        self.layers.append(x + extra + "</layer>")

    def const(self, lid, name, etype, shape, data):
        offset = len(self.blob)
        self.blob += data
        precision = {"f32": "FP32", "i64": "I64", "boolean": "BOOL"}[etype]
        self.layer(lid, name, "Const", "opset1",
                   f'element_type="{etype}" shape="{",".join(map(str, shape))}" offset="{offset}" size="{len(data)}"',
                   [], [shape], precision)

    def edge(self, f, fp, t, tp):
        self.edges.append(f'<edge from-layer="{f}" from-port="{fp}" to-layer="{t}" to-port="{tp}"/>')

    def body(self):
        return ("<body><layers>" + "".join(self.layers) + "</layers><edges>" + "".join(self.edges) +
                "</edges></body>")

    def xml(self, name):
        return (f'<?xml version="1.0"?>\n<net name="{name}" version="11">\n<layers>\n' + "\n".join(self.layers) +
                "\n</layers>\n<edges>\n" + "\n".join(self.edges) + "\n</edges>\n</net>\n")


def floats(n, scale=0.01):
    return struct.pack(f"<{n}f", *[scale * ((i % 7) - 3) for i in range(n)])


def i64(values):
    return struct.pack(f"<{len(values)}q", *values)


def tensor_iterator():
    blob = bytearray()
    body = Net(blob)
    body.layer(0, "x_t", "Parameter", "opset1", 'shape="1,1,16" element_type="f32"', [], [[1, 1, 16]])
    body.layer(1, "h", "Parameter", "opset1", 'shape="1,8" element_type="f32"', [], [[1, 8]])
    body.layer(2, "c", "Parameter", "opset1", 'shape="1,8" element_type="f32"', [], [[1, 8]])
    body.const(3, "flatten_pattern", "i64", [2], i64([0, -1]))
    body.layer(4, "step", "Reshape", "opset1", 'special_zero="true"', [[1, 1, 16], [2]], [[1, 16]])
    body.const(5, "W", "f32", [32, 16], floats(32 * 16))
    body.const(6, "R", "f32", [32, 8], floats(32 * 8))
    body.const(7, "B", "f32", [32], floats(32))
    body.layer(8, "cell", "LSTMCell", "opset4", 'hidden_size="8" activations="sigmoid,tanh,tanh" clip="0"',
               [[1, 16], [1, 8], [1, 8], [32, 16], [32, 8], [32]], [[1, 8], [1, 8]])
    body.const(9, "time_axis", "i64", [1], i64([1]))
    body.layer(10, "y_t", "Unsqueeze", "opset1", "", [[1, 8], [1]], [[1, 1, 8]])
    body.layer(11, "y_t/sink", "Result", "opset1", "", [[1, 1, 8]], [])
    body.layer(12, "h/sink", "Result", "opset1", "", [[1, 8]], [])
    body.layer(13, "c/sink", "Result", "opset1", "", [[1, 8]], [])
    for f, fp, t, tp in [(0, 0, 4, 0), (3, 0, 4, 1), (4, 2, 8, 0), (1, 0, 8, 1), (2, 0, 8, 2), (5, 0, 8, 3),
                         (6, 0, 8, 4), (7, 0, 8, 5), (8, 6, 10, 0), (9, 0, 10, 1), (10, 2, 11, 0), (8, 6, 12, 0),
                         (8, 7, 13, 0)]:
        body.edge(f, fp, t, tp)

    net = Net(blob)
    net.layer(0, "x", "Parameter", "opset1", 'shape="1,5,16" element_type="f32"', [], [[1, 5, 16]])
    net.layer(1, "h0", "Parameter", "opset1", 'shape="1,8" element_type="f32"', [], [[1, 8]])
    net.layer(2, "c0", "Parameter", "opset1", 'shape="1,8" element_type="f32"', [], [[1, 8]])
    port_map = ('<port_map>'
                '<input axis="1" external_port_id="0" internal_layer_id="0" part_size="1" start="0" end="-1" stride="1"/>'
                '<input external_port_id="1" internal_layer_id="1"/>'
                '<input external_port_id="2" internal_layer_id="2"/>'
                '<output axis="1" external_port_id="3" internal_layer_id="11" part_size="1" start="0" end="-1" stride="1"/>'
                '<output external_port_id="4" internal_layer_id="12"/>'
                '<output external_port_id="5" internal_layer_id="13"/>'
                '</port_map>'
                '<back_edges><edge from-layer="12" to-layer="1"/><edge from-layer="13" to-layer="2"/></back_edges>')
    net.layer(3, "lstm", "TensorIterator", "opset1", "", [[1, 5, 16], [1, 8], [1, 8]], [[1, 5, 8], [1, 8], [1, 8]],
              extra=port_map + body.body())
    net.layer(4, "y", "Result", "opset1", "", [[1, 5, 8]], [])
    net.layer(5, "ho", "Result", "opset1", "", [[1, 8]], [])
    net.layer(6, "co", "Result", "opset1", "", [[1, 8]], [])
    for f, fp, t, tp in [(0, 0, 3, 0), (1, 0, 3, 1), (2, 0, 3, 2), (3, 3, 4, 0), (3, 4, 5, 0), (3, 5, 6, 0)]:
        net.edge(f, fp, t, tp)
    return net.xml("tensor-iterator-lstm"), bytes(blob)


def loop():
    blob = bytearray()
    body = Net(blob)
    body.layer(0, "acc", "Parameter", "opset1", 'shape="1,4" element_type="f32"', [], [[1, 4]])
    body.layer(1, "i", "Parameter", "opset1", 'shape="" element_type="i64"', [], [[]], "I64")
    body.const(2, "one", "f32", [1], struct.pack("<f", 1.0))
    body.layer(3, "next", "Add", "opset1", 'auto_broadcast="numpy"', [[1, 4], [1]], [[1, 4]])
    body.const(4, "flatten_pattern", "i64", [2], i64([0, -1]))
    body.layer(5, "flat", "Reshape", "opset1", 'special_zero="true"', [[1, 4], [2]], [[1, 4]])
    body.const(6, "again", "boolean", [], b"\x01")
    body.layer(7, "acc/sink", "Result", "opset1", "", [[1, 4]], [])
    body.layer(8, "scan/sink", "Result", "opset1", "", [[1, 1, 4]], [])
    body.layer(9, "again/sink", "Result", "opset1", "", [[]], [], "BOOL")
    body.layer(10, "i/sink", "Result", "opset1", "", [[]], [], "I64")
    body.const(11, "step_axis", "i64", [1], i64([1]))
    body.layer(12, "step", "Unsqueeze", "opset1", "", [[1, 4], [1]], [[1, 1, 4]])
    for f, fp, t, tp in [(0, 0, 3, 0), (2, 0, 3, 1), (3, 2, 5, 0), (4, 0, 5, 1), (3, 2, 7, 0), (5, 2, 12, 0),
                         (11, 0, 12, 1), (12, 2, 8, 0), (6, 0, 9, 0), (1, 0, 10, 0)]:
        body.edge(f, fp, t, tp)

    net = Net(blob)
    net.layer(0, "x", "Parameter", "opset1", 'shape="1,4" element_type="f32"', [], [[1, 4]])
    net.const(1, "trip_count", "i64", [], i64([3]))
    net.const(2, "start", "boolean", [], b"\x01")
    port_map = ('<port_map>'
                '<input external_port_id="2" internal_layer_id="0"/>'
                '<input external_port_id="-1" internal_layer_id="1" purpose="current_iteration"/>'
                '<output external_port_id="3" internal_layer_id="7"/>'
                '<output axis="1" external_port_id="4" internal_layer_id="8"/>'
                '<output external_port_id="-1" internal_layer_id="9" purpose="execution_condition"/>'
                '</port_map>'
                '<back_edges><edge from-layer="7" to-layer="0"/></back_edges>')
    net.layers.append(
        '<layer id="3" name="accumulate" type="Loop" version="opset5"><input>'
        '<port id="0" precision="I64"/><port id="1" precision="BOOL"/>'
        f'<port id="2" precision="FP32">{dims([1, 4])}</port></input><output>'
        f'<port id="3" precision="FP32">{dims([1, 4])}</port><port id="4" precision="FP32">{dims([1, 3, 4])}</port>'
        '</output>' + port_map + body.body() + '</layer>')
    net.layer(4, "sum", "Result", "opset1", "", [[1, 4]], [])
    net.layer(5, "steps", "Result", "opset1", "", [[1, 3, 4]], [])
    for f, fp, t, tp in [(1, 0, 3, 0), (2, 0, 3, 1), (0, 0, 3, 2), (3, 3, 4, 0), (3, 4, 5, 0)]:
        net.edge(f, fp, t, tp)
    return net.xml("loop-trip-count"), bytes(blob)


for directory, (xml, bin_) in {"tensor-iterator-lstm": tensor_iterator(), "loop-trip-count": loop()}.items():
    (HERE / directory).mkdir(exist_ok=True)
    (HERE / directory / "model.xml").write_text(xml)
    (HERE / directory / "model.bin").write_bytes(bin_)

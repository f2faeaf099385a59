"""Per-op truth for the sequence and optional ops (src/onnx/lower/sequence.cpp). Loaded by op_truth.py's main()
(FAMILIES and KNOWN). A sequence is no graph input or output reshape1 answers for, so each case is a small graph: the
nodes that make a sequence (SequenceConstruct, SequenceEmpty, SplitToSequence) or an optional, the op under test, and
the nodes that read tensors back (SequenceAt, SequenceLength, ConcatFromSequence, OptionalGetElement,
OptionalHasElement), whose outputs y0, y1... are the graph's. Positions, splits and axes are initializers or
attributes: the lowering follows what the file gives.
"""
from op_truth import Case, with_intent, i, product, shape
from op_truth import FLOAT, INT32, INT64


class Graph(Case):
    """A case of several nodes: `nodes` (protobuf text, each `node {...}`) over graph inputs `inputs` ((name, dims,
    type)) and int64 initializers `consts` ((name, values, dims)); outputs y0..y{outputs-1}."""

    def __init__(self, op, opset, inputs, consts, nodes, outputs):
        super().__init__(op, opset, [], "", outputs)
        self.inputs = list(inputs)
        self.inits = [f'initializer {{ name: "{n}" data_type: 7{"".join(f" dims: {d}" for d in dims)} int64_data: {list(v)} }}'
                      for n, v, dims in consts]
        self.nodes = nodes

    def text(self):
        graph_inputs = "\n  ".join(
            f'input {{ name: "{n}" type {{ tensor_type {{ elem_type: {t} shape {{'
            + "".join(f" dim {{ dim_value: {d} }}" for d in s) + " } } } }" for n, s, t in self.inputs)
        outputs = "\n  ".join(f'output {{ name: "y{k}" }}' for k in range(self.outputs))
        return (f'ir_version: 8\nopset_import {{ domain: "" version: {self.opset} }}\ngraph {{\n  name: "g"\n  {graph_inputs}\n  '
                + "\n  ".join(self.inits) + "\n  " + "\n  ".join(self.nodes) + f"\n  {outputs}\n}}\n")


def node(op, inputs, outputs, attrs=""):
    ins = ", ".join(f'"{x}"' for x in inputs)
    outs = ", ".join(f'"{x}"' for x in outputs)
    return f'node {{ op_type: "{op}" input: [{ins}] output: [{outs}] {attrs}}}'


def sequence_ops(rng):
    """SequenceAt, SequenceInsert, SequenceErase and SequenceLength on a SequenceConstruct of 1 to 4 tensors (float or
    int64, rank 0 to 3) or a SequenceEmpty, at constant positions drawn in [-n-1, n+1] (outside the range: ONNX Runtime
    refuses when it runs), one read back by SequenceAt and the length by SequenceLength. Invalid: a position out of
    range, an erase from an empty sequence, an insert of another type (refused at load)."""
    op = rng.choice(["SequenceAt", "SequenceInsert", "SequenceErase", "SequenceLength"])
    t = rng.choice([FLOAT, INT64])
    n = 0 if op in ("SequenceInsert", "SequenceErase") and rng.random() < 0.2 else rng.randint(1, 4)
    inputs = [(f"x{k}", shape(rng, rng.randint(0, 3)), t) for k in range(n)]
    nodes = [node("SequenceConstruct", [x for x, _, _ in inputs], ["s"]) if n else
             node("SequenceEmpty", [], ["s"], i("dtype", t))]
    consts, bad, size = [], None, n
    if op == "SequenceInsert":
        other = INT32 if rng.random() < 0.08 else t
        bad = "type" if other != t else None
        inputs.append(("v", shape(rng, rng.randint(0, 2)), other))
        args = ["s", "v"]
        if rng.random() < 0.7:
            p = rng.randint(-n - 1, n + 1)
            bad = bad or ("position" if not -n <= p <= n else None)
            consts.append(("p", [p], []))
            args.append("p")
        nodes.append(node("SequenceInsert", args, ["t"]))
        size = n + 1
    elif op == "SequenceErase":
        args = ["s"]
        bad = "empty" if n == 0 else None
        if rng.random() < 0.7 and n:
            p = rng.randint(-n - 1, n)
            bad = "position" if not -n <= p < n else None
            consts.append(("p", [p], []))
            args.append("p")
        nodes.append(node("SequenceErase", args, ["t"]))
        size = n - 1
    else:
        nodes.append(node("Identity", ["s"], ["t"]))
    nodes.append(node("SequenceLength", ["t"], ["y0"]))
    outputs = 1
    if size > 0 or rng.random() < 0.1:
        if size <= 0:
            q = 0
        else:
            q = rng.randint(-size - 1, size) if rng.random() < 0.15 else rng.randint(-size, size - 1)
        bad = bad or ("position" if not -size <= q < size else None)
        consts.append(("q", [q], []))
        nodes.append(node("SequenceAt", ["t", "q"], ["y1"]))
        outputs = 2
    return with_intent(Graph(op, 14, inputs, consts, nodes, outputs), bad)


def sequence_split_concat(rng):
    """SplitToSequence of x (rank 1 to 3) along an axis: no split (pieces of 1, keepdims drawn), a scalar split (pieces
    of it, the rest last), or a 1-D split (lengths that sum to the axis, or one time in ten not: refused when run);
    then ConcatFromSequence along an axis (new_axis drawn; axes out of range sometimes: refused at load), and the
    length. Invalid: a split that does not sum, an axis out of range."""
    r = rng.randint(1, 3)
    x = shape(rng, r, zero=0.05)
    axis = rng.randint(-r, r - 1)
    length = x[axis]
    consts, attrs, bad = [], i("axis", axis), None
    args = ["x"]
    form = rng.choice(["none", "scalar", "list"])
    keep = True
    if form == "scalar":
        # Never 0: ONNX Runtime's process stops on it (a division by zero; tests/onnx/lower/sequence_test.cpp holds
        # reshape1's refusal of it).
        each = rng.randint(1, 3)
        consts.append(("sp", [each], []))
        # ONNX Runtime squeezes a scalar split's pieces with keepdims 0 too (failing on pieces longer than 1).
        if rng.random() < 0.3:
            keep = False
            attrs += i("keepdims", 0)
        args.append("sp")
    elif form == "list":
        parts = []
        left = length
        while left > 0:
            parts.append(rng.randint(1, left))
            left -= parts[-1]
        if not parts or rng.random() < 0.2:
            parts.append(0)
        if rng.random() < 0.1:
            parts[0] += 1
            bad = "sum"
        consts.append(("sp", parts, [len(parts)]))
        args.append("sp")
    elif rng.random() < 0.5:
        keep = False
        attrs += i("keepdims", 0)
    new_axis = rng.random() < 0.4
    rank_in = r if keep else r - 1
    out_rank = rank_in + 1 if new_axis else rank_in
    cat_axis = rng.randint(-out_rank, out_rank - 1) if out_rank else 0
    if rng.random() < 0.05:
        cat_axis = out_rank + 1
        bad = bad or "axis"
    nodes = [node("SplitToSequence", args, ["s"], attrs), node("SequenceLength", ["s"], ["y0"]),
             node("ConcatFromSequence", ["s"], ["y1"], i("axis", cat_axis) + (i("new_axis", 1) if new_axis else ""))]
    # The count of pieces of 1 or of a scalar split follows the axis' length, which the lowering reads of a constant
    # only (a graph input's changes at another batch): x is an initializer there.
    constant = form != "list"
    case = Graph("SplitToSequence", 14, [] if constant else [("x", x, FLOAT)], consts, nodes, 2)
    if constant:
        case.inits.append(f'initializer {{ name: "x" data_type: 1{"".join(f" dims: {d}" for d in x)} '
                          f'float_data: {[0.5] * product(x)} }}')
    return with_intent(case, bad)


def optional_ops(rng):
    """Optional of a tensor, or an empty one of a `type`, read by OptionalHasElement and OptionalGetElement (15 and 18;
    18 also of a tensor itself). Invalid: OptionalGetElement of an empty optional (refused when run)."""
    opset = rng.choice([15, 18])
    x = shape(rng, rng.randint(0, 3))
    empty = rng.random() < 0.25
    direct = opset == 18 and rng.random() < 0.3
    nodes = []
    if direct:
        source = "x"
    elif empty:
        nodes.append('node { op_type: "Optional" output: "o" attribute { name: "type" type: TYPE_PROTO tp { tensor_type '
                     '{ elem_type: 1 } } } }')
        source = "o"
    else:
        nodes.append(node("Optional", ["x"], ["o"]))
        source = "o"
    nodes.append(node("OptionalHasElement", [source], ["y0"]))
    outputs = 1
    if not empty or rng.random() < 0.3:
        nodes.append(node("OptionalGetElement", [source], ["y1"]))
        outputs = 2
    bad = "empty" if empty and outputs == 2 else None
    return with_intent(Graph("OptionalGetElement" if outputs == 2 else "OptionalHasElement", opset, [("x", x, FLOAT)], [], nodes,
                             outputs), bad)


def _value(name, elem):
    return f'input {{ name: "{name}" type {{ tensor_type {{ elem_type: {elem} }} }} }}'


def sequence_map(rng):
    """SequenceMap-17 over a SequenceConstruct of 0 to 3 float tensors (rank 1 or 2; none: a SequenceEmpty), its body one
    of: Relu; Add of a tensor given whole (broadcastable with some tensors only, sometimes: refused when run); a Reshape
    to a constant shape (fits some tensors only, sometimes); Mul by a second sequence paired by position (as long, longer,
    or shorter: refused when run); two outputs (the tensor and its Shape). The outputs read back by SequenceLength and
    SequenceAt. Invalid: a run that fails, a shorter second sequence, a body input declared int64 or an output of no
    declared type (refused at load)."""
    n = 0 if rng.random() < 0.12 else rng.randint(1, 3)
    rank = rng.randint(1, 2)
    inputs = [(f"x{k}", shape(rng, rank, zero=0.05), FLOAT) for k in range(n)]
    nodes = [node("SequenceConstruct", [x for x, _, _ in inputs], ["s"]) if n else
             node("SequenceEmpty", [], ["s"], i("dtype", FLOAT))]
    form = rng.choice(["relu", "add", "reshape", "paired", "two"])
    declared = INT64 if rng.random() < 0.06 else FLOAT
    bad = "type" if declared != FLOAT else None
    args, body_inputs, consts, outs = ["s"], [_value("e", declared)], [], ["m"]
    if form == "relu":
        body = node("Relu", ["e"], ["m"])
    elif form == "add":
        t = shape(rng, rng.randint(0, rank)) if rng.random() < 0.6 else [rng.choice([1, 2, 3]) for _ in range(rank)]
        inputs.append(("t", t, FLOAT))
        args.append("t")
        body_inputs.append(_value("u", FLOAT))
        body = node("Add", ["e", "u"], ["m"])
        for _, x, _ in inputs[:n]:
            if any(a != b and a != 1 and b != 1 for a, b in zip(reversed(x), reversed(t))):
                bad = bad or "broadcast"
    elif form == "reshape":
        pattern = [-1] if rng.random() < 0.5 else [rng.randint(1, 6)]
        consts.append(("p", pattern, [1]))
        args.append("p")
        body_inputs.append(_value("q", INT64))
        body = node("Reshape", ["e", "q"], ["m"])
        if pattern != [-1] and any(product(x) != pattern[0] for _, x, _ in inputs[:n]):
            bad = bad or "reshape"
    elif form == "paired":
        length = max(0, n + rng.choice([0, 0, 0, 1, -1]))
        names = [f"x{k % n}" for k in range(length)] if n else []
        nodes.append(node("SequenceConstruct", names, ["r"]) if names else node("SequenceEmpty", [], ["r"], i("dtype", FLOAT)))
        args.append("r")
        body_inputs.append(_value("f", FLOAT))
        body = node("Mul", ["e", "f"], ["m"])
        bad = bad or ("length" if length < n else None)
    else:
        body = node("Identity", ["e"], ["m"]) + " " + node("Shape", ["e"], ["d"])
        outs.append("d")
    # Each body output of its type, or one time in twenty none (ONNX Runtime refuses it at load: "Invalid tensor data
    # type 0", its function body making each output sequence of the type declared).
    typed = rng.random() >= 0.05
    bad = bad or (None if typed else "untyped")
    graph = f'name: "b" {" ".join(body_inputs)} {body} ' + " ".join(
        f'output {{ name: "{o}"' + (f' type {{ tensor_type {{ elem_type: {INT64 if o == "d" else FLOAT} }} }}' if typed else "")
        + " }" for o in outs)
    nodes.append(node("SequenceMap", args, outs, f'attribute {{ name: "body" type: GRAPH g {{ {graph} }} }} '))
    nodes.append(node("SequenceLength", ["m"], ["y0"]))
    outputs = 1
    if n:
        consts.append(("at", [rng.randint(-n, n - 1)], []))
        for o in outs:
            nodes.append(node("SequenceAt", [o, "at"], [f"y{outputs}"]))
            outputs += 1
    return with_intent(Graph("SequenceMap", 17, inputs, consts, nodes, outputs), bad)


FAMILIES = {"sequence_ops": sequence_ops, "sequence_split_concat": sequence_split_concat, "optional_ops": optional_ops,
            "sequence_map": sequence_map}

KNOWN = [
    ("SequenceMap", "declares no element type",
     "a body output that declares no element type: ONNX Runtime builds SequenceMap's function body from the declared "
     "types and refuses the model at load (\"Invalid tensor data type 0\") -- but runs it where the graph around it "
     "makes it resolve the graph again first (a node nothing reads; a second sequence built beside the first), having "
     "then filled in the inferred types. reshape1 refuses it always (docs/onnx.md)"),
    ("SplitToSequence", "cannot be equal",
     "ConcatFromSequence of pieces one of which is empty (a split of 0, or the rest of a scalar split of an empty axis) and "
     "whose other dimensions differ: ONNX Runtime checks only the non-empty ones when it runs the node and gives the "
     "first one's dimensions with every piece's length summed along the axis ([2,3] and [2,0] along axis 0 give [4,3], "
     "half its values never written); reshape1 refuses a concatenation of pieces that differ off the axis, as ONNX's "
     "Concat does"),
]

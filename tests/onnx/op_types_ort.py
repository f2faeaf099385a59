#!/usr/bin/env python3
"""The types column of src/onnx/op_list.tsv held against ONNX Runtime (issue 49, item 1: the spec's checks).

    op_types_ort.py OP_ATTRIBUTES LIST.tsv [--write] [--verbose] [--only OP]

ONNX Runtime checks every node's element types against its op's schema when it loads a model, before it infers
shapes: an input of a type its type parameter does not take ("Type 'tensor(int32)' of input parameter (in0) of
operator (Relu) ... is invalid"), and two inputs bound to one parameter that differ ("Type parameter (T) of Optype
(Add) bound to different types"). Then it infers each output's type, and refuses an output declared with another
("Type (tensor(float)) of output arg (out0) ... does not match expected type (tensor(int32))"). So single-node
models tell each row's constraints:

1. a base: the node with every input it may have (bounded counts; the least and one more where unbounded, so that
   a list's members meet), each input's type advanced through TYPES until ONNX Runtime gets past the type check,
   the attributes it requires added (as op_kernels_ort.py grows its probes);
2. each input given each other type in turn: refused at that input (not taken), refused as bound to a parameter
   (taken, and the input is one of that parameter's), or past the check (taken, an input of its own);
3. each output declared complex64 (no op computes it): ONNX Runtime names the type it infers; then each input
   group moved to another type it takes: an output whose inferred type moves with it follows that group; one that
   never moves has that fixed type. Neither for a row with an attribute that may choose a type (dtype, to...).

The column: groups separated by ";", each `members:types`, members the input positions and `oN` the outputs, types
reshape1's names (f32, i64, boolean...): `0,1,o0:bf16,f16,f32,f64;2:i64`. An output group of one type is a fixed
type (`o1:i64`). Inputs past the last probed position (a list's) belong to the last one's group. "?" where ONNX
Runtime cannot be asked (no base found); "-" for a row of no input and no typed output.

With --write, the column is filled in; without, a row that differs is printed and the exit status is 1.
About 20 seconds on two cores (some 25,000 single-node models).
"""

import argparse
import concurrent.futures
import pathlib
import re
import sys
import tempfile

import op_attributes_ort as ort
import op_kernels_ort as kernels

# ONNX data type number -> reshape1's element type name: the types reshape1 reads (src/onnx/read.cpp element_of).
# Complex numbers are left out: reshape1 does not read tensors of them (strings it reads without their values).
NAMES = {1: "f32", 2: "u8", 3: "i8", 4: "u16", 5: "i16", 6: "i32", 7: "i64", 8: "string", 9: "boolean", 10: "f16", 11: "f64",
         12: "u32", 13: "u64", 16: "bf16", 17: "f8e4m3", 19: "f8e5m2", 21: "u4", 22: "i4", 23: "f4e2m1",
         24: "f8e8m0"}
ORDER = list(NAMES)
# The order a base's input types are tried in (op_kernels_ort's, the narrow ones after).
BASE = kernels.TYPES[:7] + kernels.TYPES[8:] + [13, 17, 19, 21, 22, 23, 24]
ONNX_NAMES = {"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7, "string": 8,
              "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13, "complex64": 14, "complex128": 15,
              "bfloat16": 16, "float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20,
              "uint4": 21, "int4": 22, "float4e2m1": 23, "float8e8m0": 24}
TYPE_REFUSED = re.compile(r"Type Error: Type '[^']*' of input parameter \(in(\d+)\)")
NO_KERNEL = "Could not find an implementation"
BOUND = re.compile(r"Type parameter \((\w+)\) of Optype \(\w+\) bound to different types")
INFERRED = re.compile(r"of output arg \(out(\d+)\) of node \(probe\) does not match expected type \(tensor\((\w+)\)\)")
# Checks ONNX Runtime makes before the types: a base must get past them.
BEFORE_TYPES = ("Type Error", "Required attribute", "Unrecognized attribute", "Mismatched attribute type",
                "marked single but has an empty string", "not in range [min=", "is not a registered function/op",
                "Deprecated", "deprecated", "No opset import", "No Op registered")
# Attributes that choose an output's element type: a row with one has no fixed output type of its own.
TYPE_CHOOSERS = {"to", "dtype", "output_dtype", "output_datatype", "value", "value_float", "value_floats", "value_int",
                 "value_ints", "T", "type", "quantize_type", "output_type", "stash_type", "precision", "softmax_precision"}
COMPLEX = 14
MANY = 16


def ask(tool, probes, workdir):
    """ort.ask in two processes (ONNX Runtime's loads are the time)."""
    size = max(500, len(probes) // 8 + 1)
    chunks = [probes[k:k + size] for k in range(0, len(probes), size)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        said = list(pool.map(lambda chunk: kernels.ask_each(tool, chunk, workdir), chunks))
    return [a for chunk in said for a in chunk]


def counts_of(column):
    """The counts a probe gives a node of a row's inputs or outputs column ("1-3", "1-", "?")."""
    if column == "?":
        return None
    low, high = column.split("-")
    low = int(low)
    return low + 1 if not high else min(int(high), max(low, MANY))


def probe(r, base, types=None, outputs=None):
    types = types if types is not None else base["types"]
    declared = ",".join(str(t) for t in outputs) if outputs else ""
    attrs = ",".join(f"{name}:{kind}" for name, kind in base["attrs"].items())
    return (*r, len(types), base["outputs"], "", ",".join(map(str, types)), attrs, "", declared)


def bases(tool, rows, counts, workdir):
    """Each row's base: the types and attributes at which ONNX Runtime gets past its type check, or None."""
    state = {}
    for r in rows:
        n, m = counts_of(counts[r][0]), counts_of(counts[r][1])
        if n is not None and m is not None:
            state[r] = {"types": [BASE[0]] * n, "tried": [0] * n, "attrs": {}, "outputs": max(m, 1)}
    found = {}
    for _ in range(60):
        pending = [r for r in state if r not in found]
        if not pending:
            break
        for r, answer in zip(pending, ask(tool, [probe(r, state[r]) for r in pending], workdir)):
            s = state[r]
            m = TYPE_REFUSED.search(answer)
            if m and s["tried"][int(m.group(1))] + 1 < len(BASE):
                k = int(m.group(1))
                s["tried"][k] += 1
                s["types"][k] = BASE[s["tried"][k]]
                continue
            if BOUND.search(answer):
                # Two inputs of one parameter that stopped at different types: the later ones take the first's.
                first = min(range(len(s["types"])), key=lambda k: s["tried"][k])
                for k in range(len(s["types"])):
                    if s["tried"][k] > s["tried"][first]:
                        s["tried"][k], s["types"][k] = s["tried"][first], s["types"][first]
                        break
                else:
                    found[r] = None
                continue
            m = kernels.REQUIRED.search(answer)
            if m and m.group(1) not in s["attrs"]:
                s["attrs"][m.group(1)] = "i"
                continue
            m = kernels.KIND.search(answer)
            if m and kernels.KINDS.get(m.group(2)) and s["attrs"].get(m.group(1)) != kernels.KINDS[m.group(2)]:
                s["attrs"][m.group(1)] = kernels.KINDS[m.group(2)]
                continue
            found[r] = None if any(words in answer for words in BEFORE_TYPES) or answer == "aborted" else s
    return {r: found.get(r) for r in rows}


def constraints(tool, rows, base, attributes, workdir):
    """Each row's groups: [(inputs, outputs, types)] as the column writes them, or None."""
    probes, where = [], []
    for r in rows:
        b = base.get(r)
        if b is None:
            continue
        for k, t0 in enumerate(b["types"]):
            for t in ORDER:
                if t != t0:
                    probes.append(probe(r, b, b["types"][:k] + [t] + b["types"][k + 1:]))
                    where.append((r, k, t))
    taken = {r: {k: {t0} for k, t0 in enumerate(base[r]["types"])} for r in rows if base.get(r)}
    param = {r: {} for r in taken}
    retry = []
    for (r, k, t), answer in zip(where, ask(tool, probes, workdir)):
        m = TYPE_REFUSED.search(answer)
        if m and int(m.group(1)) == k:
            continue
        # A string its schema takes but for which ONNX Runtime's CPU provider has no kernel (Resize, NonZero): the
        # session is refused all the same ("Could not find an implementation"), so the op takes no string; unless a
        # kernel takes it beside other inputs of int64 (OneHot's values, beside int64 indices and depth).
        if NAMES.get(t) == "string" and NO_KERNEL in answer:
            retry.append((r, k, t))
            continue
        taken[r][k].add(t)
        m = BOUND.search(answer)
        if m:
            param[r][k] = m.group(1)
    INT64 = next(t for t, n in NAMES.items() if n == "i64")
    probes = [probe(r, base[r], [t if j == k else INT64 for j in range(len(base[r]["types"]))]) for r, k, t in retry]
    for (r, k, t), answer in zip(retry, ask(tool, probes, workdir)):
        if not any(x in answer for x in (NO_KERNEL, "Type Error", "bound to different")):
            taken[r][k].add(t)
    groups = {}
    for r in taken:
        by = {}
        for k in range(len(base[r]["types"])):
            by.setdefault(param[r].get(k, f"#{k}"), []).append(k)
        groups[r] = [[members, set.intersection(*(taken[r][k] for k in members)), []] for members in by.values()]
    # A group of inputs bound to one type was asked with one member moved (refused as bound): the kernel is asked
    # with them all strings (Pad's data and constant_value), and where there is none the group takes no string.
    STRING = next(t for t, n in NAMES.items() if n == "string")
    probes, where = [], []
    for r, gs in groups.items():
        for g, (members, types, _) in enumerate(gs):
            if len(members) > 1 and STRING in types:
                probes.append(probe(r, base[r], [STRING if k in members else t for k, t in enumerate(base[r]["types"])]))
                where.append((r, g))
    for (r, g), answer in zip(where, ask(tool, probes, workdir)):
        if NO_KERNEL in answer:
            groups[r][g][1].discard(STRING)
    # Outputs: what ONNX Runtime infers at the base, then with each group moved to another type it takes.
    probes, where = [], []
    for r, gs in groups.items():
        b = base[r]
        for o in range(b["outputs"]):
            declared = [0] * o + [COMPLEX]
            probes.append(probe(r, b, outputs=declared))
            where.append((r, o, None))
            for g, (members, types, _) in enumerate(gs):
                other = next((t for t in ORDER if t in types and t != b["types"][members[0]]), None)
                if other is not None:
                    moved = [other if k in members else t for k, t in enumerate(b["types"])]
                    probes.append(probe(r, b, moved, outputs=declared))
                    where.append((r, o, (g, other)))
    inferred = {}
    for (r, o, moved), answer in zip(where, ask(tool, probes, workdir)):
        m = INFERRED.search(answer)
        inferred[(r, o, moved)] = ONNX_NAMES.get(m.group(2)) if m and int(m.group(1)) == o else None
    result = {}
    for r, gs in groups.items():
        fixed = []
        # An attribute that can choose an output's type (RandomNormalLike's dtype, Cast's to) leaves every output's
        # type to the translation: the probe, without it, sees the type the op gives where it is not given.
        choosers = attributes[r] == "?" or bool(set(attributes[r].split(",")) & TYPE_CHOOSERS)
        for o in range(base[r]["outputs"]):
            at_base = inferred.get((r, o, None))
            if at_base is None:
                continue
            follows = [g for g, (members, types, _) in enumerate(gs) if members
                       if at_base == base[r]["types"][members[0]] and any(
                           inferred.get((r, o, (g, t))) == t for t in types if (r, o, (g, t)) in inferred)]
            moves = any(inferred.get(key) not in (None, at_base) for key in inferred if key[0] == r and key[1] == o)
            if choosers:
                continue
            if len(follows) == 1:
                gs[follows[0]][2].append(o)
            elif not follows and not moves and at_base in NAMES:
                fixed.append([[], {at_base}, [o]])
        result[r] = gs + fixed
    return result


def text(gs):
    if gs is None:
        return "?"
    if not gs:
        return "-"
    parts = []
    for members, types, outputs in gs:
        names = [NAMES[t] for t in ORDER if t in types]
        parts.append(",".join([str(k) for k in members] + [f"o{o}" for o in outputs]) + ":" + (",".join(names) or "none"))
    return ";".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tool")
    ap.add_argument("list")
    ap.add_argument("--write", action="store_true", help="fill in the types column")
    ap.add_argument("--verbose", action="store_true", help="print every row's column")
    ap.add_argument("--only", help="the rows of one op")
    args = ap.parse_args()
    lines, rows = ort.read_rows(args.list)
    fields = {r: lines[k].split("\t") for r, (k, _, _) in rows.items()}
    if args.only:
        rows = {r: v for r, v in rows.items() if r[1] == args.only}
    counts = {r: (fields[r][5], fields[r][6]) for r in rows}
    attributes = {r: fields[r][4] for r in rows}
    with tempfile.TemporaryDirectory() as workdir:
        base = bases(args.tool, list(rows), counts, workdir)
        found = constraints(args.tool, list(rows), base, attributes, workdir)
    differ, known = 0, 0
    for r, (k, _, _) in rows.items():
        column = text(found.get(r)) if base.get(r) is not None else "?"
        known += column != "?"
        if args.verbose:
            print(f"{' '.join(map(str, r))}\t{column}")
        have = fields[r][9] if len(fields[r]) > 9 else ""
        if have == column:
            continue
        if args.write:
            lines[k] = "\t".join(fields[r][:9] + [column] + fields[r][10:])
        else:
            differ += 1
            print(f"{' '.join(map(str, r))}: ONNX Runtime's types are {column}; the list says {have or 'nothing'}")
    if args.write:
        pathlib.Path(args.list).write_text("\n".join(lines) + "\n")
    print(f"op_types_ort: {len(rows)} rows; the types of {known} told by ONNX Runtime; {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The ort, inputs, outputs, empty_inputs and empty_outputs columns of src/onnx/op_list.tsv held against ONNX
Runtime (issue 49, item 1).

    op_kernels_ort.py OP_ATTRIBUTES LIST.tsv [--verbose] [--write]

ONNX Runtime looks a kernel up for each node when it creates a session, by the version of the op's schema the
node runs at: a kernel registered from version 1 with no end does not run a node of version 22 ("Could not find
an implementation for RandomNormal(22)"). So a single-node model per row, loaded until the session is created or
refused, tells whether ONNX Runtime runs that version. Each row's model is grown from float inputs and no
attributes as ONNX Runtime's refusals say (the least inputs and outputs, another element type for an input it
refuses the type of, a required attribute and the kind it asks for); a row it still refuses for another reason
(a graph attribute, a value it checks) cannot be asked.

A row ONNX Runtime creates a session for must not read "-"; a row it finds no kernel for, at any element type of
its first input, must read "-" (a function op expanded to a node without a kernel too, as Bernoulli-22).

The inputs and outputs columns: ONNX Runtime checks a node's counts against its schema first, and says the range
("has input size 0 not in range [min=1, max=3]"), so nodes of no input, of 99, and (with the least inputs) of no
output and of 99 outputs tell both ranges ("1-3"; "1-" where the bound is past 99: unbounded); a row it says no
range of (it makes Constant an initializer first, refuses the deprecated versions first) reads "?".

The empty_inputs and empty_outputs columns: the positions below the least count a node may name "" (an optional
one before a required one), asked one position at a time on a node of the least counts; ONNX's checker refuses a
required one first ("input 1 is marked single but has an empty string in the graph").

With --write, the four columns are filled in; without, a row that differs is one more difference.

Exits 1 on any row that differs, printing it.

OP_ATTRIBUTES is the build's tests/op_attributes (it writes the models, `--probes`).
"""

import argparse
import pathlib
import re
import sys
import tempfile

import op_attributes_ort as ort

# Element types tried in turn for an input ONNX Runtime refuses the type of (ONNX data type numbers): float,
# int64, int32, bool, uint8, int8, float16, string, double, uint32, int16, uint16, bfloat16.
TYPES = [1, 7, 6, 9, 2, 3, 10, 8, 11, 12, 5, 4, 16]
TYPE_REFUSED = re.compile(r"Type Error: Type '[^']*' of input parameter \(in(\d+)\)")
REQUIRED = re.compile(r"Required attribute '([^']+)' is missing")
KIND = re.compile(r"Mismatched attribute type in '[^:]*: ([A-Za-z_0-9]+)'\. Expected: '(\w+)'")
KINDS = {"INT": "i", "INTS": "is", "FLOAT": "f", "STRING": "s"}
NO_KERNEL = "Could not find an implementation for "
RANGE = re.compile(r"has (input|output) size \d+ not in range \[min=(\d+), max=(\d+)\]")
SINGLE = re.compile(r"(input|output) \d+ is marked single but has an empty string")
MANY = 99


def ask_each(tool, probes, workdir):
    """ort.ask, but a batch ONNX Runtime aborts on (an assertion in its library) is split until the probe that
    aborts it answers "aborted"."""
    try:
        return ort.ask(tool, probes, workdir)
    except SystemExit:
        if len(probes) == 1:
            return ["aborted"]
        half = len(probes) // 2
        return ask_each(tool, probes[:half], workdir) + ask_each(tool, probes[half:], workdir)


def answers(tool, rows, workdir):
    """Each row's last answer from ONNX Runtime: "ok", a missing kernel, or the refusal nothing more was tried
    against."""
    state = {r: {"shape": [0, 1], "types": {}, "attrs": {}} for r in rows}
    said = {}
    for _ in range(40):
        pending = [r for r in rows if r not in said]
        if not pending:
            break

        def probe(r):
            s = state[r]
            types = ",".join(str(TYPES[s["types"].get(k, 0)]) for k in range(s["shape"][0]))
            attrs = ",".join(f"{name}:{kind}" for name, kind in s["attrs"].items())
            return (*r, *s["shape"], "", types, attrs)

        for r, answer in zip(pending, ask_each(tool, [probe(r) for r in pending], workdir)):
            s = state[r]
            m = ort.ARITY.search(answer)
            if m:
                s["shape"][0 if m.group(1) == "input" else 1] = int(m.group(2))
                continue
            m = TYPE_REFUSED.search(answer)
            if m and s["types"].get(int(m.group(1)), 0) + 1 < len(TYPES):
                s["types"][int(m.group(1))] = s["types"].get(int(m.group(1)), 0) + 1
                continue
            # A missing kernel may be one element type's: the next type is tried for the first input and every
            # input of its type (those likely bound to one type parameter) before it counts.
            if NO_KERNEL in answer and s["shape"][0] > 0 and s["types"].get(0, 0) + 1 < len(TYPES):
                s.setdefault("no_kernel", answer)
                first = s["types"].get(0, 0)
                for k in range(s["shape"][0]):
                    if s["types"].get(k, 0) == first:
                        s["types"][k] = first + 1
                continue
            m = REQUIRED.search(answer)
            if m and m.group(1) not in s["attrs"]:
                s["attrs"][m.group(1)] = "i"
                continue
            m = KIND.search(answer)
            if m and KINDS.get(m.group(2)) and s["attrs"].get(m.group(1)) != KINDS[m.group(2)]:
                s["attrs"][m.group(1)] = KINDS[m.group(2)]
                continue
            # Every type tried: a kernel missing at one of them and no session at any is no kernel.
            said[r] = answer if answer == "ok" or not s.get("no_kernel") else s["no_kernel"]
    return {r: said.get(r, "not settled") for r in rows}


def ranges(tool, rows, workdir):
    """Each row's (inputs, outputs) columns as ONNX Runtime's refusals give them: "a-b", "a-" or "?"."""
    found = {r: {} for r in rows}

    def ask_all(counts):
        for r, answer in zip(rows, ask_each(tool, [(*r, *counts(r), "") for r in rows], workdir)):
            for m in RANGE.finditer(answer):
                found[r].setdefault(m.group(1), (int(m.group(2)), int(m.group(3))))

    least = lambda r: found[r].get("input", (0, 0))[0]  # noqa: E731
    ask_all(lambda r: (0, 1))
    ask_all(lambda r: (MANY, 1))
    ask_all(lambda r: (least(r), 0))
    ask_all(lambda r: (least(r), MANY))

    def text(bounds):
        if bounds is None:
            return "?"
        return f"{bounds[0]}-" if bounds[1] >= MANY else f"{bounds[0]}-{bounds[1]}"

    return {r: (text(found[r].get("input")), text(found[r].get("output"))) for r in rows}


def empties(tool, rows, counts, workdir):
    """Each row's (empty_inputs, empty_outputs) columns: the positions below the least count that a node may name
    "" (an optional input or output before a required one: GroupQueryAttention's key), "-" for none, "?" where
    the counts are not known. ONNX's checker, which ONNX Runtime runs as it loads a model, refuses a required
    position named "" ("input 1 is marked single but has an empty string in the graph") before anything else of
    the node, so a node of the least counts with one position named "" tells that position."""
    probes, where = [], []
    for r in rows:
        least = [int(c.split("-")[0]) if c != "?" else None for c in counts[r]]
        if least[0] is None or least[1] is None:
            continue
        for kind, n in (("i", least[0]), ("o", least[1])):
            for k in range(n):
                # One output at least, so that a node of no required output still has one (a named one).
                outputs = max(least[1], 1 if kind == "i" else k + 1)
                probes.append((*r, least[0], outputs, "", "", "", f"{kind}{k}"))
                where.append((r, kind, k))
    found = {r: {"i": [], "o": []} for r in rows}
    for (r, kind, k), answer in zip(where, ask_each(tool, probes, workdir)):
        if not SINGLE.search(answer):
            found[r][kind].append(k)

    def text(r, kind, column):
        if counts[r][column] == "?":
            return "?"
        return ",".join(map(str, found[r][kind])) or "-"

    return {r: (text(r, "i", 0), text(r, "o", 1)) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tool")
    ap.add_argument("list")
    ap.add_argument("--verbose", action="store_true", help="print every row's answer")
    ap.add_argument("--write", action="store_true", help="fill in the inputs and outputs columns")
    args = ap.parse_args()
    lines, rows = ort.read_rows(args.list)
    with tempfile.TemporaryDirectory() as workdir:
        said = answers(args.tool, list(rows), workdir)
        counts = ranges(args.tool, list(rows), workdir)
        empty = empties(args.tool, list(rows), counts, workdir)
    differ, runs, missing, unasked = 0, 0, 0, 0
    for r, answer in said.items():
        column = rows[r][2]
        if args.verbose:
            print(f"{' '.join(map(str, r))}\t{column}\t{answer[:200]}")
        if answer == "ok":
            runs += 1
            if column == "-":
                differ += 1
                print(f"{' '.join(map(str, r))}: ONNX Runtime runs it; the ort column says -")
        elif NO_KERNEL in answer:
            missing += 1
            if column != "-":
                differ += 1
                print(f"{' '.join(map(str, r))}: ONNX Runtime has no kernel for it ({answer[:120]}); the ort column "
                      f"says {column}")
        else:
            unasked += 1
    wrong_counts = 0
    for r, (k, _, _) in rows.items():
        fields = lines[k].split("\t")
        if tuple(fields[5:9]) == counts[r] + empty[r]:
            continue
        if args.write:
            lines[k] = "\t".join(fields[:5] + list(counts[r]) + list(empty[r]) + fields[9:])
        else:
            wrong_counts += 1
            print(f"{' '.join(map(str, r))}: ONNX Runtime takes {counts[r][0]} inputs and {counts[r][1]} outputs, "
                  f"{empty[r][0]} and {empty[r][1]} of them below the least may be \"\"; the list says "
                  f"{' '.join(fields[5:9])}")
    if args.write:
        pathlib.Path(args.list).write_text("\n".join(lines) + "\n")
    print(f"op_kernels_ort: {len(rows)} rows; ONNX Runtime runs {runs}, has no kernel for {missing}, cannot be "
          f"asked about {unasked}; {differ} differ; {wrong_counts} with other input or output counts or empty positions")
    return 1 if differ or wrong_counts else 0


if __name__ == "__main__":
    sys.exit(main())

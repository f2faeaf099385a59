#!/usr/bin/env python3
"""The attributes column of src/onnx/op_list.tsv held against ONNX Runtime (issue 49, item 1).

ONNX Runtime checks each node against its op's schema when it loads a model, and refuses an attribute the schema
does not name ("Unrecognized attribute: NAME for operator OP"); one it names passes that check (or fails only on its
type). So a single-node model per (row, name) asks ONNX Runtime whether that version of the op has that attribute.

    op_attributes_ort.py OP_ATTRIBUTES LIST.tsv
        For every row whose column is a list ("-" for none): each name it lists is one ONNX Runtime recognises,
        and every other name the column uses anywhere is one it refuses; every row that reads "?" is one ONNX
        Runtime cannot be asked about; the rows ONNX Runtime calls deprecated are those whose ort column says so.
        Exits 1 on any row that differs.
    op_attributes_ort.py OP_ATTRIBUTES LIST.tsv --discover [--write | --candidates]
        For every row whose column reads "?": the names ONNX Runtime recognises among the candidates (candidates():
        the identifiers in its library; --candidates prints them). Prints each row; with --write, fills them into the
        file. Rows ONNX Runtime cannot be asked about (it takes any attribute there, or refuses the node before it
        looks at attributes) stay "?". About 16 minutes on two cores (5.5 million single-node models).

OP_ATTRIBUTES is the build's tests/op_attributes (it writes the models). Each row is asked at its own since_version,
its node given as many inputs and outputs as the schema's least (learnt from ONNX Runtime's refusals).
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ATTRIBUTES_JS = HERE / "ort" / "attributes.js"
NODE = os.environ.get("RESHAPE1_NODE", "node")
# A name no schema has: the row's answer for it shows whether ONNX Runtime checks that row's attributes at all.
NOBODY = "reshape1_no_such_attribute"
ARITY = re.compile(r"has (input|output) size \d+ not in range \[min=(\d+), max=\d+\]")


def ask(tool, probes, workdir):
    """ONNX Runtime's answer to each probe (domain, op, since, inputs, outputs, attribute): "ok" or the error line."""
    if not probes:
        return []
    with tempfile.NamedTemporaryFile("w", dir=workdir, suffix=".tsv", delete=False) as lines:
        for p in probes:
            lines.write("\t".join(str(x) for x in p) + "\n")
    models = lines.name + ".bin"
    try:
        with open(lines.name) as stdin:
            wrote = subprocess.run([tool, "--probes", models], stdin=stdin, capture_output=True, text=True)
        if wrote.returncode != 0:
            sys.exit(f"op_attributes_ort: {tool} --probes failed ({wrote.returncode}): {wrote.stderr.strip()}")
        loaded = subprocess.run([NODE, str(ATTRIBUTES_JS), models], capture_output=True, text=True)
        if loaded.returncode != 0:
            sys.exit(f"op_attributes_ort: attributes.js failed ({loaded.returncode}): {loaded.stderr.strip()}")
        out = loaded.stdout
    finally:
        os.unlink(lines.name)
        if os.path.exists(models):
            os.unlink(models)
    answers = out.splitlines()
    if len(answers) != len(probes):
        sys.exit(f"op_attributes_ort: {len(probes)} probes, {len(answers)} answers")
    return answers


def unrecognised(answer, name):
    return f"Unrecognized attribute: {name} for operator" in answer


def arities(tool, rows, workdir):
    """Each row's (inputs, outputs) at which ONNX Runtime gets to its attributes, or None where it never does
    (NOBODY is not refused there: the schema takes any attribute, or the node is refused for another reason); and
    the rows it refuses as deprecated."""
    shape = {row: [0, 1] for row in rows}
    result = {}
    deprecated = set()
    for _ in range(4):
        pending = [row for row in rows if row not in result]
        if not pending:
            break
        answers = ask(tool, [(*row, *shape[row], NOBODY) for row in pending], workdir)
        for row, answer in zip(pending, answers):
            m = ARITY.search(answer)
            if m:
                shape[row][0 if m.group(1) == "input" else 1] = int(m.group(2))
            else:
                result[row] = tuple(shape[row]) if unrecognised(answer, NOBODY) else None
                # ONNX's own deprecated versions are refused as such; the versions at which ONNX Runtime
                # deprecated an experimental op of ONNX's it keeps (ImageScaler-10) as not registered, the
                # version before being one it runs.
                if "is deprecated in domain_version" in answer or (
                        f"{row[1]}({row[2]}) is not a registered function/op" in answer and row[2] > 1):
                    deprecated.add(row)
    for row in rows:
        result.setdefault(row, None)
    return result, deprecated


def candidates(listed):
    """The names to ask about where a row is not transcribed: every identifier among the strings of ONNX Runtime's
    library (the schemas' attribute names are among them; the linker may have merged one into the tail of a longer
    string, so each '_'-separated tail too), in the forms attribute names take (snake_case, with an upper-case
    segment as order_A; transA and its kin; a single capital as K and N), and every name the column already lists."""
    ort_dir = pathlib.Path(os.environ.get("RESHAPE1_ORT_DIR", "/var/cache/reshape1/onnxruntime-node"))
    libraries = sorted((ort_dir / "node_modules" / "onnxruntime-node" / "bin").glob("**/libonnxruntime.so*"))
    if not libraries:
        sys.exit(f"op_attributes_ort: no libonnxruntime.so under {ort_dir}; run scripts/install-deps.sh")
    data = libraries[0].read_bytes()
    snake = re.compile(r"[a-z][a-z0-9]*(_[A-Za-z0-9][a-z0-9]*)*|trans[A-Z][A-Za-z]*")
    names = set(listed) | {chr(c) for c in range(ord("A"), ord("Z") + 1)}
    for token in re.findall(rb"[a-z][A-Za-z0-9_]{0,30}", data):
        word = token.decode()
        if snake.fullmatch(word):
            names.add(word)
    for word in list(names):
        parts = word.split("_")
        for k in range(1, len(parts)):
            tail = "_".join(parts[k:])
            if tail[:1].isalpha():
                names.add(tail)
    return sorted(names - {NOBODY})


def read_rows(path):
    lines = pathlib.Path(path).read_text().splitlines()
    rows = {}
    for k, line in enumerate(lines):
        if line.startswith("#") or not line:
            continue
        f = line.split("\t")
        rows[(f[0], f[1], int(f[2]))] = (k, f[4], f[3])
    return lines, rows


def run_rows(tool, rows, names_of, workdir):
    """The names of names_of(row) ONNX Runtime takes as attributes of each row, or None where it cannot be asked.
    The probes go in chunks to two processes (ONNX Runtime's loads are the time; each process starts in ~0.1 s)."""
    arity, _ = arities(tool, list(rows), workdir)
    probes = [(r, n) for r in rows if arity[r] is not None for n in names_of(r)]
    size = max(2000, len(probes) // 16 + 1)
    chunks = [probes[k:k + size] for k in range(0, len(probes), size)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        answers = pool.map(lambda chunk: ask(tool, [(*r, *arity[r], n) for r, n in chunk], workdir), chunks)
        found = {r: set() for r in rows if arity[r] is not None}
        for chunk, said in zip(chunks, answers):
            for (r, n), answer in zip(chunk, said):
                if not unrecognised(answer, n):
                    found[r].add(n)
    return {r: found.get(r) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tool")
    ap.add_argument("list")
    ap.add_argument("--discover", action="store_true")
    ap.add_argument("--candidates", action="store_true", help="with --discover: print the names it would ask about")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    lines, rows = read_rows(args.list)
    with tempfile.TemporaryDirectory() as workdir:
        if args.discover:
            listed = {n for _, col, _ in rows.values() if col not in ("?", "-") for n in col.split(",")}
            names = candidates(listed)
            if args.candidates:
                print("\n".join(names))
                return 0
            todo = [r for r, (_, col, _) in rows.items() if col == "?"]
            print(f"op_attributes_ort: asking about {len(names)} names for each of {len(todo)} rows", file=sys.stderr)
            found = run_rows(args.tool, todo, lambda r: names, workdir)
            for r in todo:
                names = found[r]
                column = "?" if names is None else ",".join(sorted(names)) or "-"
                print("\t".join(str(x) for x in r) + "\t" + column)
                if args.write and names is not None:
                    k = rows[r][0]
                    f = lines[k].split("\t")
                    lines[k] = "\t".join(f[:4] + [column] + f[5:])
            if args.write:
                pathlib.Path(args.list).write_text("\n".join(lines) + "\n")
            return 0
        listed = {r: set() if col == "-" else set(col.split(",")) for r, (_, col, _) in rows.items() if col != "?"}
        universe = sorted(set().union(*listed.values()) | {NOBODY})
        found = run_rows(args.tool, list(listed), lambda r: universe, workdir)
        differ = 0
        for r, names in listed.items():
            if found[r] is None:
                differ += 1
                print(f"{' '.join(map(str, r))}: ONNX Runtime does not refuse an attribute no schema has, "
                      f"so the list ({','.join(sorted(names)) or '-'}) cannot be held against it; it should read ?")
            elif found[r] != names:
                differ += 1
                print(f"{' '.join(map(str, r))}: the list says {','.join(sorted(names)) or '-'}; ONNX Runtime also "
                      f"takes {','.join(sorted(found[r] - names)) or 'nothing more'} and refuses "
                      f"{','.join(sorted(names - found[r])) or 'nothing listed'}")
        unlisted = [r for r, (_, col, _) in rows.items() if col == "?"]
        unlisted_arity, deprecated = arities(args.tool, unlisted, workdir)
        for r, arity in unlisted_arity.items():
            if arity is not None:
                differ += 1
                print(f"{' '.join(map(str, r))}: reads ?, but ONNX Runtime checks its attributes: fill it in with "
                      f"--discover")
        # A deprecated row is one ONNX Runtime cannot be asked about, so it reads "?".
        listed_deprecated = {r for r, (_, _, ort) in rows.items() if ort == "deprecated"}
        for r in sorted(deprecated ^ listed_deprecated):
            differ += 1
            print(f"{' '.join(map(str, r))}: ONNX Runtime {'calls' if r in deprecated else 'does not call'} it "
                  f"deprecated; the ort column says {rows[r][2]}")
        print(f"op_attributes_ort: {len(listed)} rows, each asked about {len(universe)} names; {len(unlisted)} rows "
              f"ONNX Runtime cannot be asked about; {differ} differ")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

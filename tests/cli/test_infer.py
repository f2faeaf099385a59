#!/usr/bin/env python3
"""Runs the built `reshape1` binary: outputs, exit codes, JSON, bad arguments, and every
`$ reshape1 ...` example in README.md and docs/*.md (their output must match verbatim)."""
import json
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile

BINARY = str(pathlib.Path(sys.argv[1]).resolve())
ROOT = pathlib.Path(__file__).resolve().parents[2]
failures = []
passed = 0


def run(args, cwd=None):
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def check(name, args, code, stdout=None, stderr=None, stderr_has=None):
    global passed
    rc, out, err = run(args)
    problems = []
    if rc != code:
        problems.append(f"exit {rc}, want {code}")
    if stdout is not None and out != stdout:
        problems.append(f"stdout {out!r}, want {stdout!r}")
    if stderr is not None and err != stderr:
        problems.append(f"stderr {err!r}, want {stderr!r}")
    if stderr_has is not None and stderr_has not in err:
        problems.append(f"stderr {err!r} lacks {stderr_has!r}")
    if problems:
        failures.append(f"{name}: reshape1 {shlex.join(args)}: " + "; ".join(problems))
    else:
        passed += 1


# Success: the shape on one line, then one line per symbol equality.
check("spec example 2", ["infer", "[2,5,5,24]", "[0,-1,4]", "--special-zero", "true"], 0, "[2,150,4]\n", "")
check("options after positionals", ["infer", "[2,5,5,24]", "[0,-1,4]", "--special-zero=true"], 0, "[2,150,4]\n")
check("options before positionals", ["infer", "--special-zero", "true", "[2,5,5,24]", "[0,-1,4]"], 0, "[2,150,4]\n")
check("-- ends the options", ["infer", "--special-zero", "false", "--", "[1]", "[-1]"], 0, "[1]\n")
check("symbol equality line", ["infer", "[?@A,?@B,768]", "[?@A,?@C,12,64]", "--special-zero", "false"], 0,
      "[?@A,?@C,12,64]\nB == C\n")
check("pattern type", ["infer", "[2,3]", "[3,2]", "--special-zero", "false", "--pattern-type", "u8"], 0, "[3,2]\n")
check("empty rule", ["infer", "[0,16,8]", "[0,-1]", "--special-zero", "false", "--empty-rule", "tensorflow"], 0,
      "[0,128]\n")
check("sound bounds", ["infer", "[7,3]", "[..5,3]", "--special-zero", "true", "--sound-bounds"], 0, "[1..7,3]\n")
check("legacy scalar", ["infer", "--special-zero", "false", "--legacy-scalar-pattern", "--", "[1,1]", "1"], 0, "[]\n")
check("unknown rank", ["infer", "[...]", "[2,-1]", "--special-zero", "false"], 0, "[2,1..]\n")

# JSON.
rc, out, err = run(["infer", "[?@A,?@B,768]", "[?@A,?@C,12,64]", "--special-zero", "false", "--json"])
doc = json.loads(out)
want = {"shape": "[?@A,?@C,12,64]",
        "dims": [{"min": 0, "max": None, "symbol": "A"}, {"min": 0, "max": None, "symbol": "C"}, 12, 64],
        "symbol_equalities": [["B", "C"]]}
if rc != 0 or doc != want or list(doc) != ["shape", "dims", "symbol_equalities"]:
    failures.append(f"json success: {rc} {out!r}")
else:
    passed += 1
rc, out, err = run(["infer", "[...]", "[2,-1]", "--special-zero", "false", "--json"])
if json.loads(out)["dims"] != "[...]" and json.loads(out)["dims"] != [2, {"min": 1, "max": None}]:
    failures.append(f"json dims: {out!r}")
rc, out, err = run(["infer", "[...]", "[...]", "--special-zero", "false", "--json"])
if rc != 0 or json.loads(out)["dims"] != "[...]":
    failures.append(f"json unknown rank: {out!r}")
else:
    passed += 1
rc, out, err = run(["infer", "[1,2,3,1]", "[0,-1,-1]", "--special-zero", "true", "--json"])
doc = json.loads(out) if out else {}
want = {"error": {"code": "multiple_infer",
                  "message": "pattern[1] and pattern[2]: only one -1 is allowed; give the other dimensions explicitly",
                  "indices": [1, 2]}}
if rc != 1 or doc != want or err:
    failures.append(f"json error: {rc} {out!r} {err!r}")
else:
    passed += 1
rc, out, err = run(["infer", "[2,x]", "[1]", "--special-zero", "false", "--json"])
doc = json.loads(out) if out else {}
if rc != 1 or doc.get("error", {}).get("code") != "syntax" or doc["error"].get("offset") != 3:
    failures.append(f"json syntax error: {rc} {out!r}")
else:
    passed += 1

# Invalid input: one line on stderr, exit 1, nothing on stdout.
check("inference error", ["infer", "[3,4,5]", "[3,3,3]", "--special-zero", "false"], 1, "",
      "reshape1 infer: pattern: output [3,3,3] has 27 elements but input [3,4,5] has 60; use 0 to copy an input "
      "dimension or -1 to infer one\n")
check("syntax in INPUT", ["infer", "[2,x]", "[1]", "--special-zero", "false"], 1, "",
      "reshape1 infer: INPUT '[2,x]': offset 3: expected a dimension, found 'x'; dimensions look like 5, ?, 2..8, "
      "2.., ..8 or -1, optionally followed by @name\n")
check("syntax in PATTERN", ["infer", "[2,3]", "[1,2", "--special-zero", "false"], 1, "",
      "reshape1 infer: PATTERN '[1,2': offset 4: expected ',' or ']', found the end of the text; separate pattern "
      "elements with commas\n")
check("unknown type", ["infer", "[2,3]", "[6]", "--special-zero", "false", "--pattern-type", "int"], 2, "",
      stderr_has="reshape1 infer: --pattern-type: element type 'int': unknown; use one of boolean")
check("value out of type", ["infer", "[2,3]", "[300]", "--special-zero", "false", "--pattern-type", "u8"], 1, "",
      "reshape1 infer: PATTERN '[300]': offset 1 (pattern[0]): value 300 does not fit u8 (0..255); choose a wider "
      "element type\n")
check("float pattern type", ["infer", "[2,3]", "[6]", "--special-zero", "false", "--pattern-type", "f32"], 1, "",
      "reshape1 infer: pattern: element type f32 is not an integer type; use an integer type such as i64 or i32\n")
check("scalar pattern", ["infer", "--special-zero", "false", "--", "[]", "-1"], 1, "",
      stderr_has="scalar (rank-0) tensor")

# Usage errors: exit 2.
check("missing --special-zero", ["infer", "[2,3]", "[6]"], 2, "", stderr_has="--special-zero is required")
check("bad --special-zero", ["infer", "[2,3]", "[6]", "--special-zero", "yes"], 2, "")
check("unknown flag", ["infer", "[2,3]", "[6]", "--special-zero", "true", "--frobnicate"], 2, "")
check("bad empty rule", ["infer", "[2,3]", "[6]", "--special-zero", "true", "--empty-rule", "numpy"], 2, "")
check("missing pattern", ["infer", "[2,3]", "--special-zero", "true"], 2, "")
check("no subcommand", [], 2, "")
check("unknown subcommand", ["frobnicate"], 2, "")

# Help and version.
check("version", ["--version"], 0, stdout=None)
rc, out, _ = run(["--version"])
if not out.startswith("reshape1 "):
    failures.append(f"version: {out!r}")
for args in (["--help"], ["infer", "--help"]):
    rc, out, _ = run(args)
    if rc != 0 or "infer" not in out or "Usage" not in out:
        failures.append(f"help {args}: {rc} {out[:80]!r}")
    else:
        passed += 1

# Every `$ reshape1 ...` example in the docs, with its printed output, verbatim. They run in a scratch
# directory that holds a copy of examples/tensors and a link to tests/, so that their output files land there.
scratch = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-docs-"))
shutil.copytree(ROOT / "examples" / "tensors", scratch / "examples" / "tensors")
(scratch / "tests").symlink_to(ROOT / "tests")  # models are read in place; what fix writes lands in scratch
for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "tensors" / "README.md"]:
    lines = doc.read_text().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ reshape1 "):
            args = shlex.split(line[len("$ reshape1 "):])
            expected = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```") and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            rc, out, err = run(args, cwd=scratch)
            got = (out + err).rstrip("\n").split("\n") if (out + err) else []
            if got != expected:
                failures.append(f"{doc.name}: reshape1 {shlex.join(args)}:\n  got  {got}\n  want {expected}")
            else:
                passed += 1
            continue
        i += 1

shutil.rmtree(scratch)

# The README's embedding snippet is the example program that ctest compiles and runs.
if (ROOT / "examples" / "embed_infer.cpp").read_text() not in (ROOT / "README.md").read_text():
    failures.append("README.md: the embedding snippet differs from examples/embed_infer.cpp")
else:
    passed += 1

for f in failures:
    print("FAIL", f)
print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)

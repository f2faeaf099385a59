#!/usr/bin/env python3
"""The outputs of `reshape1` on every model it is tested with, compared with the committed goldens.

A refactor that is meant to change no output (issue "One op schema, one finding, one fix") is checked by
this test: for each shared IR and ONNX model (../shared), each test model (tests/data/ir-models) and each
ONNX fixture (tests/data/onnx, built into the build tree), the text and the exit code of

    check M;  check M --json;  check M --batch B  (B = 1, 2, 4, ?);  check M --batch 4 --json;
    fix M -o OUT --json, with the SHA-256 of each file it writes

are compared with tests/golden/expected/<model>.txt. A change of output that is meant is committed with
the goldens rewritten (`--write`), so that the diff shows it. Every finding of the two JSON reports is also
checked to carry its hint as data: a `hint_code` (one docs/cli.md lists) exactly where it has a hint.

    golden.py RESHAPE1 FIXTURES_DIR [--write] [--only SUBSTRING]
"""
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
EXPECTED = pathlib.Path(__file__).resolve().parent / "expected"


def models(fixtures: pathlib.Path):
    """(label, path relative to the repository root, format) of every model, in a stable order."""
    found = []
    for base, label in ((SHARED / "ir-models", "shared-ir"), (ROOT / "tests" / "data" / "ir-models", "test-ir")):
        for xml in sorted(base.glob("*/*.xml")):
            found.append((f"{label}.{xml.parent.name}.{xml.stem}", xml, "ir"))
    for onnx in sorted((SHARED / "onnx-models").glob("*/*.onnx")):
        found.append((f"shared-onnx.{onnx.parent.name}.{onnx.stem}", onnx, "onnx"))
    for onnx in sorted(fixtures.glob("*.onnx")):
        found.append((f"fixture.{onnx.stem}", onnx, "onnx"))
    return found


def shown(path: pathlib.Path) -> str:
    """A path as the commands are given it: relative to the repository root (the shared models through
    ../shared, the fixtures through the build tree's name for them)."""
    try:
        return os.path.relpath(path, ROOT)
    except ValueError:
        return str(path)

# The hint codes docs/cli.md lists (its "Hint codes" table), and the findings that break the rule above.
HINT_CODES = set(re.findall(r"^\| `(\w+)` \|", (ROOT / "docs" / "cli.md").read_text().split("### Hint codes", 1)[1]
                            .split("\n## ", 1)[0], re.M))
UNCODED = []


def check_hint_codes(args, stdout: bytes) -> None:
    try:
        report = json.loads(stdout)
    except ValueError:
        return  # an error's JSON, or no JSON: nothing to check
    for f in report.get("findings", []) if isinstance(report, dict) else []:
        code, hint = f.get("hint_code"), f.get("hint")
        if hint is None:
            continue
        if bool(code) != bool(hint) or (code and code not in HINT_CODES) or (not code and f.get("hint_args")):
            UNCODED.append(f"{' '.join(args)}: finding {f.get('id')}: hint_code {code!r} for the hint {hint!r}")


def run(binary: str, args, out_dir: pathlib.Path, fixtures: pathlib.Path) -> str:
    p = subprocess.run([binary, *args], capture_output=True, cwd=ROOT, timeout=600)
    if "--json" in args and "check" in args:
        check_hint_codes(args, p.stdout)
    text = p.stdout.decode("utf-8", "backslashreplace") + p.stderr.decode("utf-8", "backslashreplace")
    text = f"$ reshape1 {' '.join(args)}\n[exit {p.returncode}]\n{text}"
    # The scratch directory and the build tree (ci, ci-sanitize) differ from run to run and machine to machine.
    return text.replace(str(out_dir), "OUT").replace(shown(fixtures), "FIXTURES").replace(str(fixtures), "FIXTURES")


def outputs(binary: str, model: pathlib.Path, fmt: str, fixtures: pathlib.Path) -> str:
    m = shown(model)
    with tempfile.TemporaryDirectory(prefix="reshape1-golden-") as tmp:
        out_dir = pathlib.Path(tmp)
        parts = [run(binary, ["check", m], out_dir, fixtures), run(binary, ["check", m, "--json"], out_dir, fixtures)]
        for b in ("1", "2", "4", "?"):
            parts.append(run(binary, ["check", m, "--batch", b], out_dir, fixtures))
        parts.append(run(binary, ["check", m, "--batch", "4", "--json"], out_dir, fixtures))
        out = out_dir / ("fixed.xml" if fmt == "ir" else "fixed.onnx")
        fix = run(binary, ["fix", m, "-o", str(out), "--json"], out_dir, fixtures)
        parts.append(fix.replace(str(out), "OUT/" + out.name))
        for written in sorted(out_dir.iterdir()):
            digest = hashlib.sha256(written.read_bytes()).hexdigest()
            parts.append(f"written OUT/{written.name}: sha256 {digest}\n")
    return "".join(p if p.endswith("\n") else p + "\n" for p in parts)


def main() -> int:
    args = sys.argv[1:]
    write = "--write" in args
    only = None
    if "--only" in args:
        only = args[args.index("--only") + 1]
        del args[args.index("--only"):args.index("--only") + 2]
    args = [a for a in args if a != "--write"]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary, fixtures = os.path.abspath(args[0]), pathlib.Path(args[1]).resolve()
    if not SHARED.is_dir():
        print(f"golden: {SHARED} is not there: the shared models are part of the goldens; skipped", file=sys.stderr)
        return 77  # ctest's SKIP_RETURN_CODE
    found = [x for x in models(fixtures) if only is None or only in x[0]]
    if write and only is None:
        shutil.rmtree(EXPECTED, ignore_errors=True)
    EXPECTED.mkdir(exist_ok=True)
    differ, missing = [], []
    for label, model, fmt in found:
        got = outputs(binary, model, fmt, fixtures)
        expected_file = EXPECTED / f"{label}.txt"
        if write:
            expected_file.write_text(got)
        elif not expected_file.exists():
            missing.append(label)
        elif expected_file.read_text() != got:
            differ.append(label)
            (pathlib.Path(tempfile.gettempdir()) / f"reshape1-golden-{label}.txt").write_text(got)
    if not write and only is None:
        extra = sorted({p.stem for p in EXPECTED.glob("*.txt")} - {label for label, _, _ in found})
        missing += [f"{x} (a golden for no model)" for x in extra]
    for problem in UNCODED:
        print(f"golden: a hint without its code: {problem}")
    if write:
        print(f"golden: wrote {len(found)} goldens to {shown(EXPECTED)}")
        return 1 if UNCODED else 0
    for label in differ:
        print(f"golden: {label}: the output differs; what it is now: "
              f"{pathlib.Path(tempfile.gettempdir()) / f'reshape1-golden-{label}.txt'} (diff it with "
              f"tests/golden/expected/{label}.txt)")
    for label in missing:
        print(f"golden: {label}: no golden (run with --write and commit the result)")
    print(f"golden: {len(found)} models, {len(differ)} differ, {len(missing)} missing")
    return 1 if differ or missing or UNCODED else 0


if __name__ == "__main__":
    sys.exit(main())

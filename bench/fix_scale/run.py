#!/usr/bin/env python3
"""`reshape1 fix` at the scale of real models, against the `check --batch B` runs it proves.

For each K: K copies of a model side by side (make_copies.py; by default the shared YOLO11n, 8 rewrites a
copy), then `reshape1 check M.xml --batch B --quiet` for each checked batch B and
`reshape1 fix M.xml -o F.xml --check-batch ... --json`, each a child process timed with its own peak
memory (wait4's ru_maxrss). Targets (issue 30): fix at most 3x the sum of the check times and at most 2x
the largest check's peak memory, both linear in the layers (the slopes are printed).

With --shape SHAPE (issue 48: `fix --shape`), every input of the copies is asked at SHAPE (`[1,3,?@H,?@W]`:
the copies share the named sizes), fix runs as `fix M.xml -o F.xml --shape NAME=SHAPE ... --json`, and the
checks it is held against are `check M.xml --shape ... --quiet` at each shape its report lists as checked
(the shape asked and its samples).

Usage: run.py --cli build/bench/cli/reshape1 [--model M.xml] [--copies 1,5,20,60,125] [--check-batch 1,2,8,?]
              [--shape SHAPE] [--json OUT.json] [--timeout 600]

A run that times out (--timeout, per process) or cannot start is reported in its row, not raised; a check
that exits 2 or 3 (the model did not read) is named under the table. The exit code is 0 either way.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
SHARED = HERE.parents[1].parent / "shared" / "ir-models" / "yolo11n-int8-ov2025.2" / "yolo11n.xml"


def timed(argv, timeout):
    """Runs argv; returns (exit code, None on timeout or "cannot start", seconds, peak KiB, stdout)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        try:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        except OSError as e:  # the binary is missing (being rebuilt?) or not executable
            return f"cannot start: {e.strerror}", 0.0, 0, ""
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.perf_counter() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return None, timeout, 0, ""
            time.sleep(0.005)
        seconds = time.perf_counter() - start
        out.seek(0)
        return os.waitstatus_to_exitcode(status), seconds, usage.ru_maxrss, out.read().decode(errors="replace")


def parameters(model):
    """The names of the model's inputs (its Parameter layers), in file order."""
    import xml.etree.ElementTree as ET
    return [layer.get("name") for layer in ET.parse(model).getroot().iter("layer") if layer.get("type") == "Parameter"]


def report_of(out):
    """fix's --json object, or {} when the output is not one (a crash half way, say)."""
    try:
        report = json.loads(out)
    except ValueError:
        return {}
    return report if isinstance(report, dict) else {}


def label(runs):
    """'timeout' or 'error' for a column whose runs did not all finish, else None."""
    exits = [r["exit"] for r in runs]
    return None if all(isinstance(e, int) for e in exits) else "timeout" if None in exits else "error"


def ratio(a, b):
    return a / b if b else float("nan")


def slope(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the reshape1 binary")
    ap.add_argument("--model", default=str(SHARED))
    ap.add_argument("--copies", default="1,5,20,60,125")
    ap.add_argument("--check-batch", default="1,2,8,?")
    ap.add_argument("--shape", help="new sizes for every input (fix --shape) in place of batches")
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    if not pathlib.Path(a.model).exists():
        print(f"fix at scale: {a.model} is missing (the shared models sit at ../shared); skipped")
        return 0
    batches = a.check_batch.split(",")
    rows = []
    print(f"{'K':>4} {'layers':>7} {'MB':>6} {'checks s':>9} {'fix s':>8} {'time':>6} "
          f"{'check MB':>9} {'fix MB':>8} {'memory':>7} {'kept':>5}  fixed")
    with tempfile.TemporaryDirectory() as d:
        for k in [int(x) for x in a.copies.split(",")]:
            model = pathlib.Path(d) / f"m{k}.xml"
            made = subprocess.run([sys.executable, str(HERE / "make_copies.py"), a.model, str(k), str(model)],
                                  capture_output=True, text=True)
            if made.returncode != 0:
                why = (made.stderr or made.stdout).strip().splitlines() or ["no output"]
                print(f"{k:>4} make_copies.py failed (exit {made.returncode}): {why[-1]}", flush=True)
                continue
            layers = int(made.stdout.split()[0])
            checks = []
            if a.shape:
                # Every input (the copies' `x`, `x/copy1`, ...) at the shape asked; the checks are those the
                # fix's report lists (`at x=[...] x/copy1=[...]: ...`), run after it.
                asked = []
                for name in parameters(model):
                    asked += ["--shape", f"{name}={a.shape}"]
                rc, s, kib, out = timed([a.cli, "fix", str(model), "-o", str(pathlib.Path(d) / f"f{k}.xml"), *asked,
                                         "--json"], a.timeout)
                report = report_of(out) if isinstance(rc, int) else {}
                for line in report.get("checked", []):
                    shapes = line.split(": ", 1)[0].removeprefix("at ").split(" ")
                    argv = [a.cli, "check", str(model), "--quiet"]
                    for x in shapes:
                        argv += ["--shape", x]
                    crc, cs, ckib, _ = timed(argv, a.timeout)
                    checks.append({"batch": " ".join(shapes)[:40], "exit": crc, "seconds": cs, "peak_kib": ckib})
                if not checks:
                    checks.append({"batch": "none", "exit": "no checked shapes in fix's report", "seconds": 0.0,
                                   "peak_kib": 0})
            else:
                for b in batches:
                    rc, s, kib, _ = timed([a.cli, "check", str(model), "--batch", b, "--quiet"], a.timeout)
                    checks.append({"batch": b, "exit": rc, "seconds": s, "peak_kib": kib})
                rc, s, kib, out = timed([a.cli, "fix", str(model), "-o", str(pathlib.Path(d) / f"f{k}.xml"),
                                         "--check-batch", a.check_batch, "--json"], a.timeout)
                report = report_of(out) if isinstance(rc, int) else {}
            row = {"copies": k, "layers": layers, "xml_mb": model.stat().st_size / 1e6,
                   "checks": checks, "check_seconds": sum(c["seconds"] for c in checks),
                   "check_peak_kib": max(c["peak_kib"] for c in checks),
                   "fix": {"exit": rc, "seconds": s, "peak_kib": kib, "kept": len(report.get("changes", [])),
                           "fixed": report.get("fixed")}}
            rows.append(row)
            for f in pathlib.Path(d).glob(f"[mf]{k}.*"):
                f.unlink()
            fx = row["fix"]
            print(f"{k:>4} {layers:>7} {row['xml_mb']:>6.1f} "
                  f"{label(checks) or format(row['check_seconds'], '.2f'):>9} "
                  f"{label([fx]) or format(fx['seconds'], '.2f'):>8} "
                  f"{ratio(fx['seconds'], row['check_seconds']):>5.2f}x {row['check_peak_kib'] / 1024:>9.0f} "
                  f"{fx['peak_kib'] / 1024:>8.0f} {ratio(fx['peak_kib'], row['check_peak_kib']):>6.2f}x {fx['kept']:>5}  "
                  f"{fx['fixed']}", flush=True)
            for c in checks:
                if not isinstance(c["exit"], int):
                    print(f"     check {c['batch']}: {c['exit'] or 'timeout'}")
                elif c["exit"] not in (0, 1, 4):
                    print(f"     check {c['batch']}: exit {c['exit']} (the model did not read)")
            if isinstance(fx["exit"], str):
                print(f"     fix: {fx['exit']}")
            elif fx["exit"] is not None and not report:
                print(f"     fix: exit {fx['exit']}, no JSON report on stdout")
    done = [r for r in rows if not label(r["checks"] + [r["fix"]])]  # the slopes leave out runs that did not finish
    xs = [r["layers"] for r in done]
    print(f"slope: fix {slope(xs, [r['fix']['seconds'] for r in done]) * 1e6:.1f} us/layer, the checks together "
          f"{slope(xs, [r['check_seconds'] for r in done]) * 1e6:.1f} us/layer; fix memory "
          f"{slope(xs, [r['fix']['peak_kib'] for r in done]):.2f} KiB/layer, one check "
          f"{slope(xs, [r['check_peak_kib'] for r in done]):.2f} KiB/layer"
          + (f" ({len(rows) - len(done)} K left out: not finished)" if len(done) < len(rows) else ""))
    missed = 0
    for r in rows:
        fx = r["fix"]
        if not isinstance(fx["exit"], int) or fx["seconds"] > 3 * r["check_seconds"]:
            print(f"target missed at K={r['copies']}: fix time above 3x the checks'")
            missed += 1
        if not isinstance(fx["exit"], int) or fx["peak_kib"] > 2 * r["check_peak_kib"]:
            print(f"target missed at K={r['copies']}: fix memory above 2x one check's")
            missed += 1
        if fx["fixed"] is not True:
            print(f"target missed at K={r['copies']}: not fixed")
            missed += 1
    if rows and not missed:
        print("targets met at every K: fix <= 3x the checks' time, <= 2x one check's peak memory, fixed")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

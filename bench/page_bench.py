#!/usr/bin/python3
"""`check --batch 4` in the page, against the native tool, on the shared IR model with the most layers (issue 50's
target: at most 3x). The page runs in Debian's chromium, headless, driven as tests/web/page_test.py drives it (the
site served from 127.0.0.1); its time is the worker's, around the module's command (the page's `data-ms` on its
status line), the same command the tool runs in a process of its own (`check NAME --batch 4 --dot ... --json`, its
wall time, start-up included). Runs alternate; the medians are printed with the ratio.

    page_bench.py SITE_DIR NATIVE_CLI SHARED_DIR [--runs N] [--model DIR]
"""
import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "web"))
from page_test import Page, Site  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402


def most_layers(shared):
    """The shared IR model whose .xml holds the most <layer elements."""
    best = None
    for xml in sorted((shared / "ir-models").glob("*/*.xml")):
        count = xml.read_text(errors="replace").count("<layer ")
        if best is None or count > best[0]:
            best = (count, xml)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("site")
    ap.add_argument("cli")
    ap.add_argument("shared")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--model", help="an IR model's .xml instead of the one with the most layers")
    args = ap.parse_args()
    site, cli, shared = (pathlib.Path(a).resolve() for a in (args.site, args.cli, args.shared))
    if args.model:
        xml = pathlib.Path(args.model).resolve()
        layers = xml.read_text(errors="replace").count("<layer ")
    else:
        layers, xml = most_layers(shared)
    binary = xml.with_suffix(".bin")
    server = Site(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-page-bench-"))
    (work / "downloads").mkdir()
    (work / "out").mkdir()
    for f in (xml, binary):
        (work / f.name).symlink_to(f)
    page = Page(f"http://127.0.0.1:{server.server_address[1]}/index.html", work / "downloads")
    in_page, native = [], []
    try:
        page.pick(xml, binary)
        for _ in range(args.runs):
            page.ask_batch_by_keyboard(4)
            if page.error():
                sys.exit(f"page_bench: the page says: {page.error()}")
            in_page.append(float(page.driver.find_element(By.ID, "status").get_attribute("data-ms")))
            start = time.perf_counter()
            r = subprocess.run([str(cli), "check", xml.name, "--batch", "4", "--dot", f"out/{xml.stem}.dot", "--json"],
                               cwd=work, capture_output=True)
            native.append((time.perf_counter() - start) * 1000)
            if r.returncode not in (0, 1, 4):
                sys.exit(f"page_bench: the tool exited with {r.returncode}: {r.stderr.decode()}")
    finally:
        page.driver.quit()
        server.shutdown()
    page_ms, native_ms = statistics.median(in_page), statistics.median(native)
    print(f"model: {xml.stem} ({layers} layers), {args.runs} runs each, alternated")
    print(f"check --batch 4 in the page (chromium, the worker's module): median {page_ms:.1f} ms")
    print(f"check --batch 4 by the native tool (a process each):       median {native_ms:.1f} ms")
    print(f"page / native: {page_ms / native_ms:.2f}x (target <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

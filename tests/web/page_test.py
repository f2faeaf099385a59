#!/usr/bin/python3
"""The page in a real browser: Debian's chromium, headless, driven by Selenium (Debian's python3-selenium
and chromium-driver), the site served from 127.0.0.1 by a server this test starts and stops.

    page_test.py SITE_DIR NATIVE_CLI SHARED_DIR SCREENSHOT_DIR

For every shared ONNX model and five shared IR models, picked through the page's file input: the page's
JSON for a batch of 4 is the text the native tool prints (`check NAME --batch 4 --dot ... --json`, run in a
directory holding the model under its own name), and the files its "Fix and download" button downloads are
byte for byte the tool's `fix NAME --check-batch 4 -o ...`. A malformed file, a 0-byte file, an IR without
its .bin and a file over the page's limit give their messages, and the page answers again after each. The
main flow after picking a file (type a batch, read the answer, download the fix) is driven by the keyboard
alone. No request reaches the server after the page has loaded. Screenshots at 1280x800 and 390 px wide
go to SCREENSHOT_DIR.
"""
import http.server
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

IR_MODELS = ["keras-mnist-cnn-mo2021.4", "lstm-gesture-tf2onnx-ir11", "omz-face-detection-0200",
             "omz-single-image-super-resolution-1033-fp16", "yolo11n-int8-ov2025.2"]
MAX_BYTES = 1024 * 1024 * 1024


class Site(http.server.ThreadingHTTPServer):
    """Serves a directory and records every request after `watch()`."""

    def __init__(self, root):
        self.requests = []
        self.watching = False
        root = str(root)

        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".wasm": "application/wasm", ".js": "text/javascript"}

            def __init__(self, *a, **k):
                super().__init__(*a, directory=root, **k)

            def log_message(self, *a):
                pass

            def do_GET(self):
                if server.watching:
                    server.requests.append(self.path)
                super().do_GET()

        server = self
        super().__init__(("127.0.0.1", 0), Handler)


def models(shared):
    out = []
    for d in sorted((shared / "onnx-models").iterdir()):
        if d.is_dir():
            out += [{"model": f} for f in sorted(d.glob("*.onnx"))]
    for name in IR_MODELS:
        xml = next((shared / "ir-models" / name).glob("*.xml"))
        out.append({"model": xml, "bin": xml.with_suffix(".bin")})
    return out


def native(cli, args, files):
    """The tool in a fresh directory holding links to the files, with out/ for what it writes."""
    with tempfile.TemporaryDirectory(prefix="reshape1-page-test-") as d:
        d = pathlib.Path(d)
        for f in files:
            (d / f.name).symlink_to(f)
        (d / "out").mkdir()
        r = subprocess.run([str(cli), *args], cwd=d, capture_output=True)
        written = {p.name: p.read_bytes() for p in (d / "out").iterdir()}
        return r.returncode, r.stdout.decode(), written


class Page:
    def __init__(self, url, downloads):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1280,800"):
            options.add_argument(a)
        # An IR's fix is two downloads (.xml and .bin): Chromium asks the user once whether the page may
        # download several files; the test's profile allows it.
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False,
                                                  "profile.default_content_setting_values.automatic_downloads": 1})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.downloads = downloads
        self.driver.get(url)
        self.wait_for(lambda d: d.find_element(By.ID, "status").text.startswith("Ready"), 60, "the module to load")

    def wait_for(self, condition, seconds, what):
        try:
            return WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(condition)
        except TimeoutException:
            error = self.driver.find_element(By.ID, "error").text
            raise AssertionError(f"timed out waiting for {what}" + (f" (the page says: {error})" if error else ""))

    def idle(self, what, seconds=120):
        self.wait_for(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "idle", seconds, what)

    def pick(self, *paths):
        """Picks files through the page's file input, as the file chooser does."""
        self.driver.execute_script("document.body.dataset.state = 'busy'")
        self.driver.find_element(By.ID, "files").send_keys("\n".join(str(p) for p in paths))
        self.idle(f"{paths[0].name} to load")

    def shown(self, element_id):
        return self.driver.find_element(By.ID, element_id).is_displayed()

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).get_attribute("textContent")

    def error(self):
        return self.text("error") if self.shown("error") else ""

    def keys(self, *keys):
        webdriver.ActionChains(self.driver).send_keys(*keys).perform()

    def ask_batch_by_keyboard(self, batch):
        """The batch typed into the field the page focuses after loading, submitted with Enter."""
        focused = self.driver.switch_to.active_element
        assert focused.get_attribute("id") == "target", f"after loading, the focus is on {focused.get_attribute('id')!r}"
        self.driver.execute_script("document.body.dataset.state = 'busy'")
        webdriver.ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
        self.keys(str(batch), Keys.ENTER)
        self.idle("the answer")

    def fix_by_keyboard(self, expected):
        """Tab from the field to "Fix and download", Enter; returns the files downloaded."""
        for f in self.downloads.iterdir():
            f.unlink()
        self.driver.execute_script("document.getElementById('target').focus()")
        self.keys(Keys.TAB)  # Check
        self.keys(Keys.TAB)  # Fix and download
        focused = self.driver.switch_to.active_element
        assert focused.get_attribute("id") == "fix", f"two tabs from the field reach {focused.get_attribute('id')!r}"
        self.driver.execute_script("document.body.dataset.state = 'busy'")
        self.keys(Keys.ENTER)
        self.idle("the fix")
        # Chromium writes a download under a temporary name (a hidden file, then NAME.crdownload) and renames it
        # when it is complete.
        def partial(f):
            return f.name.startswith(".") or f.name.endswith(".crdownload")
        deadline = time.time() + 30
        while time.time() < deadline:
            files = list(self.downloads.iterdir())
            if len([f for f in files if not partial(f)]) >= expected and not any(partial(f) for f in files):
                break
            time.sleep(0.05)
        return {f.name: f.read_bytes() for f in self.downloads.iterdir()}


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    site, cli, shared, shots = (pathlib.Path(a).resolve() for a in sys.argv[1:])
    if not cli.exists():
        print(f"page_test: the native tool {cli} is not built (the ci workflow builds it first)", file=sys.stderr)
        return 2
    shots.mkdir(parents=True, exist_ok=True)
    server = Site(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-page-"))
    downloads = work / "downloads"
    downloads.mkdir()
    failures = []
    page = None

    def check(what, fn):
        try:
            fn()
            print(f"ok   {what}", flush=True)
        except Exception as e:  # one failure does not stop the others
            failures.append(what)
            print(f"FAIL {what}\n     " + str(e).replace("\n", "\n     "), flush=True)

    try:
        page = Page(f"http://127.0.0.1:{server.server_address[1]}/index.html", downloads)
        server.watching = True  # from here on, nothing may be fetched

        for m in models(shared):
            files = [m["model"]] + ([m["bin"]] if "bin" in m else [])
            name = m["model"].name
            bin_args = ["--bin", m["bin"].name] if "bin" in m else []

            def loads():
                page.pick(*files)
                assert not page.error(), page.error()
                assert page.shown("tensors-box"), "every tensor's shape is shown"

            def answers():
                page.ask_batch_by_keyboard(4)
                assert not page.error(), page.error()
                code, out, _ = native(cli, ["check", name, "--batch", "4", *bin_args, "--dot",
                                            f"out/{m['model'].stem}.dot", "--json"], files)
                got = page.text("answer-json")
                assert got == out, first_difference(got, out)

            def fixes():
                code, out, written = native(cli, ["fix", name, "--check-batch", "4", *bin_args, "-o",
                                                  f"out/{m['model'].stem}.fixed{m['model'].suffix}", "--json"], files)
                got = page.fix_by_keyboard(len(written))
                assert not page.error(), page.error()
                assert sorted(got) == sorted(written), f"downloaded {sorted(got)}, the tool wrote {sorted(written)}"
                for f in written:
                    assert got[f] == written[f], f"{f}: not the tool's bytes"

            check(f"{name}: picked, every tensor shown", loads)
            check(f"{name}: batch 4 typed, the tool's JSON", answers)
            check(f"{name}: fix downloaded, the tool's bytes", fixes)

        # The last model's answer, from the question down.
        for width, height, name in ((1280, 800, "page-1280x800.png"), (390, 844, "page-390.png")):
            page.driver.set_window_size(width, height)
            page.driver.execute_script("document.getElementById('ask').scrollIntoView()")
            page.driver.save_screenshot(str(shots / name))
        page.driver.set_window_size(1280, 800)

        onnx = models(shared)[0]["model"]

        def refuses(path, pattern):
            page.pick(path)
            assert pattern in page.error(), f"the page says {page.error()!r}"

        broken = work / "broken.onnx"
        broken.write_bytes(onnx.read_bytes()[:1000])
        check("a malformed file: the tool's message", lambda: refuses(broken, "broken.onnx: "))
        empty = work / "empty.onnx"
        empty.write_bytes(b"")
        check("a 0-byte file: the tool's message", lambda: refuses(empty, "empty.onnx"))
        xml_only = work / pathlib.Path(IR_MODELS[0]).name
        xml_only.mkdir()
        xml = next((shared / "ir-models" / IR_MODELS[0]).glob("*.xml"))
        shutil.copy(xml, xml_only / xml.name)
        check("an IR without its .bin: the tool asks for it", lambda: refuses(xml_only / xml.name, ".bin"))
        big = work / "big.onnx"
        with open(big, "wb") as f:
            f.truncate(MAX_BYTES + 1)  # sparse: no disk is used
        check("a file over the limit: the page's message", lambda: refuses(big, "1 GiB"))

        def again():
            page.pick(onnx)
            assert not page.error(), page.error()
            page.ask_batch_by_keyboard(4)
            assert page.text("verdict"), "an answer"
        check("the page answers again after every refusal", again)
        check("no request after the page loaded", lambda: assert_no_requests(server))

        def times_out():
            server.watching = False
            page.driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html?time-limit=0.001")
            page.wait_for(lambda d: d.find_element(By.ID, "status").text.startswith("Ready"), 60, "the module to load")
            page.pick(onnx)
            assert "stopped after 0.001 s, this page's time limit" in page.error(), f"the page says {page.error()!r}"
        check("a command over the time limit: stopped, with the page's message", times_out)
    finally:
        if page is not None:
            page.driver.quit()
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    print("all passed" if not failures else f"{len(failures)} failed")
    return 0 if not failures else 1


def assert_no_requests(server):
    assert not server.requests, f"requests after load: {server.requests}"


def first_difference(a, b):
    x, y = a.split("\n"), b.split("\n")
    i = 0
    while i < len(x) and i < len(y) and x[i] == y[i]:
        i += 1
    return (f"differ at line {i + 1}:\n  page:   {x[i] if i < len(x) else '(end)'}\n"
            f"  native: {y[i] if i < len(y) else '(end)'}")


if __name__ == "__main__":
    sys.exit(main())

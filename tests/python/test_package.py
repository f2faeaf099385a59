"""The package: version, documentation, and no leak over 10^5 calls."""
from __future__ import annotations

import gc
import pathlib
import pydoc
import re
import resource
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import reshape1

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def test_the_version_is_the_cmake_project_version() -> None:
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*reshape1\s+VERSION\s+([0-9.]+)", text)
    assert match and reshape1.__version__ == match.group(1)


def test_every_public_name_is_documented() -> None:
    for name in reshape1.__all__:
        obj = getattr(reshape1, name)
        if name == "__version__":
            continue
        assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
    for cls in (reshape1.Shape, reshape1.Dim, reshape1.Result):
        for attr, value in vars(cls).items():
            if not attr.startswith("_"):
                assert value.__doc__, f"{cls.__name__}.{attr}"


def test_help_is_readable() -> None:
    text = pydoc.render_doc(reshape1, renderer=pydoc.plaintext)
    for needle in ("Reshape-1", "infer(", "reshape(", "reshape_raw(", "class Error", "class Shape", "special_zero",
                   "copy=False"):
        assert needle in text, needle
    assert "_core" not in text.split("FUNCTIONS")[0].split("DESCRIPTION")[0]


def test_the_module_docstring_example_runs() -> None:
    assert str(reshape1.infer((2, 5, 5, 24), (0, -1, 4), True).shape) == "[2,150,4]"
    r = reshape1.infer("[?@A,?@B,768]", "[?@A,?@C,12,64]", False)
    assert (str(r.shape), r.symbol_equalities) == ("[?@A,?@C,12,64]", [("B", "C")])


def rss_kib() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def calls(n: int, a: np.ndarray) -> None:  # type: ignore[type-arg]
    for i in range(n):
        reshape1.infer((2, 3, 4), (6, -1), False)
        reshape1.infer("[?@A,?@B,768]", [0, 0, 12, 64], True).shape.dims
        reshape1.reshape(a, (4, -1), False)
        reshape1.reshape(a[:, ::2], (-1,), False, copy=True)
        if i % 10 == 0:
            try:
                reshape1.infer((2, 3), (4, -1), False)
            except reshape1.Error:
                pass


def test_no_leak_over_100000_calls() -> None:
    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    calls(2000, a)  # warm up caches and allocator pools
    gc.collect()
    tracemalloc.start()
    before_rss = rss_kib()
    snapshot = tracemalloc.take_snapshot()
    calls(100_000, a)
    gc.collect()
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(snapshot, "filename"))
    tracemalloc.stop()
    after_rss = rss_kib()
    # A leak of one small object per call would be megabytes; allow some noise.
    assert grown < 64 * 1024, grown
    assert after_rss - before_rss < 8 * 1024, (before_rss, after_rss)


def test_the_readme_example_prints_what_the_readme_says(capsys: pytest.CaptureFixture[str]) -> None:
    text = (SOURCE / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python\n", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    expected = section.split("prints\n\n```\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == expected


def test_threads_may_make_their_first_calls_at_once(data_dir: pathlib.Path) -> None:
    # pybind11 imports numpy when its array API is first used: two threads first using it at once, one
    # waited for the other's import while holding the GIL that import needed. A fresh interpreter, where
    # numpy is not imported before reshape1, shows it; the module now makes that API when imported.
    model = data_dir / "ir-models" / "face-detection-0200" / "face-detection-0200.xml"
    code = (
        "import sys, threading, reshape1\n"
        "def call():\n"
        "    try:\n"
        "        reshape1.check_batch(sys.argv[1], shapes={'nope': [2, 3, 300, 300]})\n"
        "    except reshape1.Error:\n"
        "        pass\n"
        "threads = [threading.Thread(target=call) for _ in range(8)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print('done')\n"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code, str(model)], capture_output=True, text=True, timeout=60,
                             check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("eight threads calling at once did not finish in 60 s")
    assert (out.returncode, out.stdout.strip()) == (0, "done"), out.stderr

#!/usr/bin/env python3
"""Speed of the Python package, measured in one run: absolute times and the ratios the issue targets.

    PYTHONPATH=build/ci/python /usr/bin/python3 bench/python_bench.py

- reshape1.reshape(a, pattern, False) on a small C-contiguous array vs numpy's a.reshape(shape)
  (target: at most 3x);
- reshape1.infer on a static shape vs reshape1._core._noop, a pybind11 function that takes the
  same arguments and does nothing (target: at most 2x).
Each figure is the best of several repeats (the least disturbed by other processes).
"""
from __future__ import annotations

import sys
import timeit

import numpy as np

import reshape1
from reshape1 import _core

NUMBER = 200_000
REPEAT = 7


def best_ns(stmt: str, env: dict[str, object]) -> float:
    return min(timeit.repeat(stmt, globals=env, number=NUMBER, repeat=REPEAT)) / NUMBER * 1e9


def main() -> int:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    env: dict[str, object] = {"a": a, "r": reshape1, "noop": _core._noop, "np": np}
    rows = [
        ("a.reshape((6, 4))  [numpy]", best_ns("a.reshape((6, 4))", env)),
        ("reshape1.reshape(a, (6, -1), False)", best_ns("r.reshape(a, (6, -1), False)", env)),
        ("_noop((2, 3, 4), (6, -1), False)  [pybind11]", best_ns("noop((2, 3, 4), (6, -1), False)", env)),
        ("reshape1.infer((2, 3, 4), (6, -1), False)", best_ns("r.infer((2, 3, 4), (6, -1), False)", env)),
        ("reshape1.infer((2,3,4), (6,-1), False).shape", best_ns("r.infer((2, 3, 4), (6, -1), False).shape", env)),
        ("reshape1.infer('[?@A,4]', '[0,-1]', True)", best_ns("r.infer('[?@A,4]', '[0,-1]', True)", env)),
    ]
    print(f"reshape1 {reshape1.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}")
    for name, ns in rows:
        print(f"  {name:<48} {ns:8.1f} ns")
    reshape_ratio = rows[1][1] / rows[0][1]
    infer_ratio = rows[3][1] / rows[2][1]
    print(f"reshape1.reshape / numpy reshape: {reshape_ratio:.2f}x (target <= 3x)")
    print(f"reshape1.infer / pybind11 no-op:  {infer_ratio:.2f}x (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""reshape1.reshape on numpy arrays: agreement with numpy, shared memory, lifetime, copies, GIL, raw bytes."""
from __future__ import annotations

import gc
import sys
import threading
import time
import weakref
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reshape1

DTYPES = [np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex128, np.bool_, object,
          np.dtype([("a", np.int16), ("b", np.float64, (2,))])]


@st.composite
def array_and_pattern(draw: Any) -> tuple[np.ndarray[Any, Any], list[int]]:
    """A C-contiguous array of 1..1000 elements and a pattern without 0 that fits its count."""
    dims = draw(st.lists(st.integers(1, 6), min_size=0, max_size=5))
    count = int(np.prod(dims)) if dims else 1
    dtype = draw(st.sampled_from(DTYPES))
    a = np.arange(count).astype(dtype).reshape(dims)
    # factor the count into a random output shape, then maybe replace one dimension by -1
    out, rest = [], count
    while rest > 1 and len(out) < 5:
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors))
        out.append(d)
        rest //= d
    if rest > 1:
        out.append(rest)
    out += [1] * draw(st.integers(0, 2))
    draw(st.randoms()).shuffle(out)
    if out and draw(st.booleans()):
        out[draw(st.integers(0, len(out) - 1))] = -1
    return a, out


@settings(max_examples=300, deadline=None)
@given(array_and_pattern(), st.booleans())
def test_reshape_agrees_with_numpy_and_shares_memory(case: tuple[np.ndarray[Any, Any], list[int]], sz: bool) -> None:
    a, pattern = case
    expected = a.reshape(pattern)
    got = reshape1.reshape(a, pattern, sz)
    assert got.shape == expected.shape and got.dtype == a.dtype
    assert np.array_equal(got, expected) if a.dtype != object else got.tolist() == expected.tolist()
    assert got.base is not None and np.shares_memory(got, a)


def test_special_zero_and_the_notation() -> None:
    a = np.zeros((2, 5, 5, 24), dtype=np.float16)
    assert reshape1.reshape(a, [0, -1, 4], True).shape == (2, 150, 4)
    assert reshape1.reshape(a, "[0,-1,4]", True).shape == (2, 150, 4)
    assert reshape1.reshape(a, np.array([0, -1, 4], dtype=np.int32), True).shape == (2, 150, 4)


def test_the_empty_rules() -> None:
    a = np.zeros((0, 3))
    assert reshape1.reshape(a, [0, -1], False).shape == (0, 1)
    assert reshape1.reshape(a, [0, -1], False, empty_rule="tensorflow").shape == (0, 3)
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape(a, [0, -1], False, empty_rule="strict")
    assert e.value.code == "infer_zero"


def test_the_view_keeps_the_array_alive() -> None:
    for dtype in (np.int64, object):
        a = np.arange(1000).astype(dtype)
        alive = weakref.ref(a)
        view = reshape1.reshape(a, [10, -1], False)
        del a
        gc.collect()
        assert alive() is not None  # the view holds its base
        assert view.sum() == sum(range(1000)) and view[9, 99] == 999
        del view
        gc.collect()
        assert alive() is None  # and releases it: no reference leaked


def test_a_view_of_a_view_keeps_the_first_array_alive() -> None:
    a = np.arange(24, dtype=np.float32)
    alive = weakref.ref(a)
    v = reshape1.reshape(reshape1.reshape(a, [4, 6], False), [2, 0, -1], True)  # 0 copies the 6
    del a
    gc.collect()
    assert alive() is not None and v.shape == (2, 6, 2) and v[1, 5, 1] == 23


def test_non_contiguous_arrays_do_what_numpy_does() -> None:
    base = np.arange(48).reshape(6, 8)
    strided = base[:, :4]  # rows of 4 out of 8: a copy is needed to flatten
    got = reshape1.reshape(strided, [-1], False)
    assert np.array_equal(got, strided.reshape(-1)) and not np.shares_memory(got, base)
    rows = base[::2]  # rows of 8 stay contiguous: (3, 8) -> (3, 2, 4) is a view
    got = reshape1.reshape(rows, [3, 2, 4], False)
    assert np.array_equal(got, rows.reshape(3, 2, 4)) and np.shares_memory(got, base)
    fortran = np.asfortranarray(base)
    assert np.array_equal(reshape1.reshape(fortran, [4, 12], False), fortran.reshape(4, 12))


def test_copy_false_refuses_to_copy_and_copy_true_always_copies() -> None:
    base = np.arange(48).reshape(6, 8)
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape(base[:, :4], [-1], False, copy=False)
    assert e.value.code == "invalid_argument" and "copy=False" in e.value.message
    view = reshape1.reshape(base[::2], [3, 2, 4], False, copy=False)
    assert np.shares_memory(view, base)
    assert np.shares_memory(reshape1.reshape(base, [8, 6], False, copy=False), base)
    for a in (base, base[:, :4], base[:, ::2], base.astype(object)):
        c = reshape1.reshape(a, [-1], False, copy=True)
        assert not np.shares_memory(c, base) and c.flags.c_contiguous and c.flags.writeable
        assert c.tolist() == a.reshape(-1).tolist()


def test_errors_come_from_the_library() -> None:
    a = np.zeros((2, 3))
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape(a, [4, -1], False)
    assert e.value.code == "not_divisible" and e.value.indices == (1,)
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape(a, "[?,2]", False)
    assert e.value.code == "invalid_argument"
    with pytest.raises(TypeError):
        reshape1.reshape([1, 2], [2], False)  # type: ignore[arg-type]


def test_the_gil_is_released_while_a_large_array_is_copied() -> None:
    # 15 MiB: below the library's threshold for parallel copies, so the copy takes one core and this
    # thread can run on another. Each copy is timed; this thread records when it runs meanwhile.
    a = np.ones(15 << 20, dtype=np.uint8)
    copies: list[tuple[float, float]] = []
    ticks: list[float] = []
    busy = threading.Event()
    done = threading.Event()

    def copier() -> None:
        for _ in range(21):
            start = time.perf_counter()
            busy.set()
            reshape1.reshape(a, [-1, 1024], False, copy=True)
            busy.clear()
            copies.append((start, time.perf_counter()))
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.0001)
    try:
        t = threading.Thread(target=copier)
        t.start()
        while not done.is_set():
            if busy.is_set():
                ticks.append(time.perf_counter())
        t.join()
    finally:
        sys.setswitchinterval(old)
    # The longest stretch of each copy in which this thread did not run, relative to the copy. Holding
    # the GIL during a copy makes it close to 1 for every copy (this thread can run only before the
    # copy starts and after it ends, one 0.1 ms switch interval each). On a busy machine this thread
    # often gets no core during a copy at all, so a few copies with a short stretch are the evidence.
    ratios = []
    for s, e in copies:
        points = [s] + [x for x in ticks if s < x < e] + [e]
        ratios.append(max(b - a for a, b in zip(points, points[1:])) / (e - s))
    assert sum(r < 0.5 for r in ratios) >= 3, " ".join(f"{r:.2f}" for r in sorted(ratios))


def test_raw_bytes_of_types_numpy_lacks() -> None:
    data = bytearray(range(48))  # bf16 [4,6]: 48 bytes
    r = reshape1.reshape_raw(data, "bf16", (4, 6), [0, -1, 3], True)
    assert r.shape == (4, 2, 3) and r.element_type == "bf16" and r.data.nbytes == 48
    data[0] = 200
    assert r.data[0] == 200  # the same memory
    assert reshape1.reshape_raw(bytes(12), "i4", (4, 6), [-1], False).shape == (24,)
    assert reshape1.reshape_raw(bytes(3), "u3", (8,), [2, 4], False).shape == (2, 4)
    assert reshape1.reshape_raw(np.zeros(1, np.uint8), "u1", (2, 4), [8], False).shape == (8,)
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape_raw(bytes(47), "bf16", (4, 6), [-1], False)
    assert e.value.code == "invalid_argument" and "48" in e.value.message
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape_raw(bytes(48), "bf17", (4, 6), [-1], False)
    assert e.value.code == "unknown_element_type"
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape_raw(bytes(48), "bf16", (4, 6), [5, -1], False)
    assert e.value.code == "not_divisible"

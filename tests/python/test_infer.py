"""reshape1.infer: every conformance vector, the input forms, Shape and Result."""
from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import reshape1


def load(data_dir: pathlib.Path, name: str) -> list[dict[str, Any]]:
    with open(data_dir / "conformance" / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def runs(case: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = [({}, case["expect"])]
    for v in case.get("variants", []):
        out.append((v["options"], v["expect"]))
    return out


def answer(f: Any) -> tuple[str, list[tuple[str, str]]]:
    try:
        r = f()
    except reshape1.Error as e:
        return "error:" + e.code, []
    return str(r.shape), r.symbol_equalities


def want(expect: dict[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    if "error" in expect:
        return "error:" + expect["error"], []
    return expect["shape_text"], [tuple(p) for p in expect.get("symbol_equalities", [])]  # type: ignore[misc]


def structured_pattern(case: dict[str, Any]) -> Any:
    """The pattern as Python integers when the structured form has them; None otherwise."""
    p = case["pattern"]
    if "values" in p and "pattern_symbols" not in p and "pattern_shape" not in p:
        return list(p["values"])
    if "scalar" in p:
        return int(p["scalar"])
    return None


def structured_input(case: dict[str, Any]) -> Any:
    """The input as a list of integers (-1 for ?) or dimension strings; the text for [...]."""
    i = case["input"]
    if isinstance(i, str):
        return i
    dims: list[Any] = []
    for d in i:
        if isinstance(d, int):
            dims.append(d)
        else:
            text = f"{d['min']}..{'' if d['max'] is None else d['max']}"
            if d["max"] == d["min"]:
                text = str(d["min"])
            if d.get("symbol"):
                text += "@" + d["symbol"]
            dims.append(text)
    return dims


@pytest.mark.parametrize("name", ["cases.jsonl", "random.jsonl"])
def test_every_conformance_vector_through_the_text_form(data_dir: pathlib.Path, name: str) -> None:
    cases = load(data_dir, name)
    assert len(cases) > 20
    failures, count = [], 0
    for c in cases:
        if c["pattern_text"] is None:
            continue
        for options, expect in runs(c):
            count += 1
            got = answer(lambda: reshape1.infer(c["input_text"], c["pattern_text"], c["special_zero"],
                                                pattern_type=c.get("pattern_element_type", "i64"), **options))
            if got != want(expect):
                failures.append(f"{c['id']}: got {got}, want {want(expect)}")
    assert not failures, "\n".join(failures[:20])
    assert count >= len(cases) - 5


@pytest.mark.parametrize("name", ["cases.jsonl", "random.jsonl"])
def test_every_conformance_vector_with_integer_values_through_sequences(data_dir: pathlib.Path, name: str) -> None:
    failures, count = [], 0
    for c in load(data_dir, name):
        pattern = structured_pattern(c)
        if pattern is None:
            continue
        inputs = [structured_input(c)]
        if isinstance(inputs[0], list) and all(isinstance(d, int) for d in inputs[0]):
            inputs += [tuple(inputs[0]), np.array(inputs[0], dtype=np.int64)]
        for inp in inputs:
            for options, expect in runs(c):
                count += 1
                got = answer(lambda: reshape1.infer(inp, pattern, c["special_zero"],
                                                    pattern_type=c.get("pattern_element_type", "i64"), **options))
                if got != want(expect):
                    failures.append(f"{c['id']} ({type(inp).__name__}): got {got}, want {want(expect)}")
    assert not failures, "\n".join(failures[:20])
    assert count > 100


def test_the_shape_of_a_static_result() -> None:
    s = reshape1.infer((2, 5, 5, 24), (0, -1, 4), True).shape
    assert str(s) == "[2,150,4]" and repr(s) == "Shape('[2,150,4]')"
    assert s.rank == 3 and s.is_static and tuple(s) == (2, 150, 4) and s == (2, 150, 4)
    assert [(d.min, d.max, d.symbol) for d in s.dims] == [(2, 2, None), (150, 150, None), (4, 4, None)]


def test_the_shape_of_a_partial_result_and_its_symbols() -> None:
    r = reshape1.infer("[?@A,?@B,768]", "[?@A,?@C,12,64]", False)
    assert str(r.shape) == "[?@A,?@C,12,64]" and r.symbol_equalities == [("B", "C")]
    assert not r.shape.is_static and r.shape.rank == 4
    d = r.shape.dims[0]
    assert (d.min, d.max, d.symbol, d.is_static, str(d)) == (0, None, "A", False, "?@A")
    with pytest.raises(reshape1.Error) as e:
        tuple(r.shape)
    assert e.value.code == "invalid_argument" and "not static" in e.value.message


def test_results_come_only_from_infer() -> None:
    r = reshape1.infer((2, 3), (6,), False)
    assert isinstance(r, reshape1.Result) and type(r).__module__ == "reshape1"
    assert repr(r) == "Result(shape='[6]', symbol_equalities=[])"
    with pytest.raises(TypeError):
        type(r)()
    with pytest.raises(AttributeError):
        r.shape = reshape1.Shape("[1]")  # type: ignore[misc]


def test_an_unknown_rank() -> None:
    s = reshape1.infer("[...]", "[?,?]", False).shape
    assert s.rank == 2 and str(s) == "[?,?]"
    s = reshape1.infer("[2,3]", "[...]", False).shape
    assert s.rank is None and s.dims == () and str(s) == "[...]"


def test_input_forms_agree() -> None:
    forms = ["[2,?,1..10]", [2, -1, "1..10"], (2, -1, "1..10")]
    answers = {str(reshape1.infer(f, [0, -1], True).shape) for f in forms}
    assert answers == {"[2,?]"}
    pattern_forms: list[Any] = ["[6,-1]", [6, -1], (6, -1), np.array([6, -1], dtype=np.int32),
                                np.array([6, -1], dtype=np.int8), [np.int64(6), np.int16(-1)]]
    for p in pattern_forms:
        assert reshape1.infer((2, 3, 4), p, False).shape == (6, 4)


def test_pattern_type_options_and_scalar_patterns() -> None:
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((2, 3), (6,), False, pattern_type="f32")
    assert e.value.code == "pattern_type"
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((2, 3), (300,), False, pattern_type="u8")
    assert e.value.code == "value_range"
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((1,), 1, False)
    assert e.value.code == "scalar_pattern"
    assert str(reshape1.infer((1,), 1, False, legacy_scalar_pattern=True).shape) == "[]"
    assert str(reshape1.infer((0, 3), (0, -1), False).shape) == "[0,1]"
    assert str(reshape1.infer((0, 3), (0, -1), False, empty_rule="tensorflow").shape) == "[0,3]"
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((0, 3), (0, -1), False, empty_rule="strict")
    assert e.value.code == "infer_zero"
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((1,), (1,), False, empty_rule="numpy")  # type: ignore[arg-type]
    assert e.value.code == "invalid_argument"
    # The whole message: the hint once (it was repeated, `what; hint; hint`).
    assert str(e.value) == ("empty_rule: unknown rule 'numpy'; use \"openvino\", \"tensorflow\" or \"strict\"")
    assert e.value.hint == 'use "openvino", "tensorflow" or "strict"'


def test_a_u64_pattern_value_above_int64_is_reported_by_the_library() -> None:
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((2,), [2**63 + 5], False, pattern_type="u64")
    assert e.value.code == "invalid_value" and e.value.indices == (0,)
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((2,), [2**64], False)
    assert e.value.code == "invalid_argument"


def test_a_2d_numpy_pattern_is_a_pattern_rank_error() -> None:
    with pytest.raises(reshape1.Error) as e:
        reshape1.infer((6,), np.array([[2], [3]]), False)
    assert e.value.code == "pattern_rank"


def test_wrong_python_types_are_type_errors() -> None:
    with pytest.raises(TypeError):
        reshape1.infer((2.5, 3), (6,), False)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        reshape1.infer((2, 3), 6.0, False)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        reshape1.infer(None, (6,), False)  # type: ignore[arg-type]


def test_shape_objects() -> None:
    assert reshape1.Shape("[2,3]") == reshape1.Shape((2, 3)) == (2, 3)
    assert reshape1.Shape("[2,?@A]") != reshape1.Shape("[2,?@B]")
    assert len({reshape1.Shape("[2,3]"), reshape1.Shape([2, 3])}) == 1
    with pytest.raises(reshape1.Error) as e:
        reshape1.Shape("[2,")
    assert e.value.code == "syntax"


@pytest.mark.parametrize(
    "wrong",
    [b"[2,3]", bytearray(b"\x02\x03"), {2, 3}, {2: 3}, (d for d in (2, 3))],
    ids=["bytes", "bytearray", "set", "dict", "generator"],
)
def test_a_shape_of_the_wrong_type_is_a_type_error(wrong: Any) -> None:
    # bytes were read as their byte values (b"[2,3]" gave [949548600]); a set or dict has no order.
    with pytest.raises(TypeError, match="expected a str, tuple, list or numpy integer array"):
        reshape1.infer(wrong, (-1,), False)
    with pytest.raises(TypeError, match="expected a str, tuple, list or numpy integer array"):
        reshape1.infer((2, 3), wrong, False)


def test_special_zero_none_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        reshape1.infer((2, 3), (-1,), None)  # type: ignore[arg-type]
    # An ordered collection that is not a list or tuple still works: a Shape, a range.
    shape = reshape1.infer((2, 3), (-1,), False).shape
    assert str(reshape1.infer(shape, (-1,), False).shape) == "[6]"
    assert str(reshape1.infer(range(2, 4), (-1,), False).shape) == "[6]"

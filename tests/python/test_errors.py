"""reshape1.Error: every error code the Python API can raise, with the library's message.

Where the command-line tool can express the same call, its --json answer (the C++ library's code,
message and indices) must match: a text that does not parse is named by its argument in both, spelled
as each spells it (`INPUT '[2,]': ...` on the command line, `input '[2,]': ...` in Python).
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
from typing import Any, Optional

import numpy as np
import pytest

import reshape1

# code -> (input, pattern, special_zero, keyword options, command-line form or None)
CASES: dict[str, tuple[Any, Any, bool, dict[str, Any], Optional[list[str]]]] = {
    "pattern_type": ("[2,3]", "[6]", False, {"pattern_type": "f32"}, ["--pattern-type", "f32"]),
    "pattern_rank": ((6,), np.array([[2], [3]]), False, {}, None),
    "invalid_value": ("[2,3]", "[-2,3]", False, {}, []),
    "multiple_infer": ("[2,3]", [-1, -1], False, {}, []),
    "copy_out_of_range": ("[2]", [0, 0], True, {}, []),
    "overflow": ("[1]", [7, 7905747460161236407], True, {}, []),
    "infer_zero": ((0, 3), [0, -1], False, {"empty_rule": "strict"}, ["--empty-rule", "strict"]),
    "not_divisible": ("[2,3]", "[4,-1]", False, {}, []),
    "count_mismatch": ((2, 3), (4,), False, {}, []),
    "scalar_pattern": ("[1]", 1, False, {}, []),
    "syntax": ("[2,]", "[6]", False, {}, []),
    "unknown_element_type": ("[1]", "[1]", False, {"pattern_type": "x9"}, None),
    "value_range": ("[2,3]", "[300]", False, {"pattern_type": "u8"}, ["--pattern-type", "u8"]),
    "invalid_shape": ("[3..2]", "[6]", False, {}, []),
    "invalid_argument": ((2, 3), (6,), False, {"empty_rule": "numpy"}, None),
    "too_large": ((1,), [1] * ((1 << 20) + 1), False, {}, None),
}

NOT_FROM_PYTHON = {"buffer_too_small", "io", "bad_file", "unsupported"}  # the file and tensor layer


def as_text(x: Any) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return str(x)
    return "[" + ",".join(str(v) for v in x) + "]"


def test_the_table_covers_every_code_the_api_can_raise() -> None:
    assert set(CASES) | NOT_FROM_PYTHON == set(reshape1.error_codes())


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_code_is_raised_with_the_library_message(code: str) -> None:
    input, pattern, sz, options, cli = CASES[code]
    with pytest.raises(reshape1.Error) as info:
        reshape1.infer(input, pattern, sz, **options)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.code == code and str(e) == e.message and e.message
    if e.hint:
        assert e.message.endswith("; " + e.hint)
    assert list(e.indices) == sorted(e.indices)
    if cli is None:
        return
    tool = os.environ.get("RESHAPE1_CLI")
    if not tool:
        pytest.skip("RESHAPE1_CLI is not set (ctest sets it when the tool is built)")
    args = [tool, "infer", "--json", "--special-zero", str(sz).lower(), *cli, "--", as_text(input), as_text(pattern)]
    out = json.loads(subprocess.run(args, capture_output=True, text=True, check=False).stdout)["error"]
    assert out["code"] == e.code
    cli_spelled = e.message.replace("input '", "INPUT '", 1).replace("pattern '", "PATTERN '", 1)
    assert out["message"] == cli_spelled, (out["message"], e.message)
    assert tuple(out["indices"]) == e.indices


def test_the_same_codes_from_reshape() -> None:
    with pytest.raises(reshape1.Error) as e:
        reshape1.reshape(np.zeros(6), [-1, -1], False)
    assert e.value.code == "multiple_infer" and e.value.indices == (0, 1)


def test_errors_pickle_and_print() -> None:
    try:
        reshape1.infer((2, 3), (4,), False)
    except reshape1.Error as e:
        copy = pickle.loads(pickle.dumps(e))
        assert (copy.code, copy.message, copy.indices, copy.hint) == (e.code, e.message, e.indices, e.hint)
        assert repr(e).startswith("reshape1.Error('count_mismatch', ")
    else:
        pytest.fail("no error")


def test_errors_can_be_made_by_callers() -> None:
    e = reshape1.Error("syntax", "input: bad", [2])
    assert e.indices == (2,) and e.hint == "" and str(e) == "input: bad"


@pytest.mark.parametrize(
    "call",
    [
        lambda p: reshape1.check(p + "\x00.xml"),
        lambda p: reshape1.check_batch(p + "\x00", batch=2),
        lambda p: reshape1.fix(p, output=p + "\x00.onnx"),
        lambda p: reshape1.check(p, model_bin=p + "\x00"),
        lambda p: reshape1.check(b"", base_dir=p + "\x00"),
    ],
)
def test_a_path_holding_a_nul_is_refused_not_cut(call: Any, tmp_path: Any) -> None:
    # The system reads a name up to its NUL: the file before it must not be read or written instead.
    model = tmp_path / "m.onnx"
    model.write_bytes(b"\x08\x08")
    with pytest.raises(reshape1.Error) as info:
        call(str(model))
    assert info.value.code == "invalid_argument"
    assert "holds a NUL byte, which no file name can" in str(info.value)
    assert model.read_bytes() == b"\x08\x08"


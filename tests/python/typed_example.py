"""A small program that uses reshape1 through its type stub; `mypy --strict` must accept it."""
from __future__ import annotations

import numpy as np
import numpy.typing as npt

import reshape1


def output_shape(shape: tuple[int, ...], pattern: list[int]) -> tuple[int, ...]:
    result: reshape1.Result = reshape1.infer(shape, pattern, True)
    return tuple(result.shape)


def describe(notation: str) -> list[str]:
    shape = reshape1.infer(notation, "[0,-1]", True, empty_rule="tensorflow").shape
    out = [f"rank {shape.rank}" if shape.rank is not None else "unknown rank"]
    for d in shape.dims:
        upper: int | None = d.max
        out.append(f"{d.min}..{upper if upper is not None else ''}{'@' + d.symbol if d.symbol else ''}")
    return out


def flat(a: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    try:
        return reshape1.reshape(a, [-1], False, copy=False)
    except reshape1.Error as e:
        code: str = e.code
        indices: tuple[int, ...] = e.indices
        raise RuntimeError(f"{code} at {indices}: {e.hint}") from e


raw: reshape1.RawTensor = reshape1.reshape_raw(bytes(48), "bf16", (4, 6), [0, -1, 3], True)
version: str = reshape1.__version__
print(output_shape((2, 3, 4), [0, -1]), describe("[?@A,4]"), flat(np.zeros((2, 2), np.float32)).shape, raw.shape, version)


def batch_sources(model: str) -> list[int | None]:
    report: reshape1.BatchReport = reshape1.check_batch(model, batch=8, layouts={"data": "NCHW"})
    return [f.source.id if f.source else None for f in report.findings if f.finding == "swallows_batch"]


def fixed_layers(model: str, out: str) -> list[int]:
    report: reshape1.FixReport = reshape1.fix(model, out, check_batches=[1, 2, "?"], layouts={"data": "NCHW"})
    return [c.id for c in report.changes if report.fixed]

"""reshape1: OpenVINO's Reshape-1 operation, complete and exact, from Python.

Shape inference on partial shapes (intervals, symbols, unknown ranks, pattern bounds) and the data
path for numpy arrays, both computed by reshape1's C++ library:

    >>> import reshape1
    >>> str(reshape1.infer((2, 5, 5, 24), (0, -1, 4), True).shape)
    '[2,150,4]'
    >>> r = reshape1.infer("[?@A,?@B,768]", "[?@A,?@C,12,64]", False)
    >>> str(r.shape), r.symbol_equalities
    ('[?@A,?@C,12,64]', [('B', 'C')])

Shapes and patterns are given as tuples, lists, numpy integer arrays, or strings in reshape1's
notation (docs/semantics.md). Every failure raises reshape1.Error, a ValueError with a stable
`.code` (the same names as the C++ library and the command-line tool).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence, Tuple, Union

from . import _core
from ._core import Dim, Result, Shape, element_types, infer, reshape

__version__: str = _core.__version__

__all__ = [
    "Dim",
    "Error",
    "RawTensor",
    "Result",
    "Shape",
    "__version__",
    "element_types",
    "error_codes",
    "infer",
    "reshape",
    "reshape_raw",
]


class Error(ValueError):
    """A reshape1 failure.

    Attributes:
        code: the stable code name, e.g. "multiple_infer" (see error_codes()).
        message: the whole message, `where: what; hint`, as the C++ library writes it (also str()).
        indices: the pattern indices involved, ascending (may be empty).
        hint: what to do about it ("" when there is nothing to add).
    """

    def __init__(self, code: str, message: str, indices: Sequence[int] = (), hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.indices = tuple(indices)
        self.hint = hint

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.message, self.indices, self.hint))

    def __repr__(self) -> str:
        return f"reshape1.Error({self.code!r}, {self.message!r}, {self.indices!r})"


_core._set_error_class(Error)
for _cls in (Dim, Result, Shape):
    _cls.__module__ = __name__


def error_codes() -> list[str]:
    """Every stable error code name, in the order the C++ library declares them."""
    return list(_core._error_codes())


PatternLike = Union[str, int, Sequence[int], Any]


class RawTensor(NamedTuple):
    """Raw tensor bytes under a shape: the result of reshape_raw.

    data shares memory with the buffer given to reshape_raw (and keeps it alive).
    """

    data: memoryview
    element_type: str
    shape: Tuple[int, ...]


def reshape_raw(
    data: Any,
    element_type: str,
    shape: Sequence[int],
    pattern: PatternLike,
    special_zero: bool,
    *,
    empty_rule: str = "openvino",
) -> RawTensor:
    """Reshape packed tensor bytes of any OpenVINO element type, including those numpy lacks.

    Args:
        data: a C-contiguous buffer (bytes, bytearray, memoryview, numpy array) holding exactly the
            packed bytes of a tensor of `element_type` and `shape` (e.g. bf16: 2 bytes per element,
            i4 and u4: two per byte, u3/u6 in 3-byte groups).
        element_type: the IR name, e.g. "bf16", "f8e4m3", "i4", "u1" (see element_types()).
        shape: the tensor's static shape.
        pattern, special_zero, empty_rule: as for reshape().

    Returns:
        RawTensor(data=memoryview of the same bytes, element_type, shape=the output shape).
    """
    out = _core._reshape_raw_shape(data, element_type, shape, pattern, special_zero, empty_rule)
    view = memoryview(data)
    return RawTensor(view if view.format == "B" and view.ndim == 1 else view.cast("B"), element_type, out)


# Type stub of the reshape1 package (the C++ extension _core and the pure-Python __init__.py).
import os
from typing import Any, Iterator, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

__version__: str

EmptyRule = Literal["openvino", "tensorflow", "strict"]
ShapeLike = Union[str, Sequence[Union[int, str]], npt.NDArray[np.integer[Any]]]
PatternLike = Union[str, int, Sequence[int], npt.NDArray[np.integer[Any]]]

class Error(ValueError):
    code: str
    message: str
    indices: Tuple[int, ...]
    hint: str
    def __init__(self, code: str, message: str, indices: Sequence[int] = ..., hint: str = ...) -> None: ...

class Dim:
    @property
    def min(self) -> int: ...
    @property
    def max(self) -> Optional[int]: ...
    @property
    def symbol(self) -> Optional[str]: ...
    @property
    def is_static(self) -> bool: ...

class Shape:
    def __init__(self, shape: ShapeLike) -> None: ...
    @property
    def rank(self) -> Optional[int]: ...
    @property
    def is_static(self) -> bool: ...
    @property
    def dims(self) -> Tuple[Dim, ...]: ...
    def __iter__(self) -> Iterator[int]: ...
    def __hash__(self) -> int: ...

@final
class Result:
    @property
    def shape(self) -> Shape: ...
    @property
    def symbol_equalities(self) -> list[Tuple[str, str]]: ...

class RawTensor(NamedTuple):
    data: memoryview
    element_type: str
    shape: Tuple[int, ...]

def infer(
    input: ShapeLike,
    pattern: PatternLike,
    special_zero: bool,
    *,
    pattern_type: str = ...,
    empty_rule: EmptyRule = ...,
    sound_bounds: bool = ...,
    legacy_scalar_pattern: bool = ...,
) -> Result: ...

def reshape(
    array: npt.NDArray[Any],
    pattern: PatternLike,
    special_zero: bool,
    *,
    empty_rule: EmptyRule = ...,
    copy: Optional[bool] = ...,
) -> npt.NDArray[Any]: ...

def reshape_raw(
    data: Any,
    element_type: str,
    shape: Sequence[int],
    pattern: PatternLike,
    special_zero: bool,
    *,
    empty_rule: EmptyRule = ...,
) -> RawTensor: ...

def element_types() -> list[str]: ...
def error_codes() -> list[str]: ...

class ReshapeFinding(NamedTuple):
    id: int
    name: str
    verdict: str
    input: Shape
    pattern: str
    pattern_known: bool
    special_zero: bool
    declared: Shape
    inferred: Optional[Shape]
    code: Optional[str]
    message: str
    warnings: List[str]
    blocks_reshape: bool
    hint: str
    type: str = ...
    within: Tuple[Tuple[int, str, str], ...] = ...

class LayerFinding(NamedTuple):
    issue: str
    id: int
    name: str
    type: str
    opset: int
    port: Optional[int]
    declared: Optional[Shape]
    propagated: Optional[Shape]
    code: Optional[str]
    message: str
    within: Tuple[Tuple[int, str, str], ...] = ...

class CheckReport(NamedTuple):
    reshapes: List[ReshapeFinding]
    layers: List[LayerFinding]
    failed: bool

ModelLike = Union[str, os.PathLike[str], bytes, bytearray, memoryview, Any]
"""A model: an IR .xml or .onnx path, ONNX bytes, or an object with SerializeToString() (onnx.ModelProto)."""

def check(
    model_xml: ModelLike, model_bin: Union[str, os.PathLike[str], None] = ...
) -> CheckReport: ...

class BatchInput(NamedTuple):
    id: int
    name: str
    declared: Shape
    reshaped_to: Shape
    batch_index: Optional[int]
    batch_from: Literal["layout_option", "layout_in_model", "first_dimension", "none"]
    layout: str

class BatchOutput(NamedTuple):
    id: int
    name: str
    declared: Shape
    reshaped: Shape
    batch: Literal["one", "none", "several", "unknown"]
    batch_axis: Optional[int]
    batch_factor: Optional[int]

class BatchFinding(NamedTuple):
    finding: Literal["fails", "swallows_batch", "scales_with_batch"]
    id: int
    name: str
    type: str
    opset: int
    code: Optional[str]
    at: Optional[str]
    what: str
    source_id: Optional[int]
    source: str
    used_by: Optional[int]
    cause: Optional[int]
    hint: str
    within: Tuple[Tuple[int, str, str], ...] = ...
    pattern_index: Optional[int] = ...
    port: Optional[int] = ...
    axis: Optional[int] = ...

class BatchReport(NamedTuple):
    target: str
    inputs: List[BatchInput]
    outputs: List[BatchOutput]
    findings: List[BatchFinding]
    reshapes: bool
    verdict: str
    line: str
    notes: List[str]

def check_batch(
    model_xml: ModelLike,
    batch: Union[int, str, None] = ...,
    shapes: Optional[Mapping[str, ShapeLike]] = ...,
    layouts: Optional[Mapping[str, str]] = ...,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    assume_kept: Optional[Sequence[str]] = ...,
) -> BatchReport: ...

class FixChange(NamedTuple):
    id: int
    name: str
    old_pattern: str
    new_pattern: str
    const_id: int
    cloned_from: Optional[int]
    element: int
    old_value: int
    new_value: int
    special_zero_set: bool
    why: str

class FixRefusal(NamedTuple):
    id: int
    name: str
    type: str
    reason: str
    within: Tuple[Tuple[int, str, str], ...] = ...

class OnnxFixChange(NamedTuple):
    node: int
    name: str
    old_pattern: str
    new_pattern: str
    tensor: str
    cloned_from: Optional[str]
    element: int
    old_value: int
    new_value: int
    why: str
    within: Tuple[Tuple[int, str, str], ...] = ...

class FixReport(NamedTuple):
    nothing_to_do: bool
    fixed: bool
    changes: List[Any]
    refusals: List[FixRefusal]
    checked: List[str]
    written: bool
    freed: List[str] = ...
    model: Any = ...

def fix(
    model_xml: ModelLike,
    output: Union[str, os.PathLike[str], None] = ...,
    check_batches: Optional[Sequence[Union[int, str]]] = ...,
    layouts: Optional[Mapping[str, str]] = ...,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    batch_name: Optional[str] = ...,
) -> FixReport: ...

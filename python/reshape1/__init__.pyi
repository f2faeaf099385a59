# Type stub of the reshape1 package (the C++ extension _core and the pure-Python __init__.py).
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, final

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

@dataclass(frozen=True, kw_only=True)
class Enclosing:
    id: int
    name: str
    type: str

@dataclass(frozen=True, kw_only=True)
class Reason:
    code: str
    args: Dict[str, Union[int, str]]

@dataclass(frozen=True, kw_only=True)
class Finding:
    id: int
    name: str
    type: str
    code: str
    args: Dict[str, Union[int, str]]
    within: Tuple[Enclosing, ...] = ...

@dataclass(frozen=True, kw_only=True)
class ReshapeError:
    code: str
    message: str

@dataclass(frozen=True, kw_only=True)
class ReshapeFinding(Finding):
    id: int
    name: str
    verdict: Literal["ok", "error", "shape_mismatch", "refinable"]
    warnings: List[str]
    input: Shape
    pattern: str
    pattern_known: bool
    special_zero: bool
    declared: Shape
    inferred: Optional[Shape]
    blocks_reshape: bool
    hint: str
    hint_code: str
    hint_args: Dict[str, Union[int, str]]
    code: str
    args: Dict[str, Union[int, str]]
    warning_codes: Tuple[Reason, ...]
    error: Optional[ReshapeError] = ...
    within: Tuple[Enclosing, ...] = ...
    type: str = ...

@dataclass(frozen=True, kw_only=True)
class LayerFinding(Finding):
    issue: Literal["shape_mismatch", "refinable", "not_covered", "rule_error"]
    id: int
    name: str
    type: str
    opset: int
    code: str
    args: Dict[str, Union[int, str]]
    port: Optional[int] = ...
    declared: Optional[Shape] = ...
    propagated: Optional[Shape] = ...
    message: Optional[str] = ...
    within: Tuple[Enclosing, ...] = ...

@dataclass(frozen=True, kw_only=True)
class CheckSummary:
    reshapes: int
    ok: int
    error: int
    shape_mismatch: int
    refinable: int
    blocking_reshape: int

@dataclass(frozen=True, kw_only=True)
class LayerSummary:
    layers: int
    propagated: int
    shape_mismatch: int
    refinable: int
    not_covered: int
    rule_error: int

@dataclass(frozen=True, kw_only=True)
class CheckReport:
    model: str
    findings: List[ReshapeFinding]
    layers: List[LayerFinding]
    summary: CheckSummary
    layer_summary: LayerSummary
    failed: bool

ModelLike = Union[str, os.PathLike[str], bytes, bytearray, memoryview, Any]
"""A model: an IR .xml or .onnx path, ONNX bytes, or an object with SerializeToString() (onnx.ModelProto)."""

def check(
    model_xml: ModelLike,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    base_dir: Union[str, os.PathLike[str], None] = ...,
) -> CheckReport: ...

@dataclass(frozen=True, kw_only=True)
class BatchInput:
    id: int
    name: str
    declared: Shape
    reshaped_to: Shape
    batch_index: Optional[int]
    batch_from: Literal["layout_option", "layout_in_model", "first_dimension", "none"]
    layout: str

@dataclass(frozen=True, kw_only=True)
class BatchAxis:
    axis: int
    factor: int

@dataclass(frozen=True, kw_only=True)
class BatchOutput:
    id: int
    name: str
    declared: Shape
    reshaped: Shape
    batch: Union[BatchAxis, Literal["none", "several", "unknown"]]

@dataclass(frozen=True, kw_only=True)
class ValueSource:
    id: int
    what: str

@dataclass(frozen=True, kw_only=True)
class BatchFinding(Finding):
    finding: Literal[
        "fails",
        "swallows_batch",
        "scales_with_batch",
        "mixes_samples",
        "drops_samples",
        "loses_batch",
        "fails_at_declared",
        "cannot_tell",
    ]
    id: int
    name: str
    type: str
    opset: int
    code: str
    args: Dict[str, Union[int, str]]
    what: str
    source: Optional[ValueSource]
    hint: str
    hint_code: str
    hint_args: Dict[str, Union[int, str]]
    within: Tuple[Enclosing, ...] = ...
    at: Optional[str] = ...
    used_by: Optional[int] = ...
    cause: Optional[int] = ...
    port: Optional[int] = ...
    axis: Optional[int] = ...
    pattern_index: Optional[int] = ...

@dataclass(frozen=True, kw_only=True)
class BatchSummary:
    verdict: Literal["yes", "no", "cannot_tell"]
    reshapes: bool
    fails: int
    swallows_batch: int
    scales_with_batch: int
    mixes_samples: int
    drops_samples: int
    loses_batch: int
    cannot_tell: int
    failing_at_declared: int
    line: str

@dataclass(frozen=True, kw_only=True)
class BatchReport:
    model: str
    target: str
    inputs: List[BatchInput]
    outputs: List[BatchOutput]
    findings: List[BatchFinding]
    notes: List[str]
    summary: BatchSummary

def check_batch(
    model_xml: ModelLike,
    batch: Union[int, str, None] = ...,
    shapes: Optional[Mapping[str, ShapeLike]] = ...,
    layouts: Optional[Mapping[str, str]] = ...,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    assume_kept: Optional[Sequence[str]] = ...,
    base_dir: Union[str, os.PathLike[str], None] = ...,
    assume_constant: Optional[Sequence[str]] = ...,
) -> BatchReport: ...

@dataclass(frozen=True, kw_only=True)
class IrEdit:
    const: Optional[int]
    cloned_from: Optional[int]
    special_zero_set: bool

@dataclass(frozen=True, kw_only=True)
class OnnxEdit:
    tensor: str
    cloned_from: Optional[str]
    allowzero_cleared: bool

@dataclass(frozen=True, kw_only=True)
class FixChange:
    id: int
    name: str
    type: str
    old_pattern: str
    new_pattern: str
    element: int
    old_value: int
    new_value: int
    why: str
    edit: Union[IrEdit, OnnxEdit]
    within: Tuple[Enclosing, ...] = ...
    computed: str = ...

@dataclass(frozen=True, kw_only=True)
class FixRefusal(Finding):
    id: int
    name: str
    type: str
    code: str
    args: Dict[str, Union[int, str]]
    reason: str
    within: Tuple[Enclosing, ...] = ...

@dataclass(frozen=True, kw_only=True)
class FixReport:
    model: str
    output: Any
    nothing_to_do: bool
    fixed: bool
    changes: List[FixChange]
    refusals: List[FixRefusal]
    checked: List[str]
    freed: List[str] = ...

def fix(
    model_xml: ModelLike,
    output: Union[str, os.PathLike[str], None] = ...,
    check_batches: Optional[Sequence[Union[int, str]]] = ...,
    layouts: Optional[Mapping[str, str]] = ...,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    batch_name: Optional[str] = ...,
    base_dir: Union[str, os.PathLike[str], None] = ...,
    shapes: Optional[Mapping[str, ShapeLike]] = ...,
    check_shapes: Optional[Sequence[Mapping[str, ShapeLike]]] = ...,
    assume_constant: Optional[Sequence[str]] = ...,
) -> FixReport: ...

@dataclass(frozen=True, kw_only=True)
class TensorShape:
    name: str
    id: int
    layer: str
    op: str
    output: int
    shape: Shape
    type: Optional[str]
    declared: Optional[Shape]
    within: Tuple[Enclosing, ...] = ...

@dataclass(frozen=True, kw_only=True)
class ShapesGap:
    id: int
    name: str
    op: str
    issue: str
    reason: str

@dataclass(frozen=True, kw_only=True)
class ShapesSummary:
    tensors: int
    rank_known: int
    static: int

@dataclass(frozen=True, kw_only=True)
class ShapesReport:
    model: str
    output: Any
    tensors: List[TensorShape]
    gaps: List[ShapesGap]
    summary: ShapesSummary

def shapes(
    model_xml: ModelLike,
    shapes: Optional[Mapping[str, ShapeLike]] = ...,
    output: Union[str, os.PathLike[str], None] = ...,
    model_bin: Union[str, os.PathLike[str], None] = ...,
    base_dir: Union[str, os.PathLike[str], None] = ...,
) -> ShapesReport: ...

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

import dataclasses
import json
import os
from typing import (
    Any,
    Dict,
    List,
    Literal,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from . import _core
from ._core import Dim, Result, Shape, element_types, infer, reshape

__version__: str = _core.__version__

__all__ = [
    "Dim",
    "Error",
    "CheckReport",
    "BatchAxis",
    "BatchInput",
    "BatchOutput",
    "BatchFinding",
    "BatchReport",
    "BatchSummary",
    "CheckSummary",
    "Enclosing",
    "Finding",
    "LayerSummary",
    "Reason",
    "ReshapeError",
    "ValueSource",
    "check_batch",
    "FixChange",
    "IrEdit",
    "OnnxEdit",
    "FixRefusal",
    "FixReport",
    "fix",
    "TensorShape",
    "ShapesGap",
    "ShapesSummary",
    "ShapesReport",
    "shapes",
    "LayerFinding",
    "RawTensor",
    "ReshapeFinding",
    "Result",
    "Shape",
    "__version__",
    "check",
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


# The argument types the stub names, here too so that the names exist at run time (numpy's arrays are Any
# here: the package does not import numpy).
EmptyRule = Union[Literal["openvino"], Literal["tensorflow"], Literal["strict"]]
ShapeLike = Union[str, Sequence[Union[int, str]], Any]
PatternLike = Union[str, int, Sequence[int], Any]
ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


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



# ---- reports -------------------------------------------------------------------------------------
# The reports of check(), check_batch() and fix() are the JSON that `reshape1 ... --json` prints, written by
# one C++ renderer (src/render); each class below binds one of its objects, an attribute for every key and
# under the key's name. _from_json refuses a key no class binds, so a field added to the JSON fails the tests
# until it is bound here (and in the stub). Values get Python types: ids are ints (the JSON writes them as
# strings, which stay exact in JavaScript), shapes are Shape objects.

_HINTS: dict = {}


def _convert(tp: Any, value: Any, shapes: Mapping[str, Shape]) -> Any:
    if value is None or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return value  # null, or a report object the caller built (fix's changes, whose kind it knows)
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union:  # Optional[X], or a JSON value of several kinds (an output's batch)
        for arg in args:
            if arg is type(None):
                continue
            if dataclasses.is_dataclass(arg) and isinstance(value, dict):
                return _from_json(arg, value, shapes)
            if arg is str and isinstance(value, str):
                return value
            if arg is not str and not dataclasses.is_dataclass(arg):
                return _convert(arg, value, shapes)
        raise TypeError(f"reshape1: no binding for the JSON value {value!r} as {tp}")
    if origin is list:
        return [_convert(args[0], v, shapes) for v in value]
    if origin is tuple:
        return tuple(_convert(args[0], v, shapes) for v in value)
    if dataclasses.is_dataclass(tp):
        return _from_json(tp, value, shapes)
    if tp is Shape:
        # The shape the report wrote as this text: a symbol named after a layer (?@image.0) is not notation
        # that reads back.
        return shapes[value] if value in shapes else Shape(value)
    if tp is int:
        return int(value)
    return value


def _from_json(cls: Any, data: Mapping[str, Any], shapes: Optional[Mapping[str, Shape]] = None, **extra: Any) -> Any:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls)
    unbound = set(data) - set(hints)
    if unbound:
        raise TypeError(f"reshape1: {cls.__name__} binds no field {sorted(unbound)} (a bug: please report it)")
    known = shapes if shapes is not None else {}
    return cls(**{key: _convert(hints[key], value, known) for key, value in data.items()}, **extra)


_report = dataclasses.dataclass(frozen=True, kw_only=True)


@_report
class Enclosing:
    """A TensorIterator, Loop or Scan layer whose body holds the layer a finding is about."""

    id: int
    name: str
    type: str


@_report
class Reason:
    """A reason as data: a stable code (docs/cli.md lists check's) and what it names ({"index": 0, "value": 1})."""

    code: str
    args: Dict[str, Union[int, str]]


@_report
class Finding:
    """What every finding says, whichever answer it belongs to (ReshapeFinding and LayerFinding of check(),
    BatchFinding of check_batch(), FixRefusal of fix()): the layer (id, name, type; within: the bodies that
    hold it, outermost first), and why as a stable code (docs/cli.md lists each answer's) with the values
    that code names (args: ports, axes, values, the layers a value comes from). Each kind adds what it alone
    says, its sentence among it (ReshapeFinding's warnings and error, LayerFinding's message, BatchFinding's
    what, FixRefusal's reason): test on code and args, which stay; the sentences are for people.
    """

    id: int
    name: str
    type: str
    code: str
    args: Dict[str, Union[int, str]]
    within: Tuple[Enclosing, ...] = ()


@_report
class ReshapeError:
    """Why a Reshape's output cannot be inferred: a stable error code (see error_codes()) and the message."""

    code: str
    message: str


@_report
class ReshapeFinding(Finding):
    """What check() says of one Reshape layer (see docs/cli.md, "check").

    verdict is "ok", "error" (inference fails: error says why), "shape_mismatch" (the declared output cannot
    be right) or "refinable" (it is less precise than what can be inferred). Shapes are Shape objects: str()
    gives the notation, tuple() the integers of a static one. within names the bodies that hold the layer,
    outermost first. code and args say why the verdict as data ("ok", the error's code,
    "declared_cannot_be", "can_be_declared_as"), and warning_codes each warning, in the order of warnings;
    hint_code and hint_args the hint ("" and {} without one: docs/cli.md lists the codes).
    """

    id: int
    name: str
    verdict: str
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
    error: Optional[ReshapeError] = None
    within: Tuple[Enclosing, ...] = ()
    type: str = "Reshape"  # (not in the JSON, whose Reshape findings are all of Reshapes)


@_report
class LayerFinding(Finding):
    """One disagreement of the whole-model self-check: issue is "shape_mismatch", "refinable",
    "not_covered" (no rule for the op: its outputs are unknown) or "rule_error" (the op refuses its
    propagated inputs). port, declared and propagated are None for the last two; message says why for
    both. code and args say why as data ("declared_cannot_be", "can_be_declared_as", "no_rule", or a
    rule_error's error code)."""

    issue: str
    id: int
    name: str
    type: str
    opset: int
    code: str
    args: Dict[str, Union[int, str]]
    port: Optional[int] = None
    declared: Optional[Shape] = None
    propagated: Optional[Shape] = None
    message: Optional[str] = None
    within: Tuple[Enclosing, ...] = ()


@_report
class CheckSummary:
    """How many Reshape layers check() found, and how many of each verdict (blocking_reshape: those whose
    hard-coded dimension keeps the model from reshaping)."""

    reshapes: int
    ok: int
    error: int
    shape_mismatch: int
    refinable: int
    blocking_reshape: int


@_report
class LayerSummary:
    """How many layers check() propagated (propagated: those whose outputs all have a known rank), and how
    many of each issue."""

    layers: int
    propagated: int
    shape_mismatch: int
    refinable: int
    not_covered: int
    rule_error: int


@_report
class CheckReport:
    """The answer of check(), as `reshape1 check --json` gives it: one finding per Reshape, the layers whose
    shapes disagree or could not be propagated, the counts; and (not in the JSON, where the exit code says
    it) failed: whether `reshape1 check` would exit 1 (a Reshape error or shape_mismatch, a layer
    shape_mismatch or rule_error). model is the path as given ("" for ONNX bytes)."""

    model: str
    findings: List[ReshapeFinding]
    layers: List[LayerFinding]
    summary: CheckSummary
    layer_summary: LayerSummary
    failed: bool


def _names(keyword: str, names: Optional[Sequence[str]]) -> List[str]:
    """A list of names as the keyword takes it: one string would otherwise be read letter by letter."""
    if isinstance(names, (str, bytes)):
        raise TypeError(f"{keyword} takes a list of names, not one string: {keyword}=[{names!r}]")
    return list(names or [])


def _batches(batches: Sequence[Union[int, str]]) -> List[Union[int, str]]:
    """check_batches as a list: one string ("16") would otherwise be read digit by digit, one int not at all."""
    if isinstance(batches, (str, bytes, int)):
        raise TypeError(f"check_batches takes a list of batches, not one: check_batches=[{batches!r}]")
    return list(batches)


def _file_arg(keyword: str, path: Union[str, "os.PathLike[str]", None], kind: str = "file") -> str:
    """A file (or, with kind="directory", a directory) keyword as _core takes it ("" for None). An empty
    name (a script's unset variable) is refused, as the command line refuses `--bin ''` and
    `--base-dir ''`, not taken as left out."""
    if path is None:
        return ""
    text = _path_text(keyword, path)
    if text == "":
        raise Error("invalid_argument", f"{keyword}: an empty {kind} name")
    return text


def _path_text(keyword: str, path: Union[str, "os.PathLike[str]"]) -> str:
    """A path as text; one holding a NUL byte is refused: the system would read it only up to the NUL,
    another file than the one named."""
    text = os.fsdecode(os.fspath(path))  # a bytes path too, as the os module takes it
    if "\x00" in text:
        raise Error("invalid_argument", f"{keyword}: {text!r} holds a NUL byte, which no file name can")
    return text


def _model_arg(model: Any, model_bin: Union[str, "os.PathLike[str]", None]) -> Tuple[Union[str, bytes], str]:
    """A model argument as _core takes it: a path, or the bytes of an ONNX model (bytes, bytearray,
    memoryview, or an object with SerializeToString(), such as onnx.ModelProto); and the weights path
    ("" for the default)."""
    binary = _file_arg("model_bin", model_bin)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), binary
    if not isinstance(model, (str, os.PathLike)) and callable(getattr(model, "SerializeToString", None)):
        data = model.SerializeToString()
        # A str would be read as a path: another file than the model the object stands for.
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(
                f"{type(model).__name__}.SerializeToString() returned {type(data).__name__}, not the model's bytes"
            )
        return bytes(data), binary
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"model must be a path, ONNX bytes or an onnx.ModelProto, not {type(model).__name__}")
    return _path_text("model_xml", model), binary


def _in_memory(model_xml: Any, model_bin: Any, output: Any, shapes: Any) -> bool:
    """Whether fix() or shapes() is given an ONNX model in memory (bytes, or an object with
    SerializeToString such as onnx.ModelProto); refuses weights and an output path for one, and shapes that
    are not a mapping, as the command line refuses them."""
    in_memory = isinstance(model_xml, (bytes, bytearray, memoryview)) or (
        not isinstance(model_xml, (str, os.PathLike)) and callable(getattr(model_xml, "SerializeToString", None))
    )
    if in_memory and model_bin is not None:
        _core._refuse_for_format("model_bin", "onnx")
    if in_memory and output is not None:
        raise Error("invalid_argument", "output: a model given in memory comes back in the report's output")
    if shapes is not None and not isinstance(shapes, Mapping):
        raise TypeError(f"shapes takes a mapping {{NAME: SHAPE}}, not {type(shapes).__name__}")
    return in_memory


def _as_given(model_xml: Any, data: Optional[bytes]) -> Any:
    """A model's bytes in the form the caller gave it: bytes, or its proto class (an onnx.ModelProto in, one
    out)."""
    rebuild = getattr(type(model_xml), "FromString", None)
    if data is not None and callable(rebuild) and not isinstance(model_xml, (bytes, bytearray, memoryview)):
        return rebuild(data)
    return data


def check(
    model_xml: Any,
    model_bin: Union[str, "os.PathLike[str]", None] = None,
    base_dir: Union[str, "os.PathLike[str]", None] = None,
) -> CheckReport:
    """Check a model (an OpenVINO IR or an ONNX file) at its declared shapes, as `reshape1 check` does.

    Every Reshape layer's pattern is evaluated (a Const, or a shape sub-graph), its output inferred and
    compared with the declared one; then every layer is propagated from the model's inputs and its
    outputs compared with the IR's declared shapes.

    Args:
        model_xml: the model: an IR .xml or an .onnx path (told apart by content), or an ONNX model as
            bytes or an onnx.ModelProto.
        model_bin: an IR's weights; by default the .xml's path with the extension .bin.
        base_dir: for an ONNX model given in memory, the directory its external data files are looked
            for in; without it, external data is refused (the bytes belong to no directory).

    Raises reshape1.Error ("io", "bad_file", "unsupported"...) when the model cannot be read.
    """
    model, binary = _model_arg(model_xml, model_bin)
    report, shapes, failed = _core._check(model, binary, _file_arg("base_dir", base_dir, "directory"))
    return _from_json(CheckReport, json.loads(report), shapes, failed=failed)  # type: ignore[no-any-return]


@_report
class BatchInput:
    """A model input in check_batch(): its shapes, and which dimension is its batch and why
    (batch_from is "layout_option", "layout_in_model", "first_dimension" or "none")."""

    id: int
    name: str
    declared: Shape
    reshaped_to: Shape
    batch_index: Optional[int]
    batch_from: str
    layout: str


@_report
class BatchAxis:
    """The one dimension of a tensor that holds the batch N: its size is N times factor."""

    axis: int
    factor: int


@_report
class BatchOutput:
    """A model output in check_batch(): its shape at the declared and the new shapes, and how it holds the
    batch: a BatchAxis, or "none", "several" (more than one dimension follows N) or "unknown"."""

    id: int
    name: str
    declared: Shape
    reshaped: Shape
    batch: Union[BatchAxis, str]


@_report
class ValueSource:
    """The layer that holds the offending value (a Const) or computes it, and what it is."""

    id: int
    what: str


@_report
class BatchFinding(Finding):
    """One finding of check_batch(): finding is "fails" (code and at say why and at which batch),
    "swallows_batch", "mixes_samples", "drops_samples" (port and axis: the input and its dimension that
    holds the batch), "loses_batch", "fails_at_declared", "cannot_tell" or "scales_with_batch" (not a
    fault). pattern_index is the Reshape pattern element that hard-codes the batch; source the layer that
    holds the offending value or computes it; used_by the layer or output that depends on it; cause the
    Reshape upstream behind a failure; within the bodies the layer is in, outermost first. code says why as
    a stable name (an error code for "fails", else the reason: "reduces_batch", "replaces_batch", ...) and
    args what the reason names ({"port": 0, "axis": 1}); what says it in English. hint_code and hint_args
    say the hint as data ("vouch_constant", {"constant_id": "12", "constant": "n"}; "" and {} without one:
    docs/cli.md lists the codes)."""

    finding: str
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
    within: Tuple[Enclosing, ...] = ()
    at: Optional[str] = None
    used_by: Optional[int] = None
    cause: Optional[int] = None
    port: Optional[int] = None
    axis: Optional[int] = None
    pattern_index: Optional[int] = None


@_report
class BatchSummary:
    """The answer of check_batch() and its counts: verdict is "yes" (proven for every batch asked), "no" (a
    finding proves the model breaks) or "cannot_tell" (no rule decides some layer); reshapes is verdict ==
    "yes"; line is the summary `reshape1 check --batch` prints."""

    verdict: str
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


@_report
class BatchReport:
    """The answer of check_batch(), as `reshape1 check --batch --json` gives it: the inputs and outputs at
    the new shapes, the findings, the notes (what else to know: an ONNX input whose batch is static) and the
    summary with the verdict. model is the path as given ("" for ONNX bytes)."""

    model: str
    target: str
    inputs: List[BatchInput]
    outputs: List[BatchOutput]
    findings: List[BatchFinding]
    notes: List[str]
    summary: BatchSummary


def check_batch(
    model_xml: Any,
    batch: Union[int, str, None] = None,
    shapes: Optional[Mapping[str, Any]] = None,
    layouts: Optional[Mapping[str, str]] = None,
    model_bin: Union[str, "os.PathLike[str]", None] = None,
    assume_kept: Optional[Sequence[str]] = None,
    base_dir: Union[str, "os.PathLike[str]", None] = None,
    assume_constant: Optional[Sequence[str]] = None,
) -> BatchReport:
    """Will the model reshape to another batch or input shapes, and will every layer keep its meaning?
    The report of `reshape1 check --batch` (see docs/cli.md).

    Args:
        model_xml: the model: an IR .xml or an .onnx path (told apart by content), or an ONNX model as
            bytes or an onnx.ModelProto.
        batch: the new batch: an int, "?" for a dynamic one, or None to change only `shapes`.
        shapes: new input shapes by input name ("" for the only input of a one-input model).
        layouts: layouts by input name ("NCHW", "[N,C,H,W]", "TN"): the dimension named N is the batch.
        model_bin: the weights; by default the .xml's path with the extension .bin.
        assume_kept: op types whose layers the caller vouches keep each sample apart (custom ops).
        base_dir: for an ONNX model given in memory, where its external data lies, as for check().
        assume_constant: constants (by name, or "#ID") the caller vouches are meant to stay as they are at
            every size: at new sizes, one that equals a size that changes is then not a finding.

    Raises reshape1.Error: "invalid_argument" for a request the model cannot take (an unknown input name,
    a layout that does not fit), "io", "bad_file"... when the model cannot be read.
    """
    model, binary = _model_arg(model_xml, model_bin)
    report, report_shapes = _core._check_batch(
        model,
        binary,
        batch,
        list((shapes or {}).items()),
        list((layouts or {}).items()),
        _names("assume_kept", assume_kept),
        _names("assume_constant", assume_constant),
        _file_arg("base_dir", base_dir, "directory"),
    )
    return _from_json(BatchReport, json.loads(report), report_shapes)  # type: ignore[no-any-return]


@_report
class IrEdit:
    """Where an IR's rewrite wrote its value: the Const `const` (a clone of `cloned_from` when the original
    fed other layers too; None for a pattern computed from the input's shape, see FixChange.computed);
    special_zero_set when the Reshape's special_zero went from false to true."""

    const: Optional[int]
    cloned_from: Optional[int]
    special_zero_set: bool


@_report
class OnnxEdit:
    """Where an ONNX model's rewrite wrote its value: `tensor` (an initializer, or a Constant node's value; a
    copy of `cloned_from` when other nodes share that one); allowzero_cleared when the Reshape's allowzero
    went from 1 to 0 so that 0 copies the batch."""

    tensor: str
    cloned_from: Optional[str]
    allowzero_cleared: bool


@_report
class FixChange:
    """One rewritten Reshape pattern, of an IR or an ONNX model: element `element` went from old_value (the
    declared batch) to new_value (0 copies the batch; -1 where 0 cannot be written or does not keep it).
    `id` is the Reshape's id as findings give it (for ONNX its node's index in the top graph; a node of an If
    branch is numbered after them); in a body, its id there, with within naming the layers around it,
    outermost first. `edit` is what the format wrote (IrEdit or OnnxEdit): the JSON gives its keys beside
    the others. With new sizes, `computed` is the pattern computed from the shape of the Reshape's input
    ("[1,2,3,shape[2],shape[3]]") by layers fix added, when no element alone could be rewritten (element,
    old_value and new_value are 0 then); "" otherwise. `type` is the layer's op type: "Reshape", or with new
    sizes an Interpolate (IR) or Resize (ONNX) whose sizes, or a Slice or StridedSlice whose bounds, are
    computed so (the patterns are those values)."""

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
    within: Tuple[Enclosing, ...] = ()
    computed: str = ""


def _fix_change(data: Mapping[str, Any]) -> FixChange:
    # An IR's change names its Const, an ONNX model's its tensor: the keys of one edit class.
    kind: Any = IrEdit if "const" in data else OnnxEdit
    keys = {f.name for f in dataclasses.fields(kind)}
    edit = _from_json(kind, {k: v for k, v in data.items() if k in keys})
    return _from_json(FixChange, {k: v for k, v in data.items() if k not in keys}, edit=edit)  # type: ignore[no-any-return]


@_report
class FixRefusal(Finding):
    """A layer that keeps the model from reshaping and that fix() left alone: code says why as a stable name
    ("computed_not_const", "batch_finding", ...; docs/cli.md lists them), args what it names
    ({"pattern_index": 0, "layer": "Concat 'shape' (id 5)"}), reason says it in English."""

    id: int
    name: str
    type: str
    code: str
    args: Dict[str, Union[int, str]]
    reason: str
    within: Tuple[Enclosing, ...] = ()


@_report
class FixReport:
    """The answer of fix(), as `reshape1 fix --json` gives it: fixed is True when the rewritten model (or
    the model itself, nothing_to_do) reshapes at every checked batch with the same shapes at the declared
    batch; checked holds the summary line of each batch. output is the path written (None when nothing
    was), or for an ONNX model given in memory the fixed model (bytes, or the same proto class as given;
    None when not fixed). For an ONNX model, freed lists the dimensions that became the batch's
    dim_param. model is the path as given ("" for ONNX bytes)."""

    model: str
    output: Any
    nothing_to_do: bool
    fixed: bool
    changes: List[FixChange]
    refusals: List[FixRefusal]
    checked: List[str]
    freed: List[str] = dataclasses.field(default_factory=list)


def fix(
    model_xml: Any,
    output: Union[str, "os.PathLike[str]", None] = None,
    check_batches: Optional[Sequence[Union[int, str]]] = None,
    layouts: Optional[Mapping[str, str]] = None,
    model_bin: Union[str, "os.PathLike[str]", None] = None,
    batch_name: Optional[str] = None,
    base_dir: Union[str, "os.PathLike[str]", None] = None,
    shapes: Optional[Mapping[str, Any]] = None,
    check_shapes: Optional[Sequence[Mapping[str, Any]]] = None,
    assume_constant: Optional[Sequence[str]] = None,
) -> FixReport:
    """Rewrite the Reshape patterns that keep the model from reshaping to another batch, as `reshape1 fix`;
    with shapes, those that keep it from computing at new sizes what it computes at its declared ones.

    Each rewrite is kept only when the rewritten model propagates to the same shapes at the declared inputs;
    then the model must reshape at every batch of check_batches (default 1, 2, 8 and "?"), or, with shapes,
    have no finding at them but that sizes asked as "?" or intervals are not proven for every value, and
    reshape at every sample of check_shapes (default: two, the new sizes at multiples of their declared
    values, no two equal).

    An ONNX model (a path told apart by content, bytes, or an onnx.ModelProto) is rewritten in its
    initializers and Constant nodes, its inputs' batch becomes the dim_param batch_name, and the fixed
    bytes, read back, must reshape at every checked batch (docs/onnx.md).

    Args:
        model_xml: the model's .xml file, or an ONNX model (path, bytes or onnx.ModelProto).
        output: the fixed model's .xml (its .bin goes beside it), or .onnx for an ONNX file; None to write
            nothing. Nothing is written when nothing changes. The input files are never modified.
        check_batches: the batches to prove (ints, or "?" for a dynamic batch).
        layouts: layouts by input name ("NCHW", "TN"): the dimension named N is the batch.
        model_bin: the weights; by default the .xml's path with the extension .bin.
        batch_name: ONNX: the dim_param the batch becomes ("N" when None).
        base_dir: for an ONNX model given in memory, where its external data lies, as for check().
        shapes: new sizes by input name, as check_batch() takes them ("?", intervals, "?@H" named sizes):
            fix rewrites Reshape patterns an export wrote for the declared sizes (0 copies a dimension, -1
            infers one); an ONNX model declares each new size as a dim_param (H, or INPUT_AXIS).
        check_shapes: with shapes, samples to check too, each {NAME: SHAPE} for some inputs.
        assume_constant: with shapes, constants vouched for as at check_batch().

    Raises reshape1.Error when the model cannot be read, or "invalid_argument" when output names an input
    or does not fit the model (.xml for an IR, .onnx for ONNX; none for a model given in memory).
    """
    in_memory = _in_memory(model_xml, model_bin, output, shapes)
    if check_shapes is not None and (
        isinstance(check_shapes, (str, bytes, Mapping)) or not all(isinstance(x, Mapping) for x in check_shapes)
    ):
        raise TypeError("check_shapes takes a list of mappings {NAME: SHAPE}, one per sample: check_shapes=[{...}]")
    data, binary = _model_arg(model_xml, model_bin)
    report, fixed_bytes = _core._fix(
        data,
        binary,
        _file_arg("output", output),
        None if check_batches is None else _batches(check_batches),
        list((layouts or {}).items()),
        batch_name,
        _file_arg("base_dir", base_dir, "directory"),
        list((shapes or {}).items()),
        [list(sample.items()) for sample in (check_shapes or [])],
        _names("assume_constant", assume_constant),
    )
    fields = json.loads(report)
    fields["changes"] = [_fix_change(c) for c in fields["changes"]]
    if in_memory:
        fields["output"] = _as_given(model_xml, fixed_bytes)
    return _from_json(FixReport, fields)  # type: ignore[no-any-return]


@_report
class TensorShape:
    """One tensor in shapes(): an input of the model or an output of a layer. name is the ONNX tensor's name,
    or for an IR the layer's name and the port's id ("conv1:3"); id, layer and op (as the file names it,
    "Conv-11") are the layer that computes it, output which of its outputs (an IR's port id). shape is what
    propagation gives it: a dynamic dimension keeps the name the model or the caller gives it, any other is
    named after the tensor and axis where it first appears. declared is the shape the file declares, None
    where it declares none; type the element type name, None when unknown. within names the layers whose
    bodies hold a tensor of a body (an ONNX Loop's or Scan's, an IR TensorIterator's or Loop's), outermost
    first (id is then its layer's id in the innermost); () at the top level."""

    name: str
    id: int
    layer: str
    op: str
    output: int
    shape: Shape
    type: Optional[str]
    declared: Optional[Shape]
    within: Tuple[Enclosing, ...] = ()


@_report
class ShapesGap:
    """A layer past which propagation knows nothing more: issue is "not_covered" (no rule for its op) or
    "rule_error" (its rule refused its inputs: reason says why)."""

    id: int
    name: str
    op: str
    issue: str
    reason: str


@_report
class ShapesSummary:
    """How many tensors shapes() lists, how many of known rank, and how many whose every dimension is a number."""

    tensors: int
    rank_known: int
    static: int


@_report
class ShapesReport:
    """The answer of shapes(), as `reshape1 shapes --json` gives it. output is the path the copy that declares
    every shape was written to (an .onnx, or an IR's .xml with its .bin beside it; None when none was), or for
    an ONNX model given in memory that copy (bytes, or the same proto class as given). model is the path as
    given ("" for ONNX bytes)."""

    model: str
    output: Any
    tensors: List[TensorShape]
    gaps: List[ShapesGap]
    summary: ShapesSummary


def shapes(
    model_xml: Any,
    shapes: Optional[Mapping[str, Any]] = None,
    output: Union[str, "os.PathLike[str]", None] = None,
    model_bin: Union[str, "os.PathLike[str]", None] = None,
    base_dir: Union[str, "os.PathLike[str]", None] = None,
) -> ShapesReport:
    """Every tensor's propagated shape, as `reshape1 shapes`; and a copy of the model that declares them (an
    ONNX model's outputs and value_info, a name as a dim_param; an IR's ports), so that tools that show only
    what a file declares show them.

    Args:
        model_xml: the model: an IR .xml or an .onnx path (told apart by content), or an ONNX model as
            bytes or an onnx.ModelProto.
        shapes: inputs' shapes in place of the declared ones, by input name, as check_batch() takes them
            ("?", intervals, "?@H" named sizes).
        output: where to write the copy that declares every shape: an .onnx for an ONNX model (its outputs and
            value_info), an .xml for an IR (its ports; the .bin is written beside it); never the input. None
            to write nothing. A model given in memory comes back in the report's output instead.
        model_bin: an IR's weights; by default the .xml's path with the extension .bin.
        base_dir: for an ONNX model given in memory, where its external data lies, as for check().

    Raises reshape1.Error when the model cannot be read, and "invalid_argument" when output names one of
    the model's files or does not end in the model's extension.
    """
    in_memory = _in_memory(model_xml, model_bin, output, shapes)
    data, binary = _model_arg(model_xml, model_bin)
    report, known, copy = _core._shapes(
        data,
        binary,
        _file_arg("output", output),
        _file_arg("base_dir", base_dir, "directory"),
        list((shapes or {}).items()),
    )
    fields = json.loads(report)
    if in_memory:
        fields["output"] = _as_given(model_xml, copy)
    return _from_json(ShapesReport, fields, known)  # type: ignore[no-any-return]

"""The command line and Python refuse the same mistakes with the same code and the same message, only the
option's spelling differing (`--batch x` against `batch=x`).

Each row is one mistake: the command line's arguments, the Python call, and one expected answer whose
option names are written as <<...>> markers. The markers are spelled here, independently of the library's
own table (src/model/options.cpp), so that a wrong spelling on either side fails:
  <<batch>>  <<batch=x>>  <<shape[x]>>  <<shape[x]=[2,3]>>  <<usage:shape>>
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
from dataclasses import dataclass, field
from typing import Any, Callable

import pytest

import reshape1

FD200 = "ir-models/face-detection-0200/face-detection-0200.xml"
ULTRAFACE = "onnx-models/ultraface-rfb-320/version-RFB-320_simplified.onnx"

TWINS = """<?xml version="1.0"?>
<net name="twins" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
<layer id="1" name="x" type="Parameter" version="opset1"><data shape="1,3" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
<layer id="2" name="sum" type="Add" version="opset1"><input><port id="0"><dim>1</dim><dim>3</dim></port><port id="1"><dim>1</dim><dim>3</dim></port></input><output><port id="2" precision="FP32"><dim>1</dim><dim>3</dim></port></output></layer>
<layer id="3" name="out" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>3</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>"""

CUSTOM = """<?xml version="1.0"?>
<net name="custom" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,6" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>6</dim></port></output></layer>
<layer id="1" name="mine" type="MyCustomOp" version="custom"><input><port id="0"><dim>1</dim><dim>6</dim></port></input><output><port id="1" precision="FP32"><dim>1</dim><dim>6</dim></port></output></layer>
<layer id="2" name="out" type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>6</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
</edges></net>"""

# name on the command line, keyword in Python, and how a value is written in Python (scalar, list, mapping)
SPELLING = {
    "batch": ("--batch", "batch", "scalar", "N"),
    "shape": ("--shape", "shapes", "mapping", "NAME=SHAPE|{NAME: SHAPE}"),
    "layout": ("--layout", "layouts", "mapping", "NAME=LAYOUT|{NAME: LAYOUT}"),
    "assume_kept": ("--assume-kept", "assume_kept", "list", "TYPE|[TYPE]"),
    "check_batch": ("--check-batch", "check_batches", "list", "LIST|[N, ...]"),
    "bin": ("--bin", "model_bin", "scalar", "FILE"),
    "batch_name": ("--batch-name", "batch_name", "scalar", "NAME"),
    "check_shape": ("--check-shape", "check_shapes", "list", "NAME=SHAPE|[{NAME: SHAPE}]"),
    "assume_constant": ("--assume-constant", "assume_constant", "list", "NAME|[NAME]"),
}
MARKER = re.compile(r"<<(usage:)?(\w+)(?:\[([^\]]*)\])?(?:=(.*?))?>>")


def spelled(message: str, cli: bool) -> str:
    def one(m: re.Match[str]) -> str:
        usage, key, name, value = m.group(1), m.group(2), m.group(3), m.group(4)
        flag, keyword, form, placeholder = SPELLING[key]
        if usage:
            cli_value, _, py_value = placeholder.partition("|")
            return f"{flag} {cli_value}" if cli else f"{keyword}={py_value or cli_value}"
        if cli:
            if name is not None:
                return f"{flag} {name}" + (f"={value}" if value is not None else "")
            return flag + (f" {value}" if value else "")
        if name is not None:
            return f"{keyword}['{name}']" + (f"={value}" if value is not None else "")
        if not value:
            return keyword
        return f"{keyword}=[{value}]" if form == "list" else f"{keyword}={value}"

    return MARKER.sub(one, message)


@dataclass
class Models:
    fd200: pathlib.Path
    twins: pathlib.Path
    custom: pathlib.Path
    lonely: pathlib.Path  # an IR without its .bin
    onnx: pathlib.Path
    junk: pathlib.Path


@dataclass
class Mistake:
    id: str
    cli: Callable[[Models], list[Any]]  # the command and its arguments
    python: Callable[[Models], Any]  # the same request through the Python function
    code: str
    message: str  # the whole message, options as <<markers>>
    stdin: str = ""
    notes: list[str] = field(default_factory=list)


def usage_hint() -> str:
    return ("give <<usage:batch>> (or <<usage:shape>>); <<layout>>, <<assume_kept>> and <<assume_constant>> only "
            "qualify them")


BATCH_HINT = "give a number such as 8, or ? (or -1) for a dynamic batch"
WEIGHTS = "give the weights' file with <<usage:bin>>"
ONNX_BIN = ("<<bin>>: an ONNX model keeps its weights inside (or in its external data files), so there is no weights "
            "file to give; leave out <<bin>>")

MISTAKES = [
    # --batch / batch=
    Mistake("empty batch", lambda m: ["check", m.fd200, "--batch", ""], lambda m: reshape1.check_batch(m.fd200, batch=""),
            "syntax", f"<<batch>>: an empty batch; {BATCH_HINT}"),
    Mistake("not a batch", lambda m: ["check", m.fd200, "--batch", "x"],
            lambda m: reshape1.check_batch(m.fd200, batch="x"), "syntax", f"<<batch=x>>: not a batch; {BATCH_HINT}"),
    Mistake("batch below -1", lambda m: ["check", m.fd200, "--batch=-2"],
            lambda m: reshape1.check_batch(m.fd200, batch=-2), "syntax", f"<<batch=-2>>: not a batch; {BATCH_HINT}"),
    Mistake("batch 0", lambda m: ["check", m.fd200, "--batch", "0"], lambda m: reshape1.check_batch(m.fd200, batch=0),
            "invalid_argument", "<<batch=0>>: a batch of 0 samples; give a batch of at least 1, or ?"),
    Mistake("batch interval from 0", lambda m: ["check", m.fd200, "--batch", "0..8"],
            lambda m: reshape1.check_batch(m.fd200, batch="0..8"), "invalid_argument",
            "<<batch=0..8>>: a batch interval from 0 samples; give one from 1 (1..8), or ?"),
    # no target
    Mistake("layout alone", lambda m: ["check", m.fd200, "--layout", "image=NCHW"],
            lambda m: reshape1.check_batch(m.fd200, layouts={"image": "NCHW"}), "syntax",
            f"no batch and no shape to check the model at; {usage_hint()}"),
    Mistake("assume-kept alone", lambda m: ["check", m.fd200, "--assume-kept", "Foo"],
            lambda m: reshape1.check_batch(m.fd200, assume_kept=["Foo"]), "syntax",
            f"no batch and no shape to check the model at; {usage_hint()}"),
    Mistake("empty op type", lambda m: ["check", m.fd200, "--batch", "2", "--assume-kept", ""],
            lambda m: reshape1.check_batch(m.fd200, batch=2, assume_kept=[""]), "syntax",
            "<<assume_kept>>: an empty op type; write <<usage:assume_kept>>, e.g. MyOp"),
    # --shape / shapes=
    Mistake("shape that does not parse", lambda m: ["check", m.fd200, "--shape", "image=[1,a]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"image": "[1,a]"}), "syntax",
            "<<shape[image]=[1,a]>>: offset 3: expected a dimension, found 'a'; dimensions look like 5, ?, 2..8, 2.., ..8 or "
            "-1, optionally followed by @name"),
    Mistake("no such input", lambda m: ["check", m.fd200, "--shape", "nope=[1,2]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"nope": "[1,2]"}), "invalid_argument",
            "<<shape[nope]>>: the model has no input named 'nope'; its inputs are 'image'; use one of those names, or "
            "#ID for an input's id"),
    Mistake("no such id", lambda m: ["check", m.fd200, "--shape", "#7=[1,2]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"#7": "[1,2]"}), "invalid_argument",
            "<<shape[#7]>>: no input has the id 7; its inputs are 'image'; use one of those names, or #ID for an "
            "input's id"),
    Mistake("one input given twice", lambda m: ["check", m.fd200, "--shape", "image=[1,3,256,256]", "--shape", "#0=[1,3,256,256]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"image": "[1,3,256,256]", "#0": "[1,3,256,256]"}),
            "invalid_argument", "<<shape[image]>>: given twice; give each input's shape once"),
    Mistake("two inputs of one name", lambda m: ["check", m.twins, "--shape", "x=[2,3]"],
            lambda m: reshape1.check_batch(m.twins, shapes={"x": "[2,3]"}), "invalid_argument",
            "<<shape[x]>>: two inputs are named 'x' (ids 0 and 1); address one by its id: <<shape[#0]=...>>"),
    Mistake("a shape without a name, two inputs", lambda m: ["check", m.twins, "--shape", "[2,3]"],
            lambda m: reshape1.check_batch(m.twins, shapes={"": "[2,3]"}), "invalid_argument",
            "<<shape>> without a name: the model has 2 inputs ('x', 'x'); write <<usage:shape>>"),
    Mistake("shape and batch disagree", lambda m: ["check", m.fd200, "--batch", "2", "--shape", "image=[4,3,256,256]"],
            lambda m: reshape1.check_batch(m.fd200, batch=2, shapes={"image": "[4,3,256,256]"}), "invalid_argument",
            "input 'image': <<shape>> gives 4 at the batch index 0, <<batch>> gives 2; drop one of them, or make them "
            "agree"),
    Mistake("shape without the batch index", lambda m: ["check", m.fd200, "--batch", "2", "--shape", "image=[]"],
            lambda m: reshape1.check_batch(m.fd200, batch=2, shapes={"image": "[]"}), "invalid_argument",
            "<<shape[image]=[]>>: the input's batch index is 0, which the new shape does not have; give a shape of the "
            "input's rank, or its layout with <<layout>>"),
    Mistake("a control character in a name and a shape", lambda m: ["check", m.fd200, "--shape", "im\x01age=[1,\x01]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"im\x01age": "[1,\x01]"}), "syntax",
            "<<shape[im\\x01age]=[1,\\x01]>>: offset 3: expected a dimension, found '\\x01'; dimensions look like 5, ?, "
            "2..8, 2.., ..8 or -1, optionally followed by @name"),
    Mistake("a control character in an input's name", lambda m: ["check", m.fd200, "--shape", "im\x01age=[1,3]"],
            lambda m: reshape1.check_batch(m.fd200, shapes={"im\x01age": "[1,3]"}), "invalid_argument",
            "<<shape[im\\x01age]>>: the model has no input named 'im\\x01age'; its inputs are 'image'; use one of "
            "those names, or #ID for an input's id"),
    # --layout / layouts=
    Mistake("layout of another rank", lambda m: ["check", m.fd200, "--batch", "2", "--layout", "image=NCH"],
            lambda m: reshape1.check_batch(m.fd200, batch=2, layouts={"image": "NCH"}), "invalid_argument",
            "<<layout[image]=NCH>>: layout 'NCH' has 3 dimensions, the shape has 4; give one name per dimension"),
    Mistake("a layout without a name, two inputs", lambda m: ["check", m.twins, "--batch", "2", "--layout", "NC"],
            lambda m: reshape1.check_batch(m.twins, batch=2, layouts={"": "NC"}), "invalid_argument",
            "<<layout>> without a name: the model has 2 inputs ('x', 'x'); write <<usage:layout>>"),
    Mistake("layout given twice", lambda m: ["check", m.fd200, "--batch", "2", "--layout", "image=NCHW", "--layout", "#0=NCHW"],
            lambda m: reshape1.check_batch(m.fd200, batch=2, layouts={"image": "NCHW", "#0": "NCHW"}),
            "invalid_argument", "<<layout[image]>>: given twice; give each input's layout once"),
    # weights
    Mistake("weights not beside the .xml", lambda m: ["check", m.lonely], lambda m: reshape1.check(m.lonely), "io",
            "{lonely_bin}: the weights of {lonely} are not there (an IR's weights are looked for beside its .xml); "
            + WEIGHTS),
    Mistake("weights not beside the .xml, check --batch", lambda m: ["check", m.lonely, "--batch", "4"],
            lambda m: reshape1.check_batch(m.lonely, batch=4), "io",
            "{lonely_bin}: the weights of {lonely} are not there (an IR's weights are looked for beside its .xml); "
            + WEIGHTS),
    Mistake("weights for an ONNX model", lambda m: ["check", m.onnx, "--bin", m.fd200.with_suffix(".bin")],
            lambda m: reshape1.check(m.onnx, model_bin=m.fd200.with_suffix(".bin")), "invalid_argument", ONNX_BIN),
    # fix
    Mistake("check batch 0", lambda m: ["fix", m.fd200, "--dry-run", "--check-batch", "1,0"],
            lambda m: reshape1.fix(m.fd200, check_batches=[1, 0]), "invalid_argument",
            "<<check_batch=1,0>>: '0' is not a batch; give numbers from 1, or ?, e.g. 1,2,8,?"),
    Mistake("check batch not a batch", lambda m: ["fix", m.fd200, "--dry-run", "--check-batch", "2,x"],
            lambda m: reshape1.fix(m.fd200, check_batches=[2, "x"]), "syntax",
            f"<<check_batch=2,x>>: 'x': not a batch; {BATCH_HINT}"),
    Mistake("no check batch", lambda m: ["fix", m.fd200, "--dry-run", "--check-batch", ""],
            lambda m: reshape1.fix(m.fd200, check_batches=[]), "invalid_argument",
            "<<check_batch>>: no batch given; give numbers from 1, or ?, e.g. 1,2,8,?"),
    # fix --shape: new sizes or batches, and samples or vouched constants only with new sizes
    Mistake("samples without new sizes", lambda m: ["fix", m.onnx, "--dry-run", "--check-shape", "input=[1,3,480,640]"],
            lambda m: reshape1.fix(m.onnx, check_shapes=[{"input": "[1,3,480,640]"}]), "invalid_argument",
            "<<check_shape>>: there are no new sizes to check; give them with <<usage:shape>>, or leave "
            "<<check_shape>> out to fix for the batch"),
    Mistake("batches with new sizes", lambda m: ["fix", m.onnx, "--dry-run", "--shape", "input=[1,3,?,?]",
                                                 "--check-batch", "2"],
            lambda m: reshape1.fix(m.onnx, shapes={"input": "[1,3,?,?]"}, check_batches=[2]), "invalid_argument",
            "<<check_batch>>: fix checks shapes when it is given them, not batches; give the shapes to check with "
            "<<check_shape>>"),
    Mistake("a vouched constant without new sizes", lambda m: ["fix", m.onnx, "--dry-run", "--assume-constant", "c"],
            lambda m: reshape1.fix(m.onnx, assume_constant=["c"]), "invalid_argument",
            "<<assume_constant>>: fix vouches for constants only at new sizes; give the sizes with <<usage:shape>>"),
    Mistake("a batch name with new sizes", lambda m: ["fix", m.onnx, "--dry-run", "--shape", "input=[1,3,?,?]",
                                                      "--batch-name", "B"],
            lambda m: reshape1.fix(m.onnx, shapes={"input": "[1,3,?,?]"}, batch_name="B"), "invalid_argument",
            "<<batch_name>>: fix names the new sizes as they are asked (?@H), not the batch's; name a size in "
            "<<usage:shape>> (`?@NAME`), or leave <<batch_name>> out"),
    Mistake("one name for sizes that differ", lambda m: ["fix", m.onnx, "--dry-run", "--shape", "input=[1,3,?@S,?@S]"],
            lambda m: reshape1.fix(m.onnx, shapes={"input": "[1,3,?@S,?@S]"}), "invalid_argument",
            "<<shape[input]=[1,3,?@S,?@S]>>: the size S is dimension 2 of input 'input', 240 at the declared shapes, "
            "and dimension 3 of input 'input', 320: one name is one size; give sizes that differ at the declared "
            "shapes names of their own (?@H and ?@W)"),
    Mistake("a new size not a shape", lambda m: ["fix", m.onnx, "--dry-run", "--shape", "input=[1,3,x]"],
            lambda m: reshape1.fix(m.onnx, shapes={"input": "[1,3,x]"}), "syntax",
            "<<shape[input]=[1,3,x]>>: offset 5: expected a dimension, found 'x'; dimensions look like 5, ?, 2..8, "
            "2.., ..8 or -1, optionally followed by @name"),
    Mistake("batch name for an IR", lambda m: ["fix", m.fd200, "--dry-run", "--batch-name", "B"],
            lambda m: reshape1.fix(m.fd200, batch_name="B"), "invalid_argument",
            "<<batch_name>>: only for ONNX models; an IR's inputs take the batch as a number"),
    Mistake("empty batch name", lambda m: ["fix", m.onnx, "--dry-run", "--batch-name", ""],
            lambda m: reshape1.fix(m.onnx, batch_name=""), "invalid_argument",
            "<<batch_name>>: an empty name for the batch's dim_param; give a name, e.g. <<batch_name=N>>"),
    Mistake("a layout for no input of an ONNX model", lambda m: ["fix", m.onnx, "--dry-run", "--layout", "nope=NCHW"],
            lambda m: reshape1.fix(m.onnx, layouts={"nope": "NCHW"}), "invalid_argument",
            "<<layout[nope]>>: the model has no input named 'nope'; its inputs are 'input'; use one of those names, "
            "or #ID for an input's id"),
    Mistake("a layout of another rank, ONNX", lambda m: ["fix", m.onnx, "--dry-run", "--layout", "input=NCH"],
            lambda m: reshape1.fix(m.onnx, layouts={"input": "NCH"}), "invalid_argument",
            "<<layout[input]=NCH>>: layout 'NCH' has 3 dimensions, the shape has 4; give one name per dimension"),
    Mistake("weights for an ONNX model, fix", lambda m: ["fix", m.onnx, "--dry-run", "--bin", m.fd200.with_suffix(".bin")],
            lambda m: reshape1.fix(m.onnx, model_bin=m.fd200.with_suffix(".bin")), "invalid_argument", ONNX_BIN),
    Mistake("output that is not .xml", lambda m: ["fix", m.fd200, "-o", m.junk.with_name("out.txt")],
            lambda m: reshape1.fix(m.fd200, m.junk.with_name("out.txt")), "invalid_argument",
            "{out_txt}: the output must end in .xml; its weights are written beside it, in .bin"),
    Mistake("output over the input", lambda m: ["fix", m.fd200, "-o", m.fd200],
            lambda m: reshape1.fix(m.fd200, m.fd200), "invalid_argument", "{fd200}: is one of the model's own files ({fd200}); write the fixed model to other files; the input is "
            "never modified"),
    # shapes
    Mistake("shapes: no such input", lambda m: ["shapes", m.onnx, "--shape", "nope=[1,2]"],
            lambda m: reshape1.shapes(m.onnx, shapes={"nope": "[1,2]"}), "invalid_argument",
            "<<shape[nope]>>: the model has no input named 'nope'; its inputs are 'input'; use one of those names, or "
            "#ID for an input's id"),
    Mistake("shapes: a shape that does not parse", lambda m: ["shapes", m.onnx, "--shape", "input=[1,3,x]"],
            lambda m: reshape1.shapes(m.onnx, shapes={"input": "[1,3,x]"}), "syntax",
            "<<shape[input]=[1,3,x]>>: offset 5: expected a dimension, found 'x'; dimensions look like 5, ?, 2..8, "
            "2.., ..8 or -1, optionally followed by @name"),
    Mistake("shapes: weights for an ONNX model", lambda m: ["shapes", m.onnx, "--bin", m.fd200.with_suffix(".bin")],
            lambda m: reshape1.shapes(m.onnx, model_bin=m.fd200.with_suffix(".bin")), "invalid_argument", ONNX_BIN),
    Mistake("shapes: weights not beside the .xml", lambda m: ["shapes", m.lonely], lambda m: reshape1.shapes(m.lonely),
            "io", "{lonely_bin}: the weights of {lonely} are not there (an IR's weights are looked for beside its "
            ".xml); " + WEIGHTS),
    Mistake("shapes: an IR's copy not .xml", lambda m: ["shapes", m.fd200, "-o", m.junk.with_name("out.onnx")],
            lambda m: reshape1.shapes(m.fd200, output=m.junk.with_name("out.onnx")), "invalid_argument",
            "{out_onnx}: the output must end in .xml; its weights are written beside it, in .bin"),
    Mistake("shapes: an IR's copy over the input", lambda m: ["shapes", m.fd200, "-o", m.fd200],
            lambda m: reshape1.shapes(m.fd200, output=m.fd200), "invalid_argument",
            "{fd200}: is one of the model's own files ({fd200}); write the model with its shapes to other files; the "
            "input is never modified"),
    Mistake("shapes: output over the input", lambda m: ["shapes", m.onnx, "-o", m.onnx],
            lambda m: reshape1.shapes(m.onnx, output=m.onnx), "invalid_argument",
            "{onnx}: the output is the model itself; write the model with its shapes to another file; the input is "
            "never modified"),
    Mistake("shapes: output not .onnx", lambda m: ["shapes", m.onnx, "-o", m.junk.with_name("out.txt")],
            lambda m: reshape1.shapes(m.onnx, output=m.junk.with_name("out.txt")), "invalid_argument",
            "{out_txt}: the output of an ONNX model must end in .onnx; write e.g. shapes.onnx"),
    # not a model
    Mistake("neither IR nor ONNX", lambda m: ["check", m.junk], lambda m: reshape1.check(m.junk), "bad_file",
            "{junk}: not an ONNX model: protobuf cannot parse it as a ModelProto"),
]


@pytest.fixture
def models(data_dir: pathlib.Path, tmp_path: pathlib.Path) -> Models:
    (tmp_path / "twins.xml").write_text(TWINS)
    (tmp_path / "twins.bin").write_bytes(b"")
    (tmp_path / "custom.xml").write_text(CUSTOM)
    (tmp_path / "custom.bin").write_bytes(b"")
    (tmp_path / "lonely.xml").write_bytes((data_dir / FD200).read_bytes())
    (tmp_path / "junk.txt").write_text("just some text\n")
    return Models(data_dir / FD200, tmp_path / "twins.xml", tmp_path / "custom.xml", tmp_path / "lonely.xml",
                  data_dir / ULTRAFACE, tmp_path / "junk.txt")


def expected(mistake: Mistake, m: Models, cli: bool) -> str:
    files = {"lonely": m.lonely, "lonely_bin": m.lonely.with_suffix(".bin"), "fd200": m.fd200, "junk": m.junk, "onnx": m.onnx,
             "out_onnx": m.junk.with_name("out.onnx"),
             "out_txt": m.junk.with_name("out.txt")}
    text = mistake.message
    for key, path in files.items():
        text = text.replace("{" + key + "}", str(path))
    return spelled(text, cli)


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.id for m in MISTAKES])
def test_python_refuses_it(mistake: Mistake, models: Models) -> None:
    with pytest.raises(reshape1.Error) as info:
        mistake.python(models)
    assert (info.value.code, str(info.value)) == (mistake.code, expected(mistake, models, cli=False))


@pytest.mark.skipif("RESHAPE1_CLI" not in os.environ, reason="the command line is not built")
@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.id for m in MISTAKES])
def test_the_command_line_refuses_it(mistake: Mistake, models: Models) -> None:
    args = [str(a) for a in mistake.cli(models)]
    p = subprocess.run([os.environ["RESHAPE1_CLI"], *args, "--json"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    doc = json.loads(p.stdout)
    assert (p.returncode, doc["error"]["code"], doc["error"]["message"]) == (2, mistake.code,
                                                                            expected(mistake, models, cli=True))
    # Without --json: the same message on standard error, after the command's name.
    p = subprocess.run([os.environ["RESHAPE1_CLI"], *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and p.stderr == f"reshape1 {args[0]}: {expected(mistake, models, cli=True)}\n"


def test_a_nul_in_a_text_is_shown_and_does_not_cut_the_message(models: Models) -> None:
    # The command line cannot be given a NUL (argv is C strings); Python can, and its exception message
    # is read as a C string.
    with pytest.raises(reshape1.Error) as info:
        reshape1.check_batch(models.fd200, shapes={"im\x00age": "[1,3]"})
    assert str(info.value).startswith("shapes['im\\x00age']: the model has no input named 'im\\x00age'; its inputs")
    with pytest.raises(reshape1.Error) as info:
        reshape1.check_batch(models.fd200, batch=2, layouts={"": "NC\x00HW"})
    assert str(info.value).startswith("layouts['image']=NC\\x00HW: layout 'NC\\x00HW': '\\x00' is not a dimension name")
    with pytest.raises(reshape1.Error) as info:
        reshape1.infer("[2,3\x00]", (-1,), False)
    assert str(info.value) == "input '[2,3\\x00]': offset 4: expected ',' or ']', found '\\x00'; separate dimensions with commas"


# Answers that are not errors but name an option: a note, and the hints of findings.
def test_a_shape_of_another_rank_gets_the_same_note(models: Models) -> None:
    note = "<<shape>> gives input 'x' (id 0) rank 3 ([1,3,1]); it is declared with rank 2 ([1,3])"
    report = reshape1.check_batch(models.twins, shapes={"#0": "[1,3,1]", "#1": "[1,3]"})
    assert report.notes == [spelled(note, cli=False)]
    if "RESHAPE1_CLI" in os.environ:
        p = subprocess.run([os.environ["RESHAPE1_CLI"], "check", str(models.twins), "--shape", "#0=[1,3,1]", "--shape",
                            "#1=[1,3]", "--json"], capture_output=True, text=True)
        assert json.loads(p.stdout)["notes"] == [spelled(note, cli=True)]


def test_an_op_without_a_rule_is_vouched_for_in_each_spelling(models: Models) -> None:
    hint = "if every MyCustomOp-0 layer keeps each sample apart, vouch for it with <<assume_kept=MyCustomOp>>"
    report = reshape1.check_batch(models.custom, batch=4)
    assert report.summary.verdict == "cannot_tell" and report.findings[0].hint == spelled(hint, cli=False)
    if "RESHAPE1_CLI" in os.environ:
        p = subprocess.run([os.environ["RESHAPE1_CLI"], "check", str(models.custom), "--batch", "4", "--json"],
                           capture_output=True, text=True)
        assert p.returncode == 4 and json.loads(p.stdout)["findings"][0]["hint"] == spelled(hint, cli=True)


def test_the_spelling_here_is_the_library_table() -> None:
    # The markers above are spelled by hand; the table the command line and the docs are built from must
    # agree with them, keyword for keyword.
    rows = reshape1._core._options()
    for key, (flag, keyword, _, _) in SPELLING.items():
        assert any(r[1].split(",")[-1] == flag and r[3] == keyword for r in rows), key


def test_every_keyword_of_the_table_is_a_parameter_of_its_function() -> None:
    import inspect

    functions = {"check": reshape1.check, "check --batch": reshape1.check_batch, "fix": reshape1.fix,
                 "shapes": reshape1.shapes}
    for command, _, _, keyword, _, _, _ in reshape1._core._options():
        if keyword:
            assert keyword in inspect.signature(functions[command]).parameters, (command, keyword)

#!/usr/bin/env python3
"""Peak memory of `reshape1 check` and `reshape1 fix` on a large model, against the model file's size.

Most of a real model's file is weights that no rule reads: reshape1 needs their shapes, not their
values. So its memory should follow the size of the graph, not of the weights; the issue's targets
are a peak of at most 1.3x the file's size for `check` of an ONNX model and at most 2.5x for `fix`.

The script writes into a temporary directory (or --dir) two models with the same weights (--size-mb,
default 256 MiB, in float matrices of 16 MiB):
  - an ONNX model, its protobuf written by hand here (the onnx module is not needed): input x [1,1024],
    a chain of MatMuls against initializers of 1024x4096 and 4096x1024 (raw_data) with a Relu between
    each two, then a Reshape to [1,-1] whose shape initializer (int64 raw_data) writes the batch as 1,
    output y. `check --batch 4` finds the Reshape swallowing the batch, and `fix` has one rewrite to do;
  - an OpenVINO IR (.xml + .bin) of the same chain, the .bin holding the same bytes.
It checks that reshape1 reads both as meant (`check` exits 0, `check --batch 4` exits 1 with a
swallows_batch finding, the model `fix` writes reshapes to batch 4), then runs, each in a child process
of its own,
  reshape1 check M --quiet, reshape1 check M --batch 4 --quiet, reshape1 fix M -o OUT --quiet
and prints the peak resident set (GNU time's %M, or wait4's ru_maxrss without /usr/bin/time: the
high-water mark of anonymous memory and of file pages mapped and touched, together), the peak over the
file's size, and the wall time.
While a child runs, /proc/PID/status is sampled every few milliseconds for the split of the resident
set into anonymous memory (heap: copies) and file pages (the mapped model), whose highest values are
printed beside it: a page of a mapped file counts in the resident set once it is touched, so a reader
that maps the file and reads every byte of it already costs its size.

For scale it measures two floors: `cat M > /dev/null` (a streamed read: a few pages at a time) and a
Python process that maps M and touches every page (what any mapped read of the whole file costs),
with a Python process that does nothing beside it.

The files are written just before they are read, so the runs read them from the page cache (the times
are not those of a cold disk). Everything written is removed at the end: under --dir, a directory the
script makes there, and --dir itself when it did not exist.

Usage: bench/memory/run.py [--cli build/bench/cli/reshape1] [--size-mb 256] [--dir DIR] [--timeout 300]
"""
import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import struct
import tempfile
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]
MATRIX = (1024, 4096)  # one weight: 16 MiB of float32
MATRIX_MIB = MATRIX[0] * MATRIX[1] * 4 / 2**20
TARGETS = {("onnx", "check"): 1.3, ("onnx", "check --batch 4"): 1.3, ("onnx", "fix"): 2.5}


# ---- protobuf's wire format, a message as a list of pieces (bytes, or a Weight written in its place) ----

def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1  # a negative int64 is written as its 64-bit two's complement, 10 bytes
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Weight:
    """A piece that stands for a weight matrix, written when the file is (its size is known before)."""

    def __init__(self, shape):
        self.shape = shape
        self.nbytes = shape[0] * shape[1] * 4


def size_of(pieces):
    return sum(len(p) if isinstance(p, bytes) else p.nbytes for p in pieces)


def field_varint(field, value):
    return [varint(field << 3) + varint(value)]


def field_bytes(field, pieces):
    """A length-delimited field (a string, bytes or a message) holding `pieces`."""
    if isinstance(pieces, str):
        pieces = [pieces.encode()]
    elif isinstance(pieces, (bytes, Weight)):
        pieces = [pieces]
    return [varint(field << 3 | 2) + varint(size_of(pieces))] + list(pieces)


def tensor(name, data_type, dims, raw):
    """TensorProto: dims=1, data_type=2, name=8, raw_data=9 (bytes, or a Weight)."""
    pieces = []
    for d in dims:
        pieces += field_varint(1, d)
    return pieces + field_varint(2, data_type) + field_bytes(8, name) + field_bytes(9, raw)


def value_info(name, elem_type, dims):
    """ValueInfoProto: name=1, type=2 (TypeProto.tensor_type=1: elem_type=1, shape=2: dim=1: dim_value=1)."""
    shape = []
    for d in dims:
        shape += field_bytes(1, field_varint(1, d))
    tensor_type = field_varint(1, elem_type) + field_bytes(2, shape)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def node(name, op_type, inputs, outputs):
    """NodeProto: input=1, output=2, name=3, op_type=4."""
    pieces = []
    for i in inputs:
        pieces += field_bytes(1, i)
    for o in outputs:
        pieces += field_bytes(2, o)
    return pieces + field_bytes(3, name) + field_bytes(4, op_type)


# ---- the models ----

def weights(count):
    """The chain's weight matrices, one at a time: 1024x4096 and 4096x1024 in turn (random, seeded)."""
    import numpy as np  # here only: the process that measures stays small (see measured())

    rng = np.random.default_rng(0)
    for k in range(count):
        shape = MATRIX if k % 2 == 0 else MATRIX[::-1]
        yield shape, rng.random(MATRIX[0] * MATRIX[1], dtype=np.float32).reshape(shape)


def chain_shapes(count):
    """[(input width, output width)] of each MatMul."""
    return [(MATRIX[0], MATRIX[1]) if k % 2 == 0 else (MATRIX[1], MATRIX[0]) for k in range(count)]


def write_models(directory, count):
    """Writes m.onnx, m.xml and m.bin with `count` weight matrices; returns their paths."""
    onnx_path, xml_path, bin_path = (directory / f"m.{e}" for e in ("onnx", "xml", "bin"))
    widths = chain_shapes(count)
    out_width = widths[-1][1]
    pattern = struct.pack("<2q", 1, -1)  # the batch written as 1: what fix rewrites

    # ONNX. ModelProto: ir_version=1, graph=7, opset_import=8 (OperatorSetIdProto: domain=1, version=2);
    # GraphProto: node=1, name=2, initializer=5, input=11, output=12. The weights are Weight pieces: every
    # length is known before they exist, and the file is written in one pass.
    nodes, at = [], "x"
    for k in range(count):
        nodes += field_bytes(1, node(f"matmul{k}", "MatMul", [at, f"w{k}"], [f"h{k}"]))
        at = f"h{k}"
        if k + 1 < count:
            nodes += field_bytes(1, node(f"relu{k}", "Relu", [at], [f"r{k}"]))
            at = f"r{k}"
    nodes += field_bytes(1, node("flatten", "Reshape", [at, "shape"], ["y"]))
    initializers = []
    for k, (i, o) in enumerate(widths):
        initializers += field_bytes(5, tensor(f"w{k}", 1, [i, o], Weight((i, o))))
    initializers += field_bytes(5, tensor("shape", 7, [2], pattern))
    graph = (nodes + field_bytes(2, "chain") + initializers + field_bytes(11, value_info("x", 1, [1, MATRIX[0]])) +
             field_bytes(12, value_info("y", 1, [1, out_width])))
    model = field_varint(1, 8) + field_bytes(8, field_bytes(1, "") + field_varint(2, 13)) + field_bytes(7, graph)

    # IR: the same chain, its Consts pointing into the .bin, which holds the same bytes.
    layers, edges, offset = [], [], 0

    def dims(d):
        return "".join(f"<dim>{x}</dim>" for x in d)

    def edge(src, src_port, dst, dst_port):
        edges.append(f'<edge from-layer="{src}" from-port="{src_port}" to-layer="{dst}" to-port="{dst_port}"/>')

    layers.append(f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,{MATRIX[0]}" '
                  f'element_type="f32"/><output><port id="0" precision="FP32">{dims([1, MATRIX[0]])}</port>'
                  f'</output></layer>')
    at, next_id = (0, 0), 1
    for k, (i, o) in enumerate(widths):
        w, mm = next_id, next_id + 1
        layers.append(f'<layer id="{w}" name="w{k}" type="Const" version="opset1"><data element_type="f32" '
                      f'shape="{i},{o}" offset="{offset}" size="{i * o * 4}"/><output><port id="0" '
                      f'precision="FP32">{dims([i, o])}</port></output></layer>')
        offset += i * o * 4
        layers.append(f'<layer id="{mm}" name="matmul{k}" type="MatMul" version="opset1"><data transpose_a="false" '
                      f'transpose_b="false"/><input><port id="0">{dims([1, i])}</port><port id="1">{dims([i, o])}'
                      f'</port></input><output><port id="2" precision="FP32">{dims([1, o])}</port></output></layer>')
        edge(*at, mm, 0)
        edge(w, 0, mm, 1)
        at, next_id = (mm, 2), next_id + 2
        if k + 1 < count:
            layers.append(f'<layer id="{next_id}" name="relu{k}" type="ReLU" version="opset1"><input><port id="0">'
                          f'{dims([1, o])}</port></input><output><port id="1" precision="FP32">{dims([1, o])}'
                          f'</port></output></layer>')
            edge(*at, next_id, 0)
            at, next_id = (next_id, 1), next_id + 1
    s, r, y = next_id, next_id + 1, next_id + 2
    layers.append(f'<layer id="{s}" name="shape" type="Const" version="opset1"><data element_type="i64" shape="2" '
                  f'offset="{offset}" size="16"/><output><port id="0" precision="I64"><dim>2</dim></port></output>'
                  f'</layer>')
    layers.append(f'<layer id="{r}" name="flatten" type="Reshape" version="opset1"><data special_zero="true"/>'
                  f'<input><port id="0">{dims([1, out_width])}</port><port id="1"><dim>2</dim></port></input>'
                  f'<output><port id="2" precision="FP32">{dims([1, out_width])}</port></output></layer>')
    layers.append(f'<layer id="{y}" name="y" type="Result" version="opset1"><input><port id="0">'
                  f'{dims([1, out_width])}</port></input></layer>')
    edge(*at, r, 0)
    edge(s, 0, r, 1)
    edge(r, 2, y, 0)
    xml_path.write_text('<?xml version="1.0"?>\n<net name="chain" version="11">\n<layers>\n' + "\n".join(layers) +
                        "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")

    with open(onnx_path, "wb") as f, open(bin_path, "wb") as b:
        matrices = weights(count)
        for p in model:
            if isinstance(p, Weight):
                shape, matrix = next(matrices)
                if shape != p.shape:
                    raise RuntimeError(f"a weight of {shape} where the file announces {p.shape}")
                f.write(memoryview(matrix).cast("B"))
                b.write(memoryview(matrix).cast("B"))
            else:
                f.write(p)
        b.write(pattern)
        if f.tell() != size_of(model):  # the lengths written before the data must add up to it
            raise RuntimeError(f"{onnx_path}: {f.tell()} bytes written, {size_of(model)} announced")
    return onnx_path, xml_path, bin_path


# ---- measuring ----

STATUS_FIELDS = ("RssAnon", "RssFile", "RssShmem")
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def status_kib(pid):
    """RssAnon, RssFile and RssShmem of a live process, in KiB (None once it has exited)."""
    try:
        text = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in STATUS_FIELDS:
            values[key] = int(rest.split()[0])
    return values if len(values) == len(STATUS_FIELDS) else None


def child_of(pid):
    """The pid of a process whose parent is `pid`, or None (found in /proc: the children file may be absent)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = pathlib.Path(entry.path, "stat").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:  # the fields after the command's name: state, ppid
            return int(entry.name)
    return None


def measured(argv, timeout, stdout=subprocess.DEVNULL):
    """Runs argv: its exit code (None on timeout), seconds, peak RSS (KiB), and the highest RssAnon and
    RssFile + RssShmem seen by sampling /proc (KiB; lower bounds: a peak between samples is missed).

    The peak is GNU time's %M where /usr/bin/time is, else wait4's ru_maxrss. A child that Python starts
    (vfork, or fork) counts the resident set it had before its exec: the launching Python's, so wait4's
    figure is at least that (the models are written in a process of their own to keep it small); time's
    own fork is of a small process."""
    with tempfile.NamedTemporaryFile("r") as peak_file:
        timed = TIME is not None
        full = [TIME, "-f", "%M", "-o", peak_file.name, *argv] if timed else argv
        start = time.perf_counter()
        p = subprocess.Popen(full, stdout=stdout, stderr=subprocess.DEVNULL)
        watched = None if timed else p.pid
        anon = file = 0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if watched is None:
                watched = child_of(p.pid)
            s = status_kib(watched) if watched else None
            if s:
                anon = max(anon, s["RssAnon"])
                file = max(file, s["RssFile"] + s["RssShmem"])
            if time.perf_counter() - start > timeout:
                if watched is not None and watched != p.pid:
                    os.kill(watched, 9)  # time's child, which this run started
                p.kill()
                os.wait4(p.pid, 0)
                return None, timeout, 0, anon, file
            time.sleep(0.002)
        seconds = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss
        if timed:
            lines = peak_file.read().split()
            # time writes "Command exited with non-zero status N" before %M when the command fails.
            peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
        return code, seconds, peak, anon, file


def default_cli():
    for c in ("build/bench/cli/reshape1", "build/ci/cli/reshape1"):
        if (ROOT / c).exists():
            return str(ROOT / c)
    return str(ROOT / "build/ci/cli/reshape1")


def mib(kib):
    return kib / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=default_cli(), help="the reshape1 binary (default: %(default)s)")
    ap.add_argument("--size-mb", type=int, default=256, help="the weights' size in MiB, a multiple of 16 "
                    "(rounded to one; default %(default)s)")
    ap.add_argument("--dir", help="where to write the models (default: a temporary directory)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a run may take")
    a = ap.parse_args()
    if not os.access(a.cli, os.X_OK):
        sys.exit(f"{a.cli}: not an executable; give --cli PATH")
    count = max(1, round(a.size_mb / MATRIX_MIB))
    made = None
    if a.dir:
        directory = pathlib.Path(a.dir)
        if not directory.exists():
            directory.mkdir(parents=True)
            made = directory
        work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-memory-", dir=directory))
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-memory-"))
    try:
        return run(a, count, work)
    finally:
        shutil.rmtree(made or work, ignore_errors=True)


def run(a, count, work):
    start = time.perf_counter()
    onnx_path, xml_path, bin_path = (work / f"m.{e}" for e in ("onnx", "xml", "bin"))
    sys.stdout.flush()
    pid = os.fork()  # the models are written by a child: this process's resident set stays small
    if pid == 0:
        code = 0
        try:
            write_models(work, count)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
        sys.exit("writing the models failed")
    print(f"{count} MatMuls of {MATRIX_MIB:.0f} MiB: {onnx_path.name} {onnx_path.stat().st_size / 2**20:.1f} MiB, "
          f"{xml_path.name} {xml_path.stat().st_size / 1024:.1f} KiB + {bin_path.name} "
          f"{bin_path.stat().st_size / 2**20:.1f} MiB, written in {time.perf_counter() - start:.1f} s ({a.cli})")

    # reshape1 reads them as meant (the findings printed, not --quiet).
    problems = []
    with tempfile.TemporaryFile() as out:
        rc = measured([a.cli, "check", str(onnx_path)], a.timeout)[0]
        if rc != 0:
            problems.append(f"check {onnx_path.name}: exit {rc}, expected 0")
        rc = measured([a.cli, "check", "--batch", "4", str(onnx_path)], a.timeout, stdout=out)[0]
        out.seek(0)
        if rc != 1 or b"swallows_batch" not in out.read():
            problems.append(f"check --batch 4 {onnx_path.name}: exit {rc}, expected 1 with a swallows_batch finding")
    rc = measured([a.cli, "check", str(xml_path)], a.timeout)[0]
    if rc != 0:
        problems.append(f"check {xml_path.name}: exit {rc}, expected 0")

    # The measured runs, each with the exit it should give: fix rewrites the Reshape, and the model it writes
    # reshapes to batch 4.
    rows = []
    for fmt, model, out, size in (("onnx", onnx_path, work / "fixed.onnx", onnx_path.stat().st_size),
                                  ("ir", xml_path, work / "fixed.xml",
                                   xml_path.stat().st_size + bin_path.stat().st_size)):
        for name, argv, expected in (("check", [a.cli, "check", str(model), "--quiet"], 0),
                                     ("check --batch 4", [a.cli, "check", str(model), "--batch", "4", "--quiet"], 1),
                                     ("fix", [a.cli, "fix", str(model), "-o", str(out), "--quiet"], 0)):
            rc, seconds, peak, anon, file = measured(argv, a.timeout)
            rows.append((fmt, name, size, rc, seconds, peak, anon, file))
            if rc != expected:
                problems.append(f"{name} {model.name}: exit {rc}, expected {expected}")
        rc = measured([a.cli, "check", str(out), "--batch", "4", "--quiet"], a.timeout)[0]
        if rc != 0:
            problems.append(f"check --batch 4 {out.name} (fix's output): exit {rc}, expected 0")
        for f in work.glob("fixed.*"):
            f.unlink()
    floors = []
    for name, argv, size in (
            ("cat m.onnx > /dev/null", ["cat", str(onnx_path)], onnx_path.stat().st_size),
            ("python3: map m.onnx, touch each page",
             [sys.executable, "-c", "import mmap,sys\nf=open(sys.argv[1],'rb')\nm=mmap.mmap(f.fileno(),0,"
              "access=mmap.ACCESS_READ)\ns=0\nfor i in range(0,len(m),mmap.PAGESIZE): s+=m[i]\n",
              str(onnx_path)], onnx_path.stat().st_size),
            ("python3: nothing", [sys.executable, "-c", "pass"], onnx_path.stat().st_size)):
        rc, seconds, peak, anon, file = measured(argv, a.timeout)
        floors.append(("floor", name, size, rc, seconds, peak, anon, file))

    print()
    print(f"{'model':6} {'command':38} {'file MiB':>9} {'exit':>5} {'peak MiB':>9} {'peak/size':>10} "
          f"{'anon MiB':>9} {'file MiB':>9} {'time s':>7}  target")
    missed = 0
    for fmt, name, size, rc, seconds, peak, anon, file in rows + floors:
        ratio = peak * 1024 / size
        target = TARGETS.get((fmt, name))
        verdict = ""
        if target:
            met = rc is not None and ratio <= target
            missed += not met
            verdict = f"<= {target}x: {'met' if met else 'missed'}"
        print(f"{fmt:6} {name:38} {size / 2**20:>9.1f} {'-' if rc is None else rc:>5} {mib(peak):>9.1f} "
              f"{ratio:>9.2f}x {mib(anon):>9.1f} {mib(file):>9.1f} {seconds:>7.2f}  {verdict}")
    if TIME is None:
        print(f"\n(no /usr/bin/time: a peak below {mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss):.1f} "
              "MiB is this Python's own resident set, which its children start with)")
    print(f"\npeak: {'GNU time %M' if TIME else 'wait4 ru_maxrss'}; anon, file: the highest RssAnon and RssFile + "
          "RssShmem sampled from /proc (each may peak at another moment); file MiB: the .onnx, or the .xml and the "
          ".bin together")
    for p in problems:
        print("not as meant:", p)
    print(f"targets {'all met' if not missed else f'missed: {missed}'}; "
          f"{time.perf_counter() - start:.0f} s in all")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs `reshape1 run` on real .npy files: numpy-written files of every supported dtype (when an
interpreter with numpy is available: Debian's python3-numpy), raw files, .npy patterns, and every kind of
bad input, checking exit codes, messages, that a failure leaves no output file, and the progress display
of large copies on a terminal."""
import os
import pathlib
import pty
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results, run as run_binary  # noqa: E402
import tempfile

BINARY = os.path.abspath(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
results = Results()
check = results.check


def numpy_python():
    for candidate in (sys.executable, "/usr/bin/python3"):
        if candidate and subprocess.run([candidate, "-c", "import numpy"], capture_output=True).returncode == 0:
            return candidate
    return None


def run(args, cwd):
    return run_binary(BINARY, ["run", *args], cwd=cwd)



work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-run-"))
try:
    shutil.copytree(ROOT / "examples" / "tensors", work / "examples" / "tensors")
    py = numpy_python()
    if py is None:
        check("a Python with numpy", False, "install python3-numpy (scripts/install-deps.sh does)")
    else:
        # numpy writes one file per dtype, in both byte orders and both memory orders.
        gen = r'''
import numpy as np
a = np.arange(24).reshape(2, 3, 4)
for dt in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", ">i4", ">f8", ">u2"]:
    x = (a % 2).astype(dt) if dt == "bool" else a.astype(dt)
    name = dt.replace(">", "be_")
    np.save(f"{name}.npy", x)
    np.save(f"{name}_F.npy", np.asfortranarray(x))
np.save("str_U.npy", np.array([["ab", "c", "déf"], ["", "xyz", "ü"]]))
np.save("str_S.npy", np.array([[b"ab", b"c", b"d"], [b"", b"xyz", b"q"]]))
for pdt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    np.save(f"pattern_{pdt}.npy", np.array([6, 4], dtype=pdt))
np.save("pattern_2d.npy", np.array([[6, 4]], dtype="int64"))
np.save("pattern_float.npy", np.array([6.0, 4.0]))
np.save("complex.npy", np.zeros(3, dtype=np.complex64))
np.save("object.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
for version in [(2, 0), (3, 0)]:
    with open(f"v{version[0]}.npy", "wb") as f:
        np.lib.format.write_array(f, a.astype("<i2"), version=version)
'''
        subprocess.run([py, "-c", gen], cwd=work, check=True)
        verify = r'''
import sys, numpy as np
src, out, shape = sys.argv[1], sys.argv[2], tuple(int(d) for d in sys.argv[3].split(","))
a, b = np.load(src), np.load(out)
assert b.shape == shape, (b.shape, shape)
# Same dtype, except that big-endian input is written back in the machine's (little-endian) order.
assert b.dtype == a.dtype.newbyteorder("<") or (a.dtype.kind in "US" and b.dtype.kind == a.dtype.kind), (a.dtype, b.dtype)
assert (np.ravel(a) == np.ravel(b)).all()
assert b.flags["C_CONTIGUOUS"]
'''
        for f in sorted(work.glob("*.npy")):
            if f.name.startswith(("pattern_", "complex", "object")):
                continue
            rc, out, err = run([f.name, "[6,-1]", "--special-zero", "false", "-o", f"out_{f.name}"], work)
            want = "6,1" if f.name.startswith("str_") else "6,4"
            ok = rc == 0 and subprocess.run([py, "-c", verify, f.name, f"out_{f.name}", want],
                                            cwd=work, capture_output=True).returncode == 0
            check(f"numpy dtype {f.name}", ok, f"{rc} {err}")
        for pdt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
            rc, out, err = run(["int32.npy", f"pattern_{pdt}.npy", "--special-zero", "false", "-o", "p.npy", "-q"], work)
            check(f"pattern dtype {pdt}", rc == 0 and err == "", f"{rc} {err}")
        rc, _, err = run(["int32.npy", "pattern_2d.npy", "--special-zero", "false", "-o", "p2.npy"], work)
        check("2-D pattern file", rc == 1 and "must be a 1-D tensor, got shape [1,2]" in err, err)
        rc, _, err = run(["int32.npy", "pattern_float.npy", "--special-zero", "false", "-o", "pf.npy"], work)
        check("float pattern file", rc == 1 and "element type f64 is not an integer type" in err, err)
        rc, _, err = run(["complex.npy", "[-1]", "--special-zero", "false", "-o", "c.npy"], work)
        check("complex dtype", rc == 1 and "dtype '<c8' (complex) is not supported" in err, err)
        rc, _, err = run(["object.npy", "[-1]", "--special-zero", "false", "-o", "o.npy"], work)
        check("object dtype", rc == 1 and "dtype '|O'" in err, err)
        for leftover in ("p2.npy", "pf.npy", "c.npy", "o.npy"):
            check(f"nothing written for {leftover}", not (work / leftover).exists(), "file exists")

    # The shipped examples, through the same code as the README.
    rc, out, err = run(["examples/tensors/spec_example_2.npy", "[0,-1,4]", "--special-zero", "true", "-o", "ex.npy"], work)
    check("shipped example", rc == 0 and err == "reshape1 run: f32 [2,5,5,24] -> [2,150,4] ex.npy\n", f"{rc} {err!r}")
    ex = (work / "ex.npy").read_bytes()
    src = (work / "examples/tensors/spec_example_2.npy").read_bytes()
    check("shipped example data unchanged", ex[-4800:] == src[-4800:] and len(ex) == len(src), "bytes differ")

    # Bytes after the data are left alone, as np.load leaves them: the output holds only the data.
    (work / "long.npy").write_bytes(src + b"trailing bytes")
    rc, _, err = run(["long.npy", "[0,-1]", "--special-zero", "true", "-o", "long_out.npy"], work)
    out = (work / "long_out.npy").read_bytes() if rc == 0 else b""
    check("trailing bytes after the data", rc == 0 and out.endswith(src[-4800:]) and not out.endswith(b"trailing bytes"),
          f"{rc} {err}")

    # Raw files for types numpy lacks.
    (work / "u6.bin").write_bytes(bytes([0x12, 0xF0, 0x1E, 0x10, 0, 0x80]))
    rc, _, err = run(["u6.bin", "[5,1]", "--special-zero", "false", "-o", "u6_out.bin", "--type", "u6",
                      "--shape", "[5]"], work)
    check("raw u6", rc == 0 and (work / "u6_out.bin").read_bytes() == (work / "u6.bin").read_bytes(), err)
    rc, _, err = run(["u6.bin", "[-1]", "--special-zero", "false", "-o", "u6_bad.bin", "--type", "u6",
                      "--shape", "[9]"], work)
    check("raw size mismatch", rc == 1 and "the file has 6 bytes, but a u6 tensor of shape [9] takes 9" in err, err)
    rc, _, err = run(["u6.bin", "[-1]", "--special-zero", "false", "-o", "x.bin", "--type", "u6"], work)
    check("--type without --shape", rc == 2, err)
    rc, _, err = run(["u6.bin", "[-1]", "--special-zero", "false", "-o", "x.bin", "--type", "u7", "--shape", "[5]"], work)
    check("unknown --type is a usage error", rc == 2 and "element type 'u7': unknown" in err, err)

    # Bad inputs: one line, exit 1, nothing written.
    spec = "examples/tensors/spec_example_2.npy"
    (work / "trunc.npy").write_bytes(src[:1000])
    (work / "notnpy.npy").write_bytes(b"hello")
    cases = [
        ([spec, "[7,-1]", "--special-zero", "false"], "cannot infer -1: input [2,5,5,24] has 1200 elements"),
        ([spec, "[1,2", "--special-zero", "false"], "PATTERN '[1,2': offset 4"),
        (["trunc.npy", "[-1]", "--special-zero", "false"], "but the file holds"),
        (["notnpy.npy", "[-1]", "--special-zero", "false"], "not a .npy file"),
        (["missing.npy", "[-1]", "--special-zero", "false"], "missing.npy: cannot open"),
        ([spec, "missing_pattern.npy", "--special-zero", "false"], "missing_pattern.npy: cannot open"),
        ([spec, "[-1]", "--special-zero", "false", "--pattern-type", "u8"], "value -1 does not fit u8"),
    ]
    for args, message in cases:
        rc, out, err = run([*args, "-o", "bad_out.npy"], work)
        check(f"bad input {args[:2]}", rc == 1 and message in err and err.count("\n") == 1 and out == "", f"{rc} {err!r}")
        check(f"no output for {args[:2]}", not (work / "bad_out.npy").exists(), "output exists")
    # Truncated copies of the shipped example: one clean error each, and no output.
    for n in (0, 5, 9, 40, 127, 128, 129, 1000, len(src) - 1):
        (work / "cut.npy").write_bytes(src[:n])
        rc, out, err = run(["cut.npy", "[-1]", "--special-zero", "false", "-o", "cut_out.npy"], work)
        check(f"truncated at {n}", rc == 1 and err.count("\n") == 1 and not (work / "cut_out.npy").exists(),
              f"{rc} {err!r}")
    rc, _, err = run([spec, "[-1]", "--special-zero", "false", "-o", "no/such/dir/out.npy"], work)
    check("unwritable output", rc == 1 and "cannot create a file in" in err, err)
    rc, _, err = run([spec, "[-1]", "-o", "x.npy"], work)
    check("missing --special-zero", rc == 2, err)
    rc, _, err = run([spec, "[-1]", "--special-zero", "false"], work)
    check("missing -o", rc == 2, err)

    # Progress: shown for more than 1 GiB when stderr is a terminal, never on a pipe. The input is sparse,
    # the output a real 1 GiB file, removed at once.
    with open(work / "big.bin", "wb") as f:
        f.truncate((1 << 30) + 1)
    big = ["run", "big.bin", "[-1]", "--special-zero", "false", "--type", "u8", "--shape", "[1073741825]", "-o", "big_out.bin"]
    master, slave = pty.openpty()
    p = subprocess.Popen([BINARY, *big], cwd=work, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the program has exited
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    rc = p.wait()
    check("progress on a terminal", rc == 0 and shown.endswith(
        b"\rreshape1 run: writing big_out.bin: 100%\r\nreshape1 run: u8 [1073741825] -> [1073741825] big_out.bin\r\n")
        and shown.count(b"\rreshape1 run: writing big_out.bin: ") >= 2, repr(shown[-300:]))
    check("progressed output is whole", (work / "big_out.bin").stat().st_size == (1 << 30) + 1, "size differs")
    (work / "big_out.bin").unlink()
    rc, _, err = run_binary(BINARY, big, cwd=work)
    check("no progress on a pipe", rc == 0 and err == "reshape1 run: u8 [1073741825] -> [1073741825] big_out.bin\n", repr(err))
    for f in ("big.bin", "big_out.bin"):
        (work / f).unlink()

    leftovers = [p.name for p in work.iterdir() if ".reshape1-" in p.name]
    check("no temporary files left", not leftovers, str(leftovers))
finally:
    shutil.rmtree(work)

results.finish()

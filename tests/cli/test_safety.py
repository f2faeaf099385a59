#!/usr/bin/env python3
"""What no argument or file may do to `reshape1`: crash it or hang it, make it replace a device node, change
a string dtype, leave a temporary file after a signal, print terminal escapes from a file, or print invalid
JSON. Real device nodes (mknod, as root), FIFOs, signals sent to a running `run`, non-UTF-8 argument bytes.
Also checks the exit-code table of docs/cli.md and that every documented example is quoted for any shell."""
import json
import os
import pathlib
import re
import select
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from harness import Results  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "examples" / "tensors" / "spec_example_2.npy"
results = Results()
check = results.check
codes_seen = []


def run(args, cwd=None, stdin=None, timeout=60, env=None):
    """Runs reshape1 with `args` (str or bytes); returns (exit code, stdout bytes, stderr bytes)."""
    try:
        p = subprocess.run([BINARY, *args], capture_output=True, cwd=cwd, stdin=stdin, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:  # killed: a hang is a failure of the check that made it
        return "timeout", b"", b""
    codes_seen.append(p.returncode)
    return p.returncode, p.stdout, p.stderr


def npy(descr: bytes, shape, data: bytes, fortran=False) -> bytes:
    """A .npy version 1.0 file with the header written by hand (descr as raw bytes)."""
    dims = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")" if shape else "()"
    if len(shape) > 1:
        dims = dims.replace(",)", ")")
    head = b"{'descr': '" + descr + b"', 'fortran_order': " + (b"True" if fortran else b"False") + \
        b", 'shape': " + dims.encode() + b", }"
    head += b" " * ((-(10 + len(head) + 1)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head + data


def descr_of(path) -> str:
    head = pathlib.Path(path).read_bytes()[:256].decode("latin-1")
    m = re.search(r"'descr': '([^']*)'", head)
    return m.group(1) if m else ""


def utf8_strict(b: bytes) -> bool:
    try:
        b.decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


def no_control(b: bytes) -> bool:
    """No control character other than the newline."""
    return not any(c < 0x20 and c != 0x0A or c == 0x7F for c in b)


work = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-safety-"))
try:
    shutil.copy(SPEC, work / "a.npy")
    src = (work / "a.npy").read_bytes()
    # What `run a.npy [-1]` writes: the header for shape (1200,), then the same 4800 bytes.
    rc, _, err = run(["run", "a.npy", "[-1]", "--special-zero", "false", "-o", "ref.npy"], cwd=work)
    reference = (work / "ref.npy").read_bytes()
    check("reference output", rc == 0 and reference[-4800:] == src[-4800:], err)
    base = ["run", "a.npy", "[-1]", "--special-zero", "false", "-q"]

    # ---- -o onto every kind of path -------------------------------------------------------------------
    root = os.geteuid() == 0
    if root:
        os.mknod(work / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a copy of /dev/null
        rc, _, err = run([*base, "-o", "null"], cwd=work)
        st = os.lstat(work / "null")
        check("-o a character device writes to it and leaves it a device",
              rc == 0 and stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), f"{rc} {err!r}")
    else:
        print("note: not root, the mknod checks are skipped")
    os.mkfifo(work / "fifo")
    got = []
    reader = threading.Thread(target=lambda: got.append(open(work / "fifo", "rb").read()))
    reader.start()
    rc, _, err = run([*base, "-o", "fifo"], cwd=work, timeout=30)
    reader.join(30)
    check("-o a FIFO writes through it", rc == 0 and got == [reference] and stat.S_ISFIFO(os.lstat(work / "fifo").st_mode),
          f"{rc} {err!r} {len(got[0]) if got else None}")
    os.symlink("/proc/self/fd/1", work / "to_stdout")
    rc, out, err = run([*base, "-o", "to_stdout"], cwd=work)
    check("-o a link to /proc/self/fd/1 writes to standard output",
          rc == 0 and out == reference and os.path.islink(work / "to_stdout"), f"{rc} {err!r} {len(out)}")
    rc, out, err = run([*base, "-o", "-"], cwd=work)
    check("-o - writes to standard output", rc == 0 and out == reference, f"{rc} {err!r}")

    (work / "target.npy").write_bytes(b"old")
    os.chmod(work / "target.npy", 0o640)
    os.symlink("target.npy", work / "link.npy")
    rc, _, err = run([*base, "-o", "link.npy"], cwd=work)
    check("-o a symlink replaces its target and keeps the link",
          rc == 0 and os.path.islink(work / "link.npy") and (work / "target.npy").read_bytes() == reference,
          f"{rc} {err!r}")
    check("the replaced target keeps its mode", stat.S_IMODE(os.stat(work / "target.npy").st_mode) == 0o640,
          oct(os.stat(work / "target.npy").st_mode))
    os.symlink("sub/created.npy", work / "dangling.npy")
    (work / "sub").mkdir()
    rc, _, err = run([*base, "-o", "dangling.npy"], cwd=work)
    check("-o a dangling symlink creates its target", rc == 0 and os.path.islink(work / "dangling.npy")
          and (work / "sub" / "created.npy").read_bytes() == reference, f"{rc} {err!r}")
    (work / "private.npy").write_bytes(b"old")
    os.chmod(work / "private.npy", 0o600)
    rc, _, err = run([*base, "-o", "private.npy"], cwd=work)
    check("a replaced regular file keeps its mode", rc == 0 and stat.S_IMODE(os.stat(work / "private.npy").st_mode)
          == 0o600 and (work / "private.npy").read_bytes() == reference, f"{rc} {err!r}")
    (work / "hard1.npy").write_bytes(b"old")
    os.link(work / "hard1.npy", work / "hard2.npy")
    rc, _, err = run([*base, "-o", "hard1.npy"], cwd=work)
    check("a hard link is detached, as mv does (docs/cli.md)", rc == 0 and (work / "hard2.npy").read_bytes() == b"old"
          and (work / "hard1.npy").read_bytes() == reference, err)
    (work / "adir").mkdir()
    rc, _, err = run([*base, "-o", "adir"], cwd=work)
    check("-o a directory", rc == 1 and b"adir: is a directory" in err, f"{rc} {err!r}")
    rc, _, err = run([*base, "-o", ""], cwd=work)
    check("-o '' is a usage error", rc == 2 and b"--output" in err, f"{rc} {err!r}")
    long_name = "n" * 250 + ".npy"
    rc, _, err = run([*base, "-o", long_name], cwd=work)
    check("a 254-character output name", rc == 0 and (work / long_name).read_bytes() == reference, f"{rc} {err!r}")

    # Raw input under a .npy name: a .npy file when numpy has the dtype, refused otherwise.
    (work / "f.bin").write_bytes(struct.pack("<6f", *range(6)))
    rc, _, err = run(["run", "f.bin", "[3,2]", "--special-zero", "false", "--type", "f32", "--shape", "[6]",
                      "-o", "f_out.npy"], cwd=work)
    out = (work / "f_out.npy").read_bytes() if (work / "f_out.npy").exists() else b""
    check("raw f32 written under a .npy name is .npy", rc == 0 and out.startswith(b"\x93NUMPY") and descr_of(
        work / "f_out.npy") == "<f4" and b"'shape': (3, 2)" in out and out.endswith((work / "f.bin").read_bytes()),
        f"{rc} {err!r}")
    (work / "u4.bin").write_bytes(bytes(3))
    rc, _, err = run(["run", "u4.bin", "[-1]", "--special-zero", "false", "--type", "u4", "--shape", "[6]",
                      "-o", "u4_out.npy"], cwd=work)
    check("raw u4 under a .npy name is refused", rc == 2 and b"numpy has no dtype for u4" in err
          and not (work / "u4_out.npy").exists(), f"{rc} {err!r}")

    # -o resolving to the input.
    shutil.copy(SPEC, work / "in.npy")
    os.symlink("in.npy", work / "in_link.npy")
    for target in ("in.npy", "in_link.npy", "./in.npy"):
        rc, _, err = run(["run", "in.npy", "[-1]", "--special-zero", "false", "-o", target], cwd=work)
        check(f"-o {target} naming the input is refused", rc == 2 and b"names the input file" in err
              and (work / "in.npy").read_bytes() == src, f"{rc} {err!r}")
    rc, _, err = run(["run", "in.npy", "[0,0,0,0]", "--special-zero", "true", "-o", "in.npy"], cwd=work)
    check("-o the input with nothing changed", rc == 0 and b"unchanged" in err and (work / "in.npy").read_bytes() == src,
          f"{rc} {err!r}")

    # ---- string dtypes keep their width ---------------------------------------------------------------
    def utf32(strings, width):
        return b"".join(s.encode("utf-32-le").ljust(4 * width, b"\0") for s in strings)
    (work / "u8.npy").write_bytes(npy(b"<U8", (2, 2), utf32(["ab", "c", "", "d"], 8)))
    (work / "s8.npy").write_bytes(npy(b"|S8", (2, 2), b"".join(s.ljust(8, b"\0") for s in [b"ab", b"c", b"", b"d"])))
    (work / "s4_empty.npy").write_bytes(npy(b"|S4", (0, 3), b""))
    (work / "u3_F.npy").write_bytes(npy(b">U3", (2, 2), b"".join(s.encode("utf-32-be").ljust(12, b"\0")
                                                             for s in ["a", "b", "cc", "d"]), fortran=True))
    for name, want in (("u8.npy", "<U8"), ("s8.npy", "|S8"), ("s4_empty.npy", "|S4"), ("u3_F.npy", "<U3")):
        rc, _, err = run(["run", name, "[-1]", "--special-zero", "false", "-q", "-o", "str_out.npy"], cwd=work)
        check(f"{name} keeps its dtype width", rc == 0 and descr_of(work / "str_out.npy") == want,
              f"{rc} {err!r} {descr_of(work / 'str_out.npy')}")
    rc, _, _ = run(["run", "s8.npy", "[-1]", "--special-zero", "false", "-q", "-o", "str_out.npy"], cwd=work)
    check("|S8 data bytes unchanged", (work / "str_out.npy").read_bytes()[-32:] == (work / "s8.npy").read_bytes()[-32:],
          "bytes differ")
    rc, _, _ = run(["run", "u3_F.npy", "[-1]", "--special-zero", "false", "-q", "-o", "str_out.npy"], cwd=work)
    check("Fortran big-endian U3 converted", (work / "str_out.npy").read_bytes()[-48:] == utf32(["a", "cc", "b", "d"], 3),
          (work / "str_out.npy").read_bytes()[-48:])

    # ---- non-UTF-8 and non-ASCII arguments: exit 1 or 2, valid JSON, never half a character -------------
    for label, args in (
            ("unicode minus", ["infer", "[\u2212" "1]", "[-1]", "--special-zero", "true"]),
            ("symbol ?@é", ["infer", "[?@\u00e9]", "[-1]", "--special-zero", "true"]),
            ("byte 0xFF in a shape", [b"infer", b"[2,\xff]", b"[-1]", b"--special-zero", b"true"]),
            ("byte 0xFF in a pattern", [b"infer", b"[2,3]", b"[\xff]", b"--special-zero", b"true"]),
            ("escape in a pattern", ["infer", "[2,3]", "[\x1b]0;title\x07]", "--special-zero", "true"])):
        rc, out, err = run(args)
        check(f"{label}: text exit 1", rc == 1 and out == b"" and err.count(b"\n") == 1, f"{rc} {err!r}")
        check(f"{label}: text is whole characters", utf8_strict(err) and no_control(err), repr(err))
        rc, out, err = run([*args, "--json"])
        try:
            doc = json.loads(out.decode("utf-8", errors="strict"))
        except (UnicodeDecodeError, ValueError):
            doc = None
        check(f"{label}: JSON", rc == 1 and doc is not None and "error" in doc and err == b"", f"{rc} {out!r} {err!r}")
    rc, out, err = run([b"run", b"a.npy", b"[-1]", b"--special-zero", b"false", b"-o", b"\xff\x1b[2J.npy"], cwd=work)
    check("non-UTF-8 output name", rc == 0 and utf8_strict(err) and no_control(err) and b"\\xFF\\x1B[2J.npy" in err
          and (work / os.fsdecode(b"\xff\x1b[2J.npy")).exists(), f"{rc} {err!r}")

    # ---- terminal escapes and NUL from a file ---------------------------------------------------------
    (work / "esc.npy").write_bytes(npy(b"\x1b]0;owned\x07<f4", (1,), b"\0" * 4))
    (work / "nul.npy").write_bytes(npy(b"<f\x004", (1,), b"\0" * 4))
    (work / "key.npy").write_bytes(npy(b"<f4", (1,), b"\0" * 4).replace(b"'shape'", b"'\x1b[2J'"))
    for name, shown in (("esc.npy", b"\\x1B]0;owned\\x07<f4"), ("nul.npy", b"<f\\x004"), ("key.npy", b"\\x1B[2J")):
        rc, out, err = run(["run", name, "[-1]", "--special-zero", "false", "-o", "never.npy"], cwd=work)
        check(f"{name}: escaped in the message", rc == 1 and shown in err and no_control(err), f"{rc} {err!r}")
    model = (ROOT / "tests" / "data" / "ir-models" / "face-detection-retail-0005" / "other.xml").read_bytes()
    (work / "esc.xml").write_bytes(model.replace(b'name="525"', b'name="x&#27;]0;owned&#7;\xff"'))
    shutil.copy(ROOT / "tests" / "data" / "ir-models" / "face-detection-retail-0005" / "other.bin", work / "esc.bin")
    rc, out, err = run(["check", "esc.xml"], cwd=work)
    check("check: layer name escaped in the table", rc == 0 and b"x\\x1B]0;owned\\x07\\xFF" in out
          and no_control(out) and utf8_strict(out), f"{rc} {out[:300]!r} {err!r}")
    rc, out, err = run(["check", "esc.xml", "--json"], cwd=work)
    try:
        names = [f["name"] for f in json.loads(out.decode("utf-8", errors="strict"))["findings"]]
    except (UnicodeDecodeError, ValueError, KeyError):
        names = None
    check("check --json: valid JSON with a non-UTF-8 layer name", rc == 0 and names is not None
          and "x\x1b]0;owned\x07\ufffd" in names, f"{rc} {out[:200]!r} {err!r}")

    # ---- inputs that are not regular files: refused at once, or read as a stream with - ----------------
    os.mkfifo(work / "in_fifo.npy")
    for label, path in (("/dev/zero", "/dev/zero"), ("/dev/null", "/dev/null"), ("a FIFO with no writer", "in_fifo.npy"),
                        ("a directory", "adir")):
        rc, _, err = run(["run", path, "[-1]", "--special-zero", "false", "-o", "x.npy"], cwd=work, timeout=10)
        check(f"run on {label}: refused at once", rc == 1 and b"not a regular file" in err and b"Success" not in err
              and not (work / "x.npy").exists(), f"{rc} {err!r}")
    rc, _, err = run(["check", "in_fifo.npy", "--bin", "esc.bin"], cwd=work, timeout=10)
    check("check on a FIFO: refused at once", rc == 2 and b"not a regular file" in err, f"{rc} {err!r}")
    rc, _, err = run(["run", "a.npy", "in_fifo.npy", "--special-zero", "false", "-o", "x.npy"], cwd=work, timeout=10)
    check("a FIFO pattern: refused at once", rc == 1 and b"not a regular file" in err, f"{rc} {err!r}")
    p = subprocess.run(f"cat a.npy | timeout 30 {shlex.quote(BINARY)} run - '[-1]' --special-zero false -q -o piped.npy",
                       shell=True, cwd=work, capture_output=True, timeout=60)
    check("- reads a pipe", p.returncode == 0 and (work / "piped.npy").read_bytes() == reference, p.stderr)
    with open(work / "a.npy", "rb") as f:
        rc, _, err = run(["run", "-", "[-1]", "--special-zero", "false", "-q", "-o", "redirected.npy"], cwd=work, stdin=f)
    check("- reads a redirected file", rc == 0 and (work / "redirected.npy").read_bytes() == reference, err)
    p = subprocess.run(f"timeout 10 {shlex.quote(BINARY)} run /dev/stdin '[-1]' --special-zero false -o x.npy "
                       f"< /dev/null; cat a.npy | timeout 10 {shlex.quote(BINARY)} run /dev/stdin '[-1]' "
                       "--special-zero false -o x.npy", shell=True, cwd=work, capture_output=True, timeout=60)
    check("a pipe given by name says why", b"is a FIFO (a pipe), not a regular file" in p.stderr
          and b"character device, not a regular file" in p.stderr and b"Success" not in p.stderr, p.stderr)

    # ---- signals: the temporary file goes with the process ------------------------------------------
    env = dict(os.environ, RESHAPE1_TEST_PAUSE_BEFORE_RENAME="30")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        proc = subprocess.Popen([BINARY, "run", "a.npy", "[-1]", "--special-zero", "false", "-o", "sig_out.npy"],
                                cwd=work, env=env, stderr=subprocess.PIPE)
        line = b""
        if select.select([proc.stderr], [], [], 30)[0]:
            line = proc.stderr.readline()
        temps = [q.name for q in work.iterdir() if ".reshape1-" in q.name]
        proc.send_signal(sig)
        try:
            rc = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        proc.stderr.close()
        leftovers = [q.name for q in work.iterdir() if ".reshape1-" in q.name]
        check(f"{sig.name} during a write", b"paused before the rename" in line and len(temps) == 1 and rc == -sig
              and not leftovers and not (work / "sig_out.npy").exists(), f"{line!r} {temps} {rc} {leftovers}")

    # A file-size limit (ulimit -f) reached while fix writes its .bin: SIGXFSZ ends the process as the others
    # do, with no temporary file left; with the signal ignored, write() fails with EFBIG, and the message
    # counts the bytes written (it said 0 when they did not fill a whole chunk).
    retail = ROOT / "tests" / "data" / "ir-models" / "face-detection-retail-0005" / "other.xml"
    import resource  # noqa: E402 (only here: the limit is set in the child)

    def limited(ignore):
        def child():
            resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
            if ignore:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        return child

    for ignore in (False, True):
        out_dir = work / f"fsize_{int(ignore)}"
        out_dir.mkdir()
        p = subprocess.run([BINARY, "fix", str(retail), "-o", str(out_dir / "fixed.xml"), "--quiet"],
                           capture_output=True, timeout=60, preexec_fn=limited(ignore))
        left = sorted(q.name for q in out_dir.iterdir())
        if ignore:
            check("a file-size limit, SIGXFSZ ignored: an error with the bytes written, nothing left",
                  p.returncode != 0 and b"write failed after 1048576 bytes: File too large" in p.stderr and left == [],
                  f"{p.returncode} {p.stderr[-300:]!r} {left}")
        else:
            check("a file-size limit: SIGXFSZ ends it, nothing left", p.returncode == -signal.SIGXFSZ and left == [],
                  f"{p.returncode} {p.stderr[-300:]!r} {left}")

    # fix -o through symbolic links, for both formats as for every output: each target is replaced, the links
    # stay (the IR's .xml link was replaced by a file, where its .bin link was followed).
    onnx_model = ROOT / "tests" / "data" / "onnx" / "shared_initializer.textproto"
    links = work / "fix_links"
    links.mkdir()
    for name in ("t.xml", "t.bin", "t.onnx"):
        (links / name).write_bytes(b"old")
    for name, target in (("o.xml", "t.xml"), ("o.bin", "t.bin"), ("o.onnx", "t.onnx")):
        os.symlink(target, links / name)
    rc, _, err = run(["fix", str(retail), "-o", "o.xml", "--quiet"], cwd=links)
    check("fix -o a linked .xml and .bin: the targets replaced, the links kept",
          rc == 0 and os.path.islink(links / "o.xml") and os.path.islink(links / "o.bin")
          and (links / "t.xml").read_bytes().startswith(b"<?xml") and (links / "t.bin").stat().st_size > 3,
          f"{rc} {err!r} {sorted(q.name for q in links.iterdir())}")
    from_text = pathlib.Path(BINARY).parent.parent / "tests" / "onnx_from_text"  # built with the ONNX reader
    if from_text.exists():
        subprocess.run([str(from_text), str(onnx_model), str(links / "m.onnx")], check=True)
        rc, _, err = run(["fix", "m.onnx", "-o", "o.onnx", "--quiet"], cwd=links)
        check("fix -o a linked .onnx: the target replaced, the link kept",
              rc == 0 and os.path.islink(links / "o.onnx") and (links / "t.onnx").stat().st_size > 3, f"{rc} {err!r}")

    # ---- messages -----------------------------------------------------------------------------------
    (work / "pat.npy").write_bytes(npy(b"<i8", (2,), struct.pack("<2q", 3, -1)))
    cases = [
        (["infer", "[2,3]", "[2.0,3.0]", "--special-zero", "false"], 1, b"pattern values are integers"),
        (["infer", "[2.5,3]", "[-1]", "--special-zero", "false"], 1, b"dimensions are integers"),
        (["infer", "[2,3]", "pat.npy", "--special-zero", "false"], 0, b""),
        (["infer", "[2,3]", "pat.npy", "--special-zero", "false", "--pattern-type", "i32"], 2, b"--pattern-type"),
        (["run", "a.npy", "pat.npy", "--special-zero", "false", "--pattern-type", "i32", "-o", "x.npy"], 2,
         b"--pattern-type"),
        (["infer", "[2,3]", "[6]", "--special-zero", "false", "--pattern-type", "foo"], 2, b"element type 'foo'"),
        (["infer", "[2,3]", "[6]", "--special-zero", "false", "--empty-rule", "foo"], 2, b"--empty-rule"),
        (["run", "a.npy", "[-1]", "--special-zero", "false", "--type", "u7", "--shape", "[2]", "-o", "x.npy"], 2,
         b"element type 'u7'"),
        (["run", "a.npy", "[-1]", "--special-zero", "false", "--type", "u8", "--shape", "[2,?]", "-o", "x.npy"], 2,
         b"--shape"),
        (["help"], 0, b""),
        (["help", "run"], 0, b""),
        (["help", "nothing"], 2, b"nothing"),
    ]
    for spelling, want in (("True", 0), ("TRUE", 0), ("true", 0), ("1", 0), ("False", 1), ("false", 1), ("0", 1),
                           ("fAlSe", 1)):
        cases.append((["infer", "[2,3]", "[0,-1]", "--special-zero", spelling], want, b""))
    for spelling in ("yes", "t", "", "2", "truee", "on"):
        cases.append((["infer", "[2,3]", "[0,-1]", "--special-zero", spelling], 2, b"--special-zero"))
    for args, code, message in cases:
        rc, out, err = run(args, cwd=work)
        check(f"reshape1 {shlex.join(args)}", rc == code and message in err, f"{rc} {err!r}")
    rc, out, _ = run(["infer", "[2,3]", "pat.npy", "--special-zero", "false"], cwd=work)
    check("infer with a .npy pattern", out == b"[3,2]\n", out)
    rc, out, _ = run(["infer", "[2,3]", "[0,-1]", "--special-zero", "True"], cwd=work)
    check("--special-zero True copies", out == b"[2,3]\n", out)
    rc, out, _ = run(["infer", "[2,3]", "[0,-1]", "--special-zero", "0"], cwd=work)
    check("--special-zero 0 is literal", rc == 1, out)
    rc, out, _ = run(["help"])
    check("reshape1 help lists the subcommands", all(w in out for w in (b"infer", b"run", b"check")), out)
    rc, out, _ = run(["help", "run"])
    check("reshape1 help run", b"Usage: reshape1 run" in out, out[:200])
    for cmd in ("infer", "run", "check"):
        rc, _, err = run([cmd, "--no-such-option"])
        check(f"usage errors name {cmd}", rc == 2 and err.startswith(f"reshape1 {cmd}: ".encode()), err)

    # ---- a model whose pattern has 10^12 elements: a clean error, not a hang or exit 3 ----------------
    (work / "big.xml").write_text("""<?xml version="1.0"?>
<net name="big" version="11"><layers>
 <layer id="0" name="data" type="Parameter" version="opset1"><data shape="2,3" element_type="f32"/>
  <output><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></output></layer>
 <layer id="1" name="pattern" type="Parameter" version="opset1"><data shape="1000000000000" element_type="i64"/>
  <output><port id="0" precision="I64"><dim>1000000000000</dim></port></output></layer>
 <layer id="2" name="reshape" type="Reshape" version="opset1"><data special_zero="false"/>
  <input><port id="0"><dim>2</dim><dim>3</dim></port><port id="1"><dim>1000000000000</dim></port></input>
  <output><port id="2" precision="FP32"><dim>6</dim></port></output></layer>
 <layer id="3" name="out" type="Result" version="opset1"><input><port id="0"><dim>6</dim></port></input></layer>
</layers><edges>
 <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
 <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
</edges></net>
""")
    (work / "big.bin").write_bytes(b"")
    # A failure must not take the machine's memory: cap it (ASan reserves address space, so it gets its own cap).
    asan = b"__asan_init" in pathlib.Path(BINARY).read_bytes()
    big_env = dict(os.environ)
    if asan:
        big_env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS", ""), "allocator_may_return_null=1",
                                                         "max_allocation_size_mb=2048", "hard_rss_limit_mb=3072"]))

    def cap_memory():
        if not asan:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    try:
        p = subprocess.run([BINARY, "check", "big.xml"], cwd=work, capture_output=True, timeout=30, env=big_env,
                           preexec_fn=cap_memory)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", b"", b""
    codes_seen.append(rc)
    check("a pattern of length 10^12 is a clean error (too_large)", rc == 1 and b"too_large" in out + err,
          f"{rc} {out[-300:]!r} {err!r}")

    # Out of memory (standard input is read whole: 160 MB under a 200 MB address-space cap) is an error like
    # the others: the JSON object with --json, and for check exit 2, not the 1 that means "no". ASan reserves
    # address space beyond any such cap: not there.
    if not asan:
        import resource

        def cap_small():
            resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))
        for args in (["check", "-", "--json"], ["check", "-"]):
            p = subprocess.Popen([BINARY, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=cap_small)
            try:
                chunk = bytes(1 << 20)
                for _ in range(160):
                    p.stdin.write(chunk)
                p.stdin.close()
            except BrokenPipeError:
                pass
            out, err = p.stdout.read(), p.stderr.read()
            rc = p.wait(60)
            codes_seen.append(rc)
            message = b"not enough memory: the input needs more than this process can allocate"
            if "--json" in args:
                doc = json.loads(out) if out else {}
                check("out of memory: the JSON error object, exit 2",
                      rc == 2 and doc.get("error", {}).get("code") == "out_of_memory" and err == b"", f"{rc} {out!r} {err!r}")
            else:
                check("out of memory: one line, exit 2", rc == 2 and err == b"reshape1 check: " + message + b"\n",
                      f"{rc} {err!r}")

    # ---- nothing left behind ------------------------------------------------------------------------
    leftovers = [q.name for q in work.rglob("*") if ".reshape1-" in q.name]
    check("no temporary files left", not leftovers, str(leftovers))
finally:
    shutil.rmtree(work)

# ---- the exit-code table of docs/cli.md: every row's example exits with its code ------------------------
text = (ROOT / "docs" / "cli.md").read_text()
table = text[text.index("## Exit codes"):]
rows = re.findall(r"^\| (\d) \| [^|]+\| `reshape1 ([^`]+)` \|$", table, re.M)
check("docs/cli.md exit-code table has examples for 0, 1, 2 and 4", sorted({int(c) for c, _ in rows}) == [0, 1, 2, 4], rows)
documented = set(re.findall(r"^\| (\d) \|", table, re.M))
check("docs/cli.md lists exit codes 0-4", documented == {"0", "1", "2", "3", "4"}, documented)
for code, example in rows:
    rc, _, err = run(shlex.split(example), cwd=ROOT)
    check(f"exit-code table: reshape1 {example}", rc == int(code), f"{rc} {err!r}")
check("no input ended in exit 3 (internal error) or a signal",
      all(c in (0, 1, 2, 4) for c in codes_seen if c != "timeout"), codes_seen)

# ---- every documented command is quoted for any shell: run under zsh (or bash with failglob), in an empty
# directory and in one holding a file named 2, each example's arguments must come through unchanged ------
shell = shutil.which("zsh")
lines = []
for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "tensors" / "README.md",
            ROOT / "examples" / "spec_examples.expected"]:
    for line in doc.read_text().splitlines():
        if line.startswith("$ reshape1 "):
            lines.append((doc.name, line[2:]))
for cmd in ("infer", "run", "check"):
    p = subprocess.run([BINARY, cmd, "--help"], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        m = re.search(r"(reshape1 (infer|run|check) .*)$", line)
        if m and "--help" not in m.group(1) and "Usage:" not in line:
            lines.append((f"{cmd} --help", m.group(1)))
check("documented commands found", len(lines) > 10, len(lines))
with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as with_2:
    pathlib.Path(with_2, "2").write_text("")
    for where, line in lines:
        want = shlex.split(line)
        for d in (empty, with_2):
            if shell:
                p = subprocess.run([shell, "-c", 'for a in ' + line + '; do print -r -- "$a"; done'],
                                   cwd=d, capture_output=True, text=True)
            else:
                p = subprocess.run(["bash", "-O", "failglob", "-c", 'printf "%s\\n" ' + line], cwd=d,
                                   capture_output=True, text=True)
            check(f"{where}: {line} is shell-safe", p.returncode == 0 and p.stdout.splitlines() == want,
                  f"{p.returncode} {p.stderr.strip()}")

results.finish()

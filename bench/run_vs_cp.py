#!/usr/bin/env python3
"""Whole program: `reshape1 run` on a 1 GiB .npy file versus `cp` of the same file (the I/O floor),
measured alternately in one run (median of 5 each). Target: at most 1.3x.
Usage: bench/run_vs_cp.py path/to/reshape1 [size_in_MiB] [directory]"""
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

binary = os.path.abspath(sys.argv[1])
mib = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
work = tempfile.mkdtemp(prefix="reshape1-bench-", dir=sys.argv[3] if len(sys.argv) > 3 else None)
src = os.path.join(work, "big.npy")
n = mib * (1 << 20) // 4
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 256), }" % (n // 256)
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
with open(src, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    block = bytes(range(256)) * 4096  # 1 MiB of non-zero data
    for _ in range(mib):
        f.write(block)


def timed(cmd, out):
    if os.path.exists(out):
        os.remove(out)
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t


subprocess.run(["cat", src], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
ours, cp = [], []
for _ in range(5):
    ours.append(timed([binary, "run", src, "[-1,512]", "--special-zero", "false", "-o", os.path.join(work, "a.npy"),
                       "-q"], os.path.join(work, "a.npy")))
    cp.append(timed(["cp", src, os.path.join(work, "b.npy")], os.path.join(work, "b.npy")))
subprocess.run(["rm", "-rf", work], check=True)
print(f"reshape1 run on a {mib} MiB .npy / cp of the same file: "
      f"{statistics.median(ours) / statistics.median(cp):.2f}x (target <= 1.3x; medians of 5, measured alternately)")

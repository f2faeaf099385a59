#!/usr/bin/env python3
"""package.pip: the README's Python install line, run as written in a copy of the source tree, then the
package imported from the venv it made; and the same install with pip's build isolation and no index,
which must stop at once naming the build requirement it cannot get (pyproject.toml declares them).

Usage: pip_install.py SOURCE_DIR SCRATCH_DIR"""
import os
import pathlib
import shutil
import subprocess
import sys

README_LINE = "python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation --no-index ."

source, scratch = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
readme = (source / "README.md").read_text(encoding="utf-8")
if README_LINE not in readme:
    sys.exit(f"README.md no longer shows the install line: {README_LINE}")
shutil.rmtree(scratch, ignore_errors=True)
tree = scratch / "src"
shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git", "build", ".venv", "__pycache__", "*.egg-info"))
# Debian's interpreter first on PATH, as the README asks ("python3" there is /usr/bin/python3).
env = {**os.environ, "PATH": "/usr/bin:" + os.environ.get("PATH", ""), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
run = subprocess.run(["bash", "-c", README_LINE], cwd=tree, env=env, capture_output=True, text=True)
if run.returncode != 0:
    sys.exit(f"the README's install line failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
check = subprocess.run([str(tree / ".venv" / "bin" / "python3"), "-c",
                        "import reshape1; print(reshape1.infer('[2,3,4]', '[0,-1]', True).shape)"],
                       cwd=scratch, env=env, capture_output=True, text=True)
if check.returncode != 0 or check.stdout.strip() != "[2,12]":
    sys.exit(f"the installed package does not work: {check.stdout} {check.stderr}")

isolated = scratch / "isolated"
subprocess.run(["/usr/bin/python3", "-m", "venv", str(isolated)], check=True)
# (No pip configuration: a machine's may point at a local directory of wheels.)
quiet = {k: v for k, v in env.items() if not k.startswith("PIP_")}
run = subprocess.run([str(isolated / "bin" / "pip"), "install", "--no-index", str(tree)],
                     env={**quiet, "PIP_CONFIG_FILE": os.devnull}, capture_output=True, text=True)
said = run.stdout + run.stderr
if run.returncode == 0 or "setuptools" not in said or "No matching distribution" not in said:
    sys.exit(f"pip with build isolation and no index did not stop naming setuptools ({run.returncode}):\n{said[-3000:]}")
shutil.rmtree(scratch, ignore_errors=True)
print("package.pip: the README's install line works; an isolated install without an index names setuptools")

"""Builds and installs the Python package reshape1 with CMake (no scikit-build needed).

Offline, with Debian 12's packages (scripts/install-deps.sh):

    python3 -m venv --system-site-packages .venv
    .venv/bin/pip install --no-build-isolation --no-index .

The build step configures this source tree with RESHAPE1_BUILD_PYTHON=ON for the interpreter that
runs this file, builds the extension target only, and puts it into the package.
"""
from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent.resolve()


def cmake_version() -> str:
    """The version, read from project(VERSION) in CMakeLists.txt (the C++ library's version)."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*reshape1\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text)
    if not match:
        raise RuntimeError("setup.py: no project(reshape1 VERSION x.y.z) in CMakeLists.txt")
    return match.group(1)


class CMakeExtension(Extension):
    """An extension that CMake builds (target reshape1_python)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Runs CMake for each CMakeExtension and copies the module where setuptools expects it."""

    def build_extension(self, ext: Extension) -> None:
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DRESHAPE1_BUILD_PYTHON=ON",
            "-DRESHAPE1_BUILD_TESTS=OFF",
            "-DRESHAPE1_BUILD_CLI=OFF",
            "-DRESHAPE1_INSTALL=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        # Extra configure arguments, as scikit-build and conda take them (the package test builds unoptimised).
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(min(4, os.cpu_count() or 1)))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "reshape1_python", "-j", jobs], check=True)
        built = sorted((build_dir / "python" / "reshape1").glob("_core*"))
        if not built:
            raise RuntimeError(f"setup.py: CMake built no _core module in {build_dir}")
        destination = pathlib.Path(self.get_ext_fullpath(ext.name))
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], destination)


setup(
    name="reshape1",
    version=cmake_version(),
    description="OpenVINO Reshape-1, complete and exact: shape inference and numpy reshapes",
    license="MIT",
    python_requires=">=3.10",
    install_requires=["numpy"],
    packages=["reshape1"],
    package_dir={"reshape1": "python/reshape1"},
    package_data={"reshape1": ["__init__.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("reshape1._core")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)

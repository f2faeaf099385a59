#!/usr/bin/env bash
# Installs what reshape1 needs to build, test and benchmark, from Debian 12 packages.
# help2man writes the man page; dpkg-dev (dpkg-shlibdeps) and file let CPack build the .deb and its
# dependencies; zsh checks the zsh completion.
# Run as root (or with sudo available). Installs only what is missing.
#   scripts/install-deps.sh          the build, tests and benchmarks
#   scripts/install-deps.sh --fuzz   also clang-14 and libFuzzer, for the `fuzz` preset
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev libpugixml-dev
  googletest libgtest-dev libbenchmark-dev
  python3 python3-numpy
  # the man page, the .deb and its tests, the zsh completion test
  help2man dpkg-dev file zsh
  # the Python module (RESHAPE1_BUILD_PYTHON, setup.py) and its tests
  python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pybind11 pybind11-dev
  python3-pytest python3-hypothesis mypy
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "install-deps: installing ${missing[*]}" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

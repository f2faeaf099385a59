#!/usr/bin/env bash
# Installs what reshape1 needs to build, test and benchmark, from Debian 12 packages.
# help2man writes the man page; dpkg-dev (dpkg-shlibdeps) and file let CPack build the .deb and its
# dependencies; zsh checks the zsh completion; libonnx-dev and libprotobuf-dev read ONNX models;
# emscripten and protobuf-compiler build the WebAssembly module (the wasm preset), which compiles protobuf
# and pugixml from Debian's source packages, unpacked outside the source tree by scripts/debian_sources.py.
# Then, from npm, each pinned by a committed lockfile, installed outside the source tree and reused while
# its lockfile is the committed one: ONNX Runtime for the tests (onnxruntime-node, tests/onnx/ort/, in
# $RESHAPE1_ORT_DIR, default /var/cache/reshape1/onnxruntime-node), and what the page serves (Graphviz in
# WebAssembly, web/, in $RESHAPE1_WEB_DIR, default /var/cache/reshape1/web).
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
  # ONNX models: ONNX's protobuf classes
  libonnx-dev libprotobuf-dev
  # the WebAssembly module and the page (wasm preset), and their tests: Node.js, and Debian's chromium driven
  # headless by Selenium
  emscripten protobuf-compiler chromium chromium-driver python3-selenium
)
# Node.js runs ONNX Runtime in the tests. A machine that has node and npm already (nodesource's packages,
# which Debian's npm conflicts with) keeps them.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser tests' chromedriver and Selenium reach each other at "localhost", which a minimal root (debootstrap,
# a container image) may not name: no /etc/hosts. Such a machine gets the loopback line every installed Debian has.
if ! getent hosts localhost >/dev/null; then
  echo "install-deps: naming localhost in /etc/hosts" >&2
  echo "127.0.0.1 localhost" | "${as_root[@]}" tee -a /etc/hosts >/dev/null
fi

# Debian's sources of protobuf and pugixml, at the installed versions, for the WebAssembly build.
"${as_root[@]}" /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/debian_sources.py"

# `npm ci` of SOURCE/package.json with SOURCE/package-lock.json into TARGET; false when npm cannot install
# it. TARGET's copy of the lockfile says the install is done: it is removed again when the install fails.
npm_install() {
  local source="$1" target="$2"
  cmp -s "$source/package-lock.json" "$target/package-lock.json" && [ -d "$target/node_modules" ] && return 0
  echo "install-deps: installing $(basename "$source")'s npm packages into $target" >&2
  "${as_root[@]}" mkdir -p "$target"
  "${as_root[@]}" rm -f "$target/package-lock.json"
  (cd "$target" && "${as_root[@]}" cp "$source/package.json" . && "${as_root[@]}" cp "$source/package-lock.json" . &&
   "${as_root[@]}" npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) && return 0
  "${as_root[@]}" rm -f "$target/package-lock.json"
  return 1
}

# ONNX Runtime: its install script only fetches GPU extras (the CPU library is in the package); the other
# platforms' prebuilt libraries are removed (they are most of its size).
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ort_dir="${RESHAPE1_ORT_DIR:-/var/cache/reshape1/onnxruntime-node}"
# Only the tests need it: when the npm registry cannot be reached, the build goes on and the ONNX Runtime
# tests (onnx.ort_agreement, onnx.differential) fail saying what is missing.
if ! cmp -s "$source_dir/tests/onnx/ort/package-lock.json" "$ort_dir/package-lock.json" ||
   [ ! -d "$ort_dir/node_modules/onnxruntime-node" ]; then
  if npm_install "$source_dir/tests/onnx/ort" "$ort_dir"; then
    for platform in darwin win32 linux/arm64; do
      "${as_root[@]}" rm -rf "$ort_dir"/node_modules/onnxruntime-node/bin/napi-v*/"$platform"
    done
  else
    echo "install-deps: warning: npm could not install onnxruntime-node (see above); the ONNX Runtime tests need it" >&2
  fi
fi
if [ -f "$ort_dir/package-lock.json" ] && ! node -e "require('$ort_dir/node_modules/onnxruntime-node')"; then
  echo "install-deps: warning: onnxruntime-node in $ort_dir does not load; the ONNX Runtime tests need it" >&2
fi

# The page's Graphviz (@viz-js/viz): the wasm preset copies it beside the page.
web_dir="${RESHAPE1_WEB_DIR:-/var/cache/reshape1/web}"
npm_install "$source_dir/web" "$web_dir" ||
  echo "install-deps: warning: npm could not install the page's packages (see above); the wasm preset needs them" >&2
exit 0

#!/usr/bin/env bash
# Installs what reshape1 needs to build, test and benchmark, from Debian 12 packages.
# Run as root (or with sudo available). Installs only what is missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev libpugixml-dev
  googletest libgtest-dev libbenchmark-dev
  python3 python3-numpy
)

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

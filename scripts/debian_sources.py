#!/usr/bin/python3
"""Unpacks Debian's source packages of the libraries the WebAssembly build compiles.

Debian ships protobuf and pugixml only as native binaries; the `wasm` preset compiles them from Debian's
own sources, of the very versions installed (libprotobuf-dev, libpugixml-dev): the generated ONNX classes
then match the protobuf they are compiled against. The sources are fetched with apt from this machine's
Debian mirrors, named as deb-src in a sources list and apt state of this script's own (the system's apt
configuration is not changed), and unpacked with dpkg-source (Debian's patches applied) into
DIR/<source package>, where DIR is $RESHAPE1_DEBIAN_SOURCES (default /var/cache/reshape1/debian-src).
A package already unpacked at the installed version is kept.

    scripts/debian_sources.py            (run by scripts/install-deps.sh, as root)
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

# binary package installed -> the source package the WebAssembly build compiles
PACKAGES = {"libprotobuf-dev": "protobuf", "libpugixml-dev": "pugixml"}
DEBIAN_URI = re.compile(r"https?://[^ ]*/debian(-security)?/?$")


def fail(message):
    print(f"debian_sources: {message}", file=sys.stderr)
    sys.exit(1)


def installed_source(binary):
    """(source package, version) of an installed binary package."""
    r = subprocess.run(["dpkg-query", "-W", "-f=${source:Package} ${source:Version}", binary],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        fail(f"{binary} is not installed (scripts/install-deps.sh installs it first)")
    name, version = r.stdout.split()
    return name, version


def source_lists():
    """The machine's Debian archive entries as deb-src, in deb822 form."""
    stanzas = []
    etc = pathlib.Path("/etc/apt")
    for f in sorted((etc / "sources.list.d").glob("*.sources")):
        for stanza in re.split(r"\n\s*\n", f.read_text()):
            fields = {}
            for line in stanza.splitlines():
                m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
                if m:
                    fields[m.group(1)] = m.group(2).strip()
            if fields.get("Enabled", "yes") == "no" or "deb" not in fields.get("Types", "").split():
                continue
            uris = [u for u in fields.get("URIs", "").split() if DEBIAN_URI.match(u)]
            if uris:
                stanzas.append({**fields, "Types": "deb-src", "URIs": " ".join(uris)})
    for f in [etc / "sources.list", *sorted((etc / "sources.list.d").glob("*.list"))]:
        if not f.exists():
            continue
        for line in f.read_text().splitlines():
            m = re.match(r"^deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)$", line.strip())
            if not m or not DEBIAN_URI.match(m.group(2)):
                continue
            entry = {"Types": "deb-src", "URIs": m.group(2), "Suites": m.group(3), "Components": m.group(4)}
            signed = re.search(r"signed-by=(\S+?)[\] ]", m.group(1) or "")
            if signed:
                entry["Signed-By"] = signed.group(1)
            stanzas.append(entry)
    if not stanzas:
        fail("no Debian archive in /etc/apt's sources: the WebAssembly build needs Debian's source packages")
    return "\n\n".join("\n".join(f"{k}: {v}" for k, v in s.items()) for s in stanzas) + "\n"


def main():
    root = pathlib.Path(os.environ.get("RESHAPE1_DEBIAN_SOURCES", "/var/cache/reshape1/debian-src"))
    wanted = {}
    for binary, source in PACKAGES.items():
        name, version = installed_source(binary)
        if name != source:
            fail(f"{binary} comes from the source package {name}, not {source}")
        stamp = root / name / ".reshape1-version"
        if not (stamp.exists() and stamp.read_text().strip() == version):
            wanted[name] = version
    if not wanted:
        return
    state = root / "apt"
    (state / "sources.list.d").mkdir(parents=True, exist_ok=True)
    (state / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (state / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (state / "sources.list.d" / "debian-src.sources").write_text(source_lists())
    apt = ["apt-get", "-qq", "-o", "Dir::Etc::SourceList=/dev/null",
           "-o", f"Dir::Etc::SourceParts={state / 'sources.list.d'}", "-o", f"Dir::State::Lists={state / 'lists'}",
           "-o", f"Dir::Cache={state}", "-o", "APT::Sandbox::User=root"]
    print(f"debian_sources: fetching {' '.join(f'{n}={v}' for n, v in wanted.items())} into {root}", file=sys.stderr)
    subprocess.run([*apt, "update"], check=True)
    downloads = state / "downloads"
    shutil.rmtree(downloads, ignore_errors=True)
    downloads.mkdir()
    subprocess.run([*apt, "source", "--download-only", *(f"{n}={v}" for n, v in wanted.items())],
                   cwd=downloads, check=True)
    for name, version in wanted.items():
        upstream = version.split(":")[-1]
        dsc = downloads / f"{name}_{upstream}.dsc"
        if not dsc.exists():
            fail(f"apt fetched no {dsc.name}")
        target = root / name
        unpacking = root / f".{name}.unpacking"
        shutil.rmtree(unpacking, ignore_errors=True)
        subprocess.run(["dpkg-source", "--no-check", "-x", str(dsc), str(unpacking)], check=True,
                       stdout=subprocess.DEVNULL)
        (unpacking / ".reshape1-version").write_text(version + "\n")
        shutil.rmtree(target, ignore_errors=True)
        unpacking.rename(target)  # the tree appears whole or not at all
    shutil.rmtree(downloads, ignore_errors=True)
    for tarball in root.glob("*.orig.tar.*"):  # dpkg-source leaves a link to each original tarball beside
        tarball.unlink()


if __name__ == "__main__":
    main()

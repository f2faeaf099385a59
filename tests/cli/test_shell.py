#!/usr/bin/env python3
"""The tool as a Debian user meets it: --version, the bash and zsh completions (`reshape1 --completion
SHELL`, exercised in bash as the shell would call them; zsh's checked for syntax when zsh is present), and
the generated man page, which must document every subcommand.
Usage: test_shell.py path/to/reshape1 path/to/reshape1.1.gz-or-empty"""
import gzip
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from harness import Results, run

BINARY = str(pathlib.Path(sys.argv[1]).resolve())
MAN = sys.argv[2] if len(sys.argv) > 2 else ""
r = Results()
scratch = pathlib.Path(tempfile.mkdtemp(prefix="reshape1-shell-"))

rc, out, _ = run(BINARY, ["--version"])
r.check("--version", rc == 0 and out.startswith("reshape1 ") and out.count(".") == 2, repr(out))
version = out.split()[-1] if out else ""

rc, bash_script, err = run(BINARY, ["--completion", "bash"])
r.check("--completion bash", rc == 0 and "complete -o filenames -F _reshape1 reshape1" in bash_script, err)
rc, zsh_script, err = run(BINARY, ["--completion", "zsh"])
r.check("--completion zsh", rc == 0 and zsh_script.startswith("#compdef reshape1\n"), err)
rc, _, err = run(BINARY, ["--completion", "fish"])
r.check("--completion fish is a usage error", rc == 2 and "fish" in err, err)
(scratch / "reshape1.bash").write_text(bash_script)
(scratch / "_reshape1").write_text(zsh_script)
(scratch / "data.npy").write_text("")
(scratch / "model.xml").write_text("")


def complete(*words):
    """What bash offers for the last of `words` (the word being typed, possibly empty)."""
    line = " ".join(f"'{w}'" for w in ("reshape1", *words))
    script = (f"source {scratch / 'reshape1.bash'}; COMP_WORDS=({line}); COMP_CWORD={len(words)}; "
              "_reshape1; printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                       cwd=scratch, timeout=30)
    return sorted(x for x in p.stdout.split("\n") if x)


for words, want in [
    (("",), ["check", "fix", "help", "infer", "run", "shapes"]),
    (("shapes", "--"), ["--bin", "--help", "--json", "--output", "--quiet", "--shape"]),
    (("i",), ["infer"]),
    (("--",), ["--completion", "--help", "--version"]),
    (("--completion", ""), ["bash", "zsh"]),
    (("infer", "--special-zero", ""), ["false", "true"]),
    (("infer", "--empty-rule", "t"), ["tensorflow"]),
    (("infer", "--pattern-type", "i"), ["i16", "i32", "i4", "i64", "i8"]),
    (("run", "--th"), ["--threads"]),
    (("run", "--type", "bf"), ["bf16"]),
    (("run", "-o", "da"), ["data.npy"]),
    (("run", "d"), ["data.npy"]),
    (("check", "--quiet", "m"), ["model.xml"]),
    (("check", "--"), ["--assume-constant", "--assume-kept", "--base-dir", "--batch", "--bin", "--dot", "--format", "--help", "--json", "--layout", "--list-ops", "--quiet", "--shape"]),
]:
    got = complete(*words)
    r.check(f"bash completion of {' '.join(words)!r}", got == want, f"{got}, want {want}")

# Every option that a subcommand's --help lists is offered by the bash completion.
for sub in ("infer", "run", "check", "fix", "shapes"):
    _, help_text, _ = run(BINARY, [sub, "--help"])
    listed = {tok.rstrip(",") for line in help_text.splitlines() if line.startswith("  -")
              for tok in line.split()[0].split(",") if tok.startswith("-")}
    offered = set(complete(sub, "-"))
    r.check(f"bash completion offers every option of {sub}", listed <= offered, f"missing {sorted(listed - offered)}")

zsh = shutil.which("zsh")
if zsh:
    p = subprocess.run([zsh, "-n", str(scratch / "_reshape1")], capture_output=True, text=True, timeout=30)
    r.check("zsh completion parses", p.returncode == 0, p.stderr)
    # Loaded through compinit as zsh loads vendor completions: the function is found and defined.
    p = subprocess.run([zsh, "-f", "-c", f"fpath=({scratch} $fpath); autoload -U compinit; compinit -u -D; "
                        "print -r -- ${_comps[reshape1]}"], capture_output=True, text=True, timeout=60)
    r.check("zsh compinit registers _reshape1", p.stdout.strip() == "_reshape1", p.stdout + p.stderr)

if MAN:
    page = gzip.decompress(pathlib.Path(MAN).read_bytes()).decode()
    r.check("man page: name and version", page.startswith(".\\\"") and f'"reshape1 {version}"' in page, page[:300])
    for sub in ("infer", "run", "check", "fix", "shapes"):
        r.check(f"man page documents {sub}", f'.SS "reshape1 {sub}"' in page and f"reshape1 {sub} [OPTIONS]" in page)

shutil.rmtree(scratch)
r.finish()

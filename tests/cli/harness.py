"""Shared helpers of the CLI tests: run the built binary, count checks, print the closing line."""
import subprocess
import sys


def run(binary, args, cwd=None, timeout=120):
    """Runs `binary args...`; returns (exit code, stdout, stderr)."""
    p = subprocess.run([binary, *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


class Results:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failures.append(f"{name}: {detail}")

    def finish(self):
        for f in self.failures:
            print("FAIL", f)
        print(f"{self.passed} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures else 0)

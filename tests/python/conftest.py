"""pytest configuration: every test file named on the command line (ctest names each) must contribute
tests, so that a renamed test or a file that collects nothing fails instead of passing silently."""
from __future__ import annotations

import os
import pathlib

import pytest
from hypothesis import settings

# No example database in the source tree: every run draws fresh examples (the seed is printed on failure).
settings.register_profile("reshape1", database=None, print_blob=True)
settings.load_profile("reshape1")


def pytest_collection_finish(session: pytest.Session) -> None:
    files = {pathlib.Path(str(item.fspath)).name for item in session.items}
    asked = [pathlib.Path(a.split("::")[0]).name for a in session.config.args if a.split("::")[0].endswith(".py")]
    missing = sorted(name for name in asked if name not in files)
    if missing or not session.items:
        raise pytest.UsageError(f"test files that collected no tests: {missing or 'all'}")


@pytest.fixture(scope="session")
def data_dir() -> pathlib.Path:
    """tests/data of the source tree (RESHAPE1_TEST_DATA, set by ctest)."""
    return pathlib.Path(os.environ.get("RESHAPE1_TEST_DATA", pathlib.Path(__file__).parents[1] / "data"))

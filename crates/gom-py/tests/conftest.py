"""Shared test data and the `gom` command the Python results are compared with.

The data are `../shared/data` beside the repository (or `GOM_TEST_DATA`); the command
is `GOM_CLI`, else the workspace's `target/debug/gom` or `target/release/gom`. A test
that needs a missing file or the command skips, or fails under
`GOM_REQUIRE_TEST_DATA=1` (as in CI, `.ci/run`).
"""

import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
DATA = pathlib.Path(os.environ.get("GOM_TEST_DATA", REPO.parent / "shared" / "data"))
REQUIRED = os.environ.get("GOM_REQUIRE_TEST_DATA") == "1"


def missing(what: str) -> None:
    """Skips the test for want of `what`, or fails it when the data are required."""
    message = f"{what} is absent"
    if REQUIRED:
        pytest.fail(f"{message} (and GOM_REQUIRE_TEST_DATA=1 requires it)")
    pytest.skip(message)


def data(relative: str) -> pathlib.Path:
    """A shared data file, which must exist."""
    path = DATA / relative
    if not path.is_file():
        missing(str(path))
    return path


def cli_path() -> pathlib.Path:
    given = os.environ.get("GOM_CLI")
    candidates = [pathlib.Path(given)] if given else [
        REPO / "target" / "debug" / "gom",
        REPO / "target" / "release" / "gom",
    ]
    for c in candidates:
        if c.is_file():
            return c
    missing("the gom command (GOM_CLI, or target/debug/gom: cargo build -p gom-cli)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def gom_cli():
    """Runs the `gom` command; returns the completed process."""
    exe = cli_path()

    def run(*args, check=True):
        done = subprocess.run(
            [str(exe), *map(str, args)], capture_output=True, text=True, timeout=300
        )
        if check and done.returncode != 0:
            raise AssertionError(f"gom {' '.join(map(str, args))}: {done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def gom_json(gom_cli):
    """The JSON a `gom` command prints on standard output."""

    def run(*args):
        return json.loads(gom_cli(*args).stdout)

    return run


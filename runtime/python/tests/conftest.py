"""Fixtures: the repository's example packages built with `scenicc build`, and an emulated device
in this process (`scenic.Emulator`) with `SCENIC_DEVICE` pointing at it.

`scenicc` is `$SCENICC`, else `scenicc` on PATH; the tests fail (not skip) without it, since a
test that cannot run must not pass.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import scenic

REPO = Path(__file__).resolve().parents[3]


def _scenicc() -> str:
    found = os.environ.get("SCENICC") or shutil.which("scenicc")
    if not found:
        pytest.fail("no scenicc: set SCENICC to the compiler binary (scripts/test-python.sh does)")
    return found


@pytest.fixture(scope="session")
def packages(tmp_path_factory):
    """examples/NAME.sn built into a package directory, per NAME, built once."""
    out = tmp_path_factory.mktemp("packages")
    built = {}

    def build(name: str) -> Path:
        if name not in built:
            target = out / name
            subprocess.run(
                [_scenicc(), "build", str(REPO / "examples" / f"{name}.sn"), "-o", str(target)],
                check=True,
                capture_output=True,
            )
            built[name] = target
        return built[name]

    return build


@pytest.fixture
def emu(monkeypatch):
    """A fresh emulated device; the paper's classes open it by default."""
    with scenic.Emulator() as e:
        monkeypatch.setenv("SCENIC_DEVICE", e.device)
        yield e

"""The package is ready to publish: `python -m build` makes a wheel and an sdist that `twine check`
passes, and the wheel holds the whole package, the console script and the pytest plugins."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: hatchling comes from the test extra, so the build needs no network
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return out


def test_the_built_wheel_and_sdist_pass_twine_check(dist: Path) -> None:
    """twine check (the README renders on PyPI, the metadata is complete) passes for both files."""
    files = sorted(str(p) for p in dist.iterdir())
    assert sorted(Path(f).suffix for f in files) == [".gz", ".whl"]
    result = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *files],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_wheel_says_stdio_and_http_and_carries_the_command_and_the_pytest_plugins(dist: Path) -> None:
    """The summary names both transports; the console script and both pytest11 plugins are declared."""
    [wheel] = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(info).decode())
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "stdio and Streamable HTTP" in metadata["Summary"]
    assert metadata.get_all("Classifier") and metadata["Keywords"]
    assert "mcptape = mcptape.entry:main" in entry_points
    assert "mcptape = mcptape.replay.pytest_plugin" in entry_points
    assert "mcptape-serve = mcptape.serve.pytest_plugin" in entry_points


def test_the_wheel_holds_every_file_of_the_package(dist: Path) -> None:
    """Every file under src/mcptape in the sdist (py.typed and stylesheets too) is in the wheel."""
    [wheel] = dist.glob("*.whl")
    [sdist] = dist.glob("*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {n for n in archive.namelist() if n.startswith("mcptape/")}
    with tarfile.open(sdist) as archive:
        in_sdist = {
            name.split("/src/", 1)[1]
            for name in archive.getnames()
            if "/src/mcptape/" in name and archive.getmember(name).isfile()
        }
    assert "mcptape/py.typed" in in_wheel
    assert in_sdist and in_sdist == in_wheel

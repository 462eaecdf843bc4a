"""`tools lock --url` on a real Streamable HTTP server, and `tools diff`'s CI outputs: GitHub
annotations, JUnit and SARIF at the line of the definition in the lock."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import PYTHON
from tests.recorder.http.helpers import free_port, wait_accepting
from tests.surface.support import WEATHER, base_lock, tools

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def locks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The base build locked over stdio, and the rug-pull build locked over HTTP."""
    folder = tmp_path_factory.mktemp("locks")
    shutil.copyfile(base_lock(tmp_path_factory), folder / "base.json")  # listed live, once per run
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, str(WEATHER), "rug", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_accepting(port)
        result = tools("lock", "--url", f"http://127.0.0.1:{port}/mcp", "-o", str(folder / "rug.json"))
        assert result.returncode == 0, result.stderr
        same = tools("lock", "--url", f"http://127.0.0.1:{port}/mcp", "-o", str(folder / "rug-again.json"))
        assert same.returncode == 0, same.stderr
    finally:
        server.terminate()
        server.wait(30)
    yield folder


def test_a_streamable_http_server_locks_like_its_stdio_build(locks: Path) -> None:
    """Locked over HTTP twice: the same bytes; against the stdio build, only the rewrite differs."""
    assert (locks / "rug.json").read_bytes() == (locks / "rug-again.json").read_bytes()
    result = tools("diff", str(locks / "base.json"), str(locks / "rug.json"), "--json")
    assert result.returncode == 1
    changes = orjson.loads(result.stdout)["changes"]
    assert [(c["tool"], c["severity"], c["path"]) for c in changes] == [
        ("get_forecast", "suspicious", "/description")
    ]
    assert changes[0]["flags"] == ["instruction", "path", "secret"]


def test_github_annotations_junit_and_sarif_point_at_the_lock_line(locks: Path, tmp_path: Path) -> None:
    """Each change is an annotation, a JUnit failure and a SARIF result at the line where the tool's
    name is in the new lock (what a pull request shows next to the committed file)."""
    junit, sarif = tmp_path / "tools.xml", tmp_path / "tools.sarif"
    new = locks / "rug.json"
    result = tools(
        "diff",
        str(locks / "base.json"),
        str(new),
        "--format",
        "github",
        "--junit",
        str(junit),
        "--sarif",
        str(sarif),
    )
    assert result.returncode == 1, result.stderr
    line = next(
        n for n, text in enumerate(new.read_text().splitlines(), 1) if text == '      "name": "get_forecast",'
    )
    annotation = result.stdout.splitlines()[0]
    assert annotation.startswith(
        f"::warning file={new},line={line},title=suspicious%3A tool get_forecast /description::"
    )
    assert "instruction, path, secret" in annotation
    assert (
        result.stdout.splitlines()[-1] == "mcptape tools diff: 1 change: 1 suspicious (1 not accepted: fail)"
    )
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "1" and suite.get("failures") == "1"
    log = orjson.loads(sarif.read_bytes())
    found = log["runs"][0]["results"]
    assert [r["ruleId"] for r in found] == ["tools-suspicious"]
    assert found[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    assert {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]} == {
        "tools-breaking",
        "tools-suspicious",
        "tools-compatible",
    }


def test_a_recorded_http_session_is_a_surface_too(locks: Path, tmp_path: Path) -> None:
    """A Streamable HTTP session recorded by `mcptape record --http-upstream` (the SDK client in its
    default mode: server/discover, 2026-07-28) diffs against the stdio lock: the rewrite is found."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.recorder.http.helpers import recording

    port = free_port()
    server = subprocess.Popen(
        [PYTHON, str(WEATHER), "rug", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    session = tmp_path / "http.jsonl"
    try:
        wait_accepting(port)
        with recording(f"http://127.0.0.1:{port}/mcp", session) as recorder:

            async def list_tools() -> None:
                async with Client(streamable_http_client(recorder.url)) as client:
                    await client.list_tools()

            anyio.run(list_tools)
    finally:
        server.terminate()
        server.wait(30)
    result = tools("diff", str(locks / "base.json"), str(session), "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    changes = orjson.loads(result.stdout)["changes"]
    assert [(c["tool"], c["severity"], c["path"]) for c in changes if c["kind"] == "tool"] == [
        ("get_forecast", "suspicious", "/description")
    ]
    assert all(c["severity"] == "compatible" for c in changes if c["kind"] == "server")

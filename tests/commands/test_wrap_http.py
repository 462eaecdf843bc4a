"""`mcptape wrap NAME --listen HOST:PORT` on an HTTP server's entry: the client, pointed at the
proxy wrap names, reaches the real server through `mcptape record --http-upstream`, and the
session is recorded; unwrap restores the file's bytes."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcptape.transcript import open_transcript
from tests.conftest import console_script
from tests.recorder.http.helpers import free_port, sdk_server, terminate, wait_accepting

pytestmark = pytest.mark.slow


def _mcptape(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run(
        [console_script(), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_a_wrapped_http_entry_reaches_its_server_through_a_recording_proxy(tmp_path: Path) -> None:
    """The url wrap writes is the proxy's; the command it prints runs that proxy; the SDK client
    lists the real server's tools through it; the exchanges are in a transcript in DIR."""
    upstream = free_port()
    server = subprocess.Popen(sdk_server(upstream), stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_accepting(upstream)
        project = tmp_path / "project"
        project.mkdir()
        config = project / ".mcp.json"
        original = json.dumps(
            {"mcpServers": {"remote": {"type": "http", "url": f"http://127.0.0.1:{upstream}/mcp"}}}, indent=2
        )
        config.write_text(original)
        listen = f"127.0.0.1:{free_port()}"
        wrapped = _mcptape(
            ["wrap", "remote", "--listen", listen, "-o", f"{tmp_path}/tapes/"], project, tmp_path
        )
        assert wrapped.returncode == 0, wrapped.stderr
        url = json.loads(config.read_text())["mcpServers"]["remote"]["url"]
        assert url == f"http://{listen}/mcp"
        [run] = [line for line in wrapped.stdout.splitlines() if "before starting the client, run: " in line]
        proxy_command = shlex.split(run.split("run: ", 1)[1])
        assert proxy_command[:3] == [console_script(), "record", "--http-upstream"]
        proxy = subprocess.Popen(proxy_command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_accepting(int(listen.rpartition(":")[2]))

            async def session() -> list[str]:
                with anyio.fail_after(60):
                    async with Client(url) as client:
                        return sorted(tool.name for tool in (await client.list_tools()).tools)

            assert "add" in anyio.run(session)
        finally:
            proxy.send_signal(signal.SIGINT)
            proxy.wait(30)
        [transcript] = (tmp_path / "tapes").glob("*.jsonl")
        channels = {event.ch for event in open_transcript(transcript).events()}
        assert {"http-in", "http-out", "in", "out"} <= channels
        unwrapped = _mcptape(["unwrap"], project, tmp_path)
        assert unwrapped.returncode == 0, unwrapped.stderr
        assert config.read_text() == original
    finally:
        terminate(server)

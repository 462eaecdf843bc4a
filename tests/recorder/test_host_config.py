"""Must show: a host launches `mcptape record -o DIR/ -- SERVER` with a minimal environment (the SDK
client, as a client config would): one clearly named file per session, in a folder that did not
exist. And recording never costs the user their server: `--fail-open`."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import anyio
import click
import orjson
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcptape.commands.record import record_command
from mcptape.recorder.options import RecordOptions, parse_fast
from tests.conftest import PYTHON, SERVERS, console_script

pytestmark = pytest.mark.slow

# A real third-party server (a console script, named for itself) and the echo tools on lite
# (tests/servers/fast/: 0.03 s of CPU to start, not 0.7): the tests whose subject is the recorder's
# folder, environment or --fail-open, not the server, run the lite one.
TIME_SERVER = [str(Path(PYTHON).parent / "mcp-server-time")]
ECHO_SERVER = [PYTHON, str(SERVERS / "fast" / "echo_tool.py")]


def host_session(args: list[str], env: dict[str, str] | None = None) -> list[str]:
    """What a client config runs: `mcptape ARGS`, started by the SDK client with only the variables
    the SDK passes by default (HOME, PATH, ...) plus the config's `env`. The tools it saw."""

    async def main() -> list[str]:
        params = StdioServerParameters(command=console_script(), args=args, env=env)
        with anyio.fail_after(60):
            async with Client(params) as client:
                return sorted(t.name for t in (await client.list_tools()).tools)

    return anyio.run(main)


def header(path: Path) -> dict[str, Any]:
    with open(path, "rb") as fh:
        value = orjson.loads(fh.readline())
    assert isinstance(value, dict)
    return value


def test_a_host_config_records_one_named_file_per_session_into_a_new_folder(tmp_path: Path) -> None:
    """Two servers, three sessions, a new folder: made 0700, a file each, named for its server."""
    tapes = tmp_path / "home" / "tapes"
    assert host_session(["record", "-o", f"{tapes}/", "--", *TIME_SERVER]) == [
        "convert_time",
        "get_current_time",
    ]
    host_session(["record", "-o", f"{tapes}/", "--", *TIME_SERVER])
    assert "echo" in host_session(["record", "-o", f"{tapes}/", "--", *ECHO_SERVER])
    assert stat.S_IMODE(tapes.stat().st_mode) == 0o700
    names = sorted(p.name for p in tapes.iterdir())
    assert len(names) == 3
    assert [n for n in names if n.startswith("mcptape-mcp-server-time-")] == names[1:]
    assert names[0].startswith("mcptape-echo_tool-")
    for path in tapes.iterdir():
        assert header(path)["command"] in (TIME_SERVER, ECHO_SERVER)


def test_mcptape_dir_given_in_the_configs_env_reaches_the_recorder(tmp_path: Path) -> None:
    """`"env": {"MCPTAPE_DIR": ...}` in the client config: no -o needed, the folder is made."""
    tapes = tmp_path / "by-env"
    host_session(["record", "--", *ECHO_SERVER], env={"MCPTAPE_DIR": str(tapes)})
    [path] = tapes.iterdir()
    assert path.name.startswith("mcptape-echo_tool-")


def test_fail_open_runs_the_server_unrecorded_with_one_line_on_stderr(tmp_path: Path) -> None:
    """A folder that cannot be made: with --fail-open the client still gets its server, one line says why."""
    errors = tmp_path / "stderr.txt"
    args = ["record", "-o", "/proc/no/such/", "--fail-open", "--", *ECHO_SERVER]

    async def main() -> list[str]:
        params = StdioServerParameters(command=console_script(), args=args)
        with errors.open("w") as errlog, anyio.fail_after(60):
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return sorted(t.name for t in (await client.list_tools()).tools)

    assert anyio.run(main) == ["add", "echo"]
    lines = [line for line in errors.read_text().splitlines() if line.startswith("mcptape:")]
    assert len(lines) == 1 and "running the server unrecorded (--fail-open)" in lines[0]


def test_by_default_a_transcript_that_cannot_be_written_fails_loudly(tmp_path: Path) -> None:
    """Without --fail-open: exit 2 and one Error line, before the server starts."""
    done = subprocess.run(
        [console_script(), "record", "-o", "/proc/no/such/", "--", *ECHO_SERVER],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith("Error: cannot create the directory /proc/no/such/")


def test_fail_open_says_its_line_on_stderr_and_keeps_stdout_the_servers(tmp_path: Path) -> None:
    """The one line goes to stderr; stdout carries only what the server wrote."""
    done = subprocess.run(
        [console_script(), "record", "-o", "/proc/no/such/", "--fail-open", "--", "printf", "protocol\\n"],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, b"protocol\n")
    assert done.stderr.decode().count("\n") == 1 and "--fail-open" in done.stderr.decode()


def test_a_name_template_names_the_file_and_a_bad_one_is_a_usage_error(tmp_path: Path) -> None:
    """--name '{server}.jsonl' gives that name; an unknown field stops before the server starts."""
    ok = subprocess.run(
        [
            console_script(),
            "record",
            "-q",
            "-o",
            f"{tmp_path}/",
            "--name",
            "{server}.jsonl",
            "--",
            *ECHO_SERVER,
        ],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "echo_tool.jsonl").is_file()
    bad = subprocess.run(
        [console_script(), "record", "-o", f"{tmp_path}/", "--name", "{tool}.jsonl", "--", *ECHO_SERVER],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "unknown field {tool}" in bad.stderr.decode()
    one_file = subprocess.run(
        [
            console_script(),
            "record",
            "-o",
            f"{tmp_path}/x.jsonl",
            "--name",
            "{server}.jsonl",
            "--",
            *ECHO_SERVER,
        ],
        input=b"",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert one_file.returncode == 2 and "--name names a new file in a directory" in one_file.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["--name", "{server}.jsonl", "--", "srv"],
        ["--name={server}-{unique}.jsonl", "-o", "d/", "srv"],
        ["--fail-open", "srv"],
        ["--fail-open=1", "srv"],
        ["--name", "--", "srv"],
    ],
    ids=" ".join,
)
def test_the_fast_path_reads_name_and_fail_open_as_click_does(args: list[str]) -> None:
    """The new options take the fast path (no click import) and read as click reads them."""
    fast = parse_fast(args)
    try:
        p = record_command.make_context("record", list(args)).params
    except click.exceptions.ClickException:
        assert fast is None
        return
    if fast is not None:
        assert (fast.name, fast.fail_open, fast.output, fast.command) == (
            p["name"],
            p["fail_open"],
            p["output"],
            list(p["command"]),
        )
    assert isinstance(fast, RecordOptions | None)

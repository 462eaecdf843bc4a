"""The probe's output folder: only the files a probe wrote there (a name it writes AND a content mark
of the probe) are removed before a run; a file under such a name that no probe wrote stops the run
before anything is touched. The same for `probe --client`'s files (`client-<case>.jsonl`,
`client-<case>.report.json`, `probe-client.json`)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from mcptape.errors import OutputError
from mcptape.probe.folder import ClientFolder, Folder
from tests.conftest import console_script

IDS = {"start", "debug-line", "batch"}


def _transcript(path: Path, header: dict[str, object]) -> None:
    head = {"mcptape": 1, "started": "2026-12-06T00:00:00.000000Z", "command": ["x"], "cwd": "/", **header}
    path.write_bytes(orjson.dumps(head) + b"\n" + b'{"t":0.1,"ch":"exit","code":0}\n')


def _probe_header(case: str) -> dict[str, object]:
    return {"probe": {"case": case, "title": "clean start", "marker": f"mcptape-probe-{case}-ab12"}}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_probe_transcript_under_another_case_name_is_the_users(tmp_path: Path) -> None:
    """corpus-x.jsonl holding start's session (its header says case start) stays; a corpus-y.jsonl an
    earlier probe wrote for corpus file y (its header says corpus-y), tools-2.jsonl (case tools) and
    start.jsonl go; the renamed kept-start.jsonl and a note stay."""
    _transcript(tmp_path / "corpus-x.jsonl", _probe_header("start"))
    _transcript(tmp_path / "corpus-y.jsonl", _probe_header("corpus-y"))
    _transcript(tmp_path / "tools-2.jsonl", _probe_header("tools"))
    _transcript(tmp_path / "start.jsonl", _probe_header("start"))
    _transcript(tmp_path / "kept-start.jsonl", _probe_header("start"))
    (tmp_path / "notes.txt").write_text("mine\n")
    kept = {
        n: b
        for n, b in _snapshot(tmp_path).items()
        if n in ("corpus-x.jsonl", "kept-start.jsonl", "notes.txt")
    }
    Folder(tmp_path, IDS).fresh()
    assert _snapshot(tmp_path) == kept


def test_a_transcript_of_another_case_under_a_name_this_run_writes_stops_it(tmp_path: Path) -> None:
    """batch.jsonl whose header says a probe recorded debug-line there is nobody's batch transcript:
    the run stops (OutputError naming it) and nothing is removed, start.jsonl included."""
    _transcript(tmp_path / "batch.jsonl", _probe_header("debug-line"))
    _transcript(tmp_path / "start.jsonl", _probe_header("start"))
    before = _snapshot(tmp_path)
    with pytest.raises(OutputError, match=r"holds batch\.jsonl, which no probe wrote there"):
        Folder(tmp_path, IDS).fresh()
    assert _snapshot(tmp_path) == before


def test_a_recorded_session_without_the_probe_header_is_never_removed(tmp_path: Path) -> None:
    """A transcript `mcptape record` wrote, named corpus-z.jsonl (not a name this run writes), stays;
    named start.jsonl, it stops the run."""
    _transcript(tmp_path / "corpus-z.jsonl", {})
    Folder(tmp_path, IDS).fresh()
    assert (tmp_path / "corpus-z.jsonl").is_file()
    (tmp_path / "corpus-z.jsonl").rename(tmp_path / "start.jsonl")
    with pytest.raises(OutputError, match=r"holds start\.jsonl"):
        Folder(tmp_path, IDS).fresh()


def _serve_header(folder: Path, case: str, out_name: str | None = None) -> dict[str, object]:
    """The header `mcptape serve` writes for the client probe's `case` (its command as the probe gives it)."""
    command = [
        "mcptape", "serve", "/rec/s.jsonl", "-q", "--report", str(folder / f"client-{case}.report.json"),
        "-o", str(folder / (out_name or f"client-{case}.jsonl")), "--overwrite",
    ]  # fmt: skip
    inject = [] if case == "start" else [case]
    if inject:
        command += ["--inject", case]
    return {
        "command": command,
        "serve": {"transcripts": ["/rec/s.jsonl"], "match": "method", "inject": inject},
    }


def test_the_client_probes_earlier_files_go_and_foreign_ones_stay(tmp_path: Path) -> None:
    """An earlier client probe's transcripts (any case), serve reports and probe-client.json go; the
    server probe's start.jsonl, a serve session the user wrote under another name and a note stay."""
    for case in ("start", "unknown-id", "invalid-utf8"):
        _transcript(tmp_path / f"client-{case}.jsonl", _serve_header(tmp_path, case))
        (tmp_path / f"client-{case}.report.json").write_bytes(
            b'{"transcripts": ["/rec/s.jsonl"], "running": false}'
        )
    report = {"client": ["c"], "transcript": "s", "out_dir": "o", "failed": False, "counts": {}, "cases": []}
    (tmp_path / "probe-client.json").write_bytes(orjson.dumps(report))
    _transcript(tmp_path / "start.jsonl", _probe_header("start"))
    _transcript(tmp_path / "client-mine.jsonl", _serve_header(tmp_path, "mine", out_name="session.jsonl"))
    (tmp_path / "notes.txt").write_text("mine\n")
    kept = {
        n: b for n, b in _snapshot(tmp_path).items() if n in ("start.jsonl", "client-mine.jsonl", "notes.txt")
    }
    ClientFolder(tmp_path, {"start", "unknown-id"}).fresh()
    assert _snapshot(tmp_path) == kept


def test_a_users_own_serve_report_under_a_client_name_stays(tmp_path: Path) -> None:
    """`mcptape serve --report client-claude.report.json` of the user's own: no client probe
    transcript beside it names it, so it is the user's, and stays."""
    (tmp_path / "client-claude.report.json").write_bytes(
        b'{"transcripts": ["/rec/s.jsonl"], "running": false}'
    )
    before = _snapshot(tmp_path)
    ClientFolder(tmp_path, {"start", "unknown-id"}).fresh()
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "name",
    ["client-start.jsonl", "client-unknown-id.report.json", "probe-client.json"],
)
def test_a_file_no_client_probe_wrote_under_its_names_stops_it(tmp_path: Path, name: str) -> None:
    """A client-start.jsonl that `mcptape record` wrote, a user's client-unknown-id.report.json or
    probe-client.json: OutputError naming it, and the earlier probe's files are not touched."""
    _transcript(tmp_path / "client-invalid-utf8.jsonl", _serve_header(tmp_path, "invalid-utf8"))
    if name.endswith(".jsonl"):
        _transcript(tmp_path / name, {})
    else:
        (tmp_path / name).write_text('{"mine": true}\n')
    before = _snapshot(tmp_path)
    with pytest.raises(OutputError, match=f"holds {name}, which no probe wrote there"):
        ClientFolder(tmp_path, {"start", "unknown-id"}).fresh()
    assert _snapshot(tmp_path) == before


def test_the_transcript_the_client_probe_serves_is_never_removed(tmp_path: Path) -> None:
    """--from an earlier run's client-start.jsonl in the same folder: it is read by this run, so it is
    not removed; this run would overwrite it, so it stops (one error, nothing touched)."""
    _transcript(tmp_path / "client-start.jsonl", _serve_header(tmp_path, "start"))
    _transcript(tmp_path / "client-unknown-id.jsonl", _serve_header(tmp_path, "unknown-id"))
    before = _snapshot(tmp_path)
    with pytest.raises(OutputError, match=r"holds client-start\.jsonl"):
        ClientFolder(tmp_path, {"start"}).fresh(keep=[tmp_path / "client-start.jsonl"])
    assert _snapshot(tmp_path) == before


def _line(message: dict[str, object]) -> str:
    return orjson.dumps({"jsonrpc": "2.0", **message}).decode() + "\n"


INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
SERVER = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "s", "version": "1"},
}
RECORDING = [
    {"t": 0.01, "ch": "in", "data": _line({"id": 1, "method": "initialize", "params": INIT})},
    {"t": 0.02, "ch": "out", "data": _line({"id": 1, "result": SERVER})},
    {"t": 0.03, "ch": "in", "data": _line({"method": "notifications/initialized"})},
    {"t": 0.04, "ch": "in", "data": _line({"id": 2, "method": "tools/list"})},
    {"t": 0.05, "ch": "out", "data": _line({"id": 2, "result": {"tools": []}})},
    {"t": 0.06, "ch": "exit", "code": 0, "signal": None},
]

CLIENT = r"""
import json, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(message):
    p.stdin.write((json.dumps(message) + "\n").encode()); p.stdin.flush()
    while "id" in message:
        line = p.stdout.readline()
        if not line:
            sys.exit(4)
        try:
            answer = json.loads(line)
        except ValueError:
            continue
        if answer.get("id") == message["id"]:
            return answer
ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
     "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}})
ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
print(len(ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]))
p.stdin.close(); p.wait()
"""


@pytest.mark.slow
def test_probe_client_keeps_only_this_runs_files(tmp_path: Path) -> None:
    """Two client probes into one folder, each running one case: after the second, its folder holds
    its own files only (the first run's case is gone), the user's note stays; a user's
    client-start.jsonl there stops the third before anything runs (Error line, exit 2)."""
    import subprocess

    recording = tmp_path / "s.jsonl"
    head = {"mcptape": 1, "started": "2026-12-06T00:00:00.000000Z", "command": ["s"], "cwd": "/"}
    recording.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in [head, *RECORDING]))
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")

    def client_probe(case: str) -> subprocess.CompletedProcess[bytes]:
        argv = [console_script(), "probe", "--client", "--from", str(recording), "-o", str(out)]
        argv += ["--case", case, "--timeout", "5", "--", sys.executable, "-c", CLIENT]
        return subprocess.run(argv, capture_output=True, timeout=120)

    first = client_probe("unknown-id")
    assert first.returncode in (0, 1), first.stderr
    assert (out / "client-unknown-id.jsonl").is_file() and (out / "client-start.report.json").is_file()
    second = client_probe("log-between-responses")
    assert second.returncode in (0, 1), second.stderr
    files = sorted(p.name for p in out.iterdir())
    runs = [f"client-{c}.{s}" for c in ("log-between-responses", "start") for s in ("jsonl", "report.json")]
    assert files == sorted(["notes.txt", "probe-client.json", *runs]), files
    (out / "client-start.jsonl").write_bytes(recording.read_bytes())  # a session of the user's
    before = _snapshot(out)
    third = client_probe("unknown-id")
    assert third.returncode == 2 and b"Traceback" not in third.stderr
    assert (
        third.stderr.decode().splitlines()[-1].startswith("Error: ") and b"client-start.jsonl" in third.stderr
    )
    assert _snapshot(out) == before

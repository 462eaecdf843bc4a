"""`mcptape probe` on the command line: report on stdout, progress on stderr, exit codes, JSON, JUnit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import orjson
import pytest

from tests.conftest import SERVERS
from tests.probe.support import PB_SERVER

pytestmark = pytest.mark.slow


def run(mcptape_bin: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [mcptape_bin, "probe", *args], cwd=cwd, capture_output=True, timeout=120, check=False
    )


def test_a_clean_server_exits_0_with_a_table_json_and_junit(tmp_path: Path, mcptape_bin: str) -> None:
    """The table goes to stdout, progress to stderr, probe.json and the JUnit file are written, exit 0."""
    proc = run(
        mcptape_bin,
        "-o",
        "out",
        "--junit",
        "probe.xml",
        "--timeout",
        "3",
        "--idle",
        "0.1",
        "--case",
        "debug-line",
        "--case",
        "batch",
        "--",
        *PB_SERVER,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    table = proc.stdout.decode()
    assert "case" in table and "verdict" in table and "what the server did" in table
    assert "\ndebug-line " in table and table.rstrip().splitlines()[-1].startswith("ok: 3 passed")
    assert b"[ 3/3]" in proc.stderr and b"transcripts in" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "batch.jsonl",  # the two hard inputs are dealt to the two shared processes
        "debug-line.jsonl",
        "probe.json",
        "start.jsonl",  # the clean start alone
        "tools.lock.json",
    ]
    suite = ET.parse(tmp_path / "probe.xml").getroot()
    assert suite.get("tests") == "3" and suite.get("failures") == "0"
    assert [c.get("name") for c in suite.iter("testcase")] == ["start", "debug-line", "batch"]
    lock = tmp_path / "out" / "tools.lock.json"
    assert f"tool surface: 1 tool listed, locked in {lock}" in table
    assert orjson.loads((tmp_path / "out" / "probe.json").read_bytes())["tools_lock"]["path"] == str(lock)


def test_the_lock_the_probe_writes_is_the_one_tools_lock_writes(tmp_path: Path, mcptape_bin: str) -> None:
    """tools.lock.json in the probe's folder holds the same tools, hashes included, as `mcptape tools
    lock -- CMD` of the same server: `tools diff` finds no change but the negotiated revision."""
    assert (
        run(mcptape_bin, "-o", "out", "--case", "debug-line", "--", *PB_SERVER, cwd=tmp_path).returncode == 0
    )
    live = subprocess.run(
        [mcptape_bin, "tools", "lock", "-o", "live.json", "--", *PB_SERVER], cwd=tmp_path, capture_output=True
    )
    assert live.returncode == 0, live.stderr
    probed = orjson.loads((tmp_path / "out" / "tools.lock.json").read_bytes())
    locked = orjson.loads((tmp_path / "live.json").read_bytes())
    assert probed["tools"] == locked["tools"] and probed["sha256"] == locked["sha256"]
    assert [t["name"] for t in probed["tools"]] == ["deploy"]
    diff = subprocess.run(
        [mcptape_bin, "tools", "diff", "live.json", "out/tools.lock.json", "--json"],
        cwd=tmp_path,
        capture_output=True,
    )
    # the one difference: the revision each negotiated (the probe asks for 2025-06-18)
    changes = orjson.loads(diff.stdout)["changes"]
    assert diff.returncode == 0 and [c["path"] for c in changes] == ["/protocolVersion"], diff.stdout


def test_a_failing_server_exits_1_and_json_names_the_failure(tmp_path: Path, mcptape_bin: str) -> None:
    """--json prints one document with every case; a defect makes the exit code 1 and a JUnit failure."""
    proc = run(
        mcptape_bin,
        "-o",
        "out",
        "--json",
        "--junit",
        "probe.xml",
        "--timeout",
        "3",
        "--case",
        "concatenated",
        "--",
        *PB_SERVER,
        "--defect",
        "concatenated",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    document = orjson.loads(proc.stdout)
    assert document == orjson.loads((tmp_path / "out" / "probe.json").read_bytes())
    cases = {c["id"]: c for c in document["cases"]}
    assert document["failed"] is True and cases["start"]["verdict"] == "pass"
    assert cases["concatenated"]["verdict"] == "FAIL" and cases["concatenated"]["executor_calls"] == 2
    assert {f["rule"] for f in cases["concatenated"]["findings"]} >= {
        "non-protocol-input",
        "exec-after-reject",
    }
    failures = list(ET.parse(tmp_path / "probe.xml").getroot().iter("failure"))
    assert len(failures) == 1 and "2 executor call(s)" in (failures[0].get("message") or "")


def test_server_bytes_in_the_table_are_escaped(tmp_path: Path, mcptape_bin: str) -> None:
    """An ANSI-coloured banner on stdout fails the start, and is shown escaped, never raw."""
    proc = run(
        mcptape_bin,
        "-o",
        "out",
        "--timeout",
        "3",
        "--case",
        "start",
        "--",
        *PB_SERVER,
        "--defect",
        "banner",
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert b"\x1b" not in proc.stdout and b"\x1b" not in proc.stderr
    assert b"\\x1b[32mpb_server 1.0 ready" in proc.stdout


def test_a_hostile_tool_name_and_answers_never_reach_the_terminal_raw(
    tmp_path: Path, mcptape_bin: str
) -> None:
    """A tool name and answers with BEL, C1 and bidi characters are escaped in the table and the JSON."""
    server = [PB_SERVER[0], str(SERVERS / "pb_hostile_names.py")]
    base = ["-o", "out", "--timeout", "3", "--idle", "0", "--case", "start"]
    table = run(mcptape_bin, *base, "--", *server, cwd=tmp_path)
    as_json = run(mcptape_bin, *base, "--json", "--", *server, cwd=tmp_path)
    for out in (table.stdout, table.stderr, as_json.stdout, (tmp_path / "out" / "probe.json").read_bytes()):
        text = out.decode()
        assert not any(c in text for c in "\x07\x1b\x9b\u202e"), text
    assert "tools/call x\\u202eevil\\x07" in table.stdout.decode()
    assert orjson.loads(as_json.stdout)["valid_request"]["tool"] == "x\u202eevil\x07"


def test_usage_errors_exit_2_with_one_line(tmp_path: Path, mcptape_bin: str) -> None:
    """Bad --args, an unknown case, an unlisted tool, a missing program: one Error line, exit 2."""
    for args, says in [
        (["--args", "{nope", "--", *PB_SERVER], b"--args is not JSON"),
        (["--args", "[1]", "--", *PB_SERVER], b"--args must be a JSON object"),
        (["--case", "nope", "--", *PB_SERVER], b"unknown case 'nope'"),
        (
            ["--tool", "nope", "--", *PB_SERVER],
            b"--tool nope: the server lists no such tool (it lists: deploy)",
        ),
        (["--", str(tmp_path / "no-such-server")], b"Error: "),
    ]:
        proc = run(mcptape_bin, "-o", "out", "--timeout", "3", *args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.decode().splitlines()
        assert [line for line in lines if line.startswith("Error: ")] == [lines[-1]] and says in proc.stderr
        assert b"Traceback" not in proc.stderr and proc.stdout == b""


def _probe_into(mcptape_bin: str, cwd: Path, *cases: str) -> subprocess.CompletedProcess[bytes]:
    """`probe -o out --case ...` of the strict test server, run in `cwd`."""
    chosen = [arg for case in cases for arg in ("--case", case)]
    return run(
        mcptape_bin, "-o", "out", "--timeout", "3", "--idle", "0.1", *chosen, "--", *PB_SERVER, cwd=cwd
    )


def test_the_output_folder_holds_this_runs_files_only_and_every_other_file_stays(
    tmp_path: Path, mcptape_bin: str
) -> None:
    """A second probe into the folder of a first one that wrote more (mrtr-1.jsonl among them)
    leaves only its own probe files there; the user's files, a probe transcript the user renamed
    included, stay byte for byte."""
    out = tmp_path / "out"
    first = _probe_into(mcptape_bin, tmp_path, "tools")
    assert first.returncode in (0, 1), first.stderr
    assert {"mrtr-1.jsonl", "tools-1.jsonl", "start.jsonl", "probe.json", "tools.lock.json"} <= {
        p.name for p in out.iterdir()
    }
    mine = {
        "mine.txt": b"not the probe's",
        "notes.jsonl": b"{}\n",
        "kept-start.jsonl": (out / "start.jsonl").read_bytes(),
    }
    for name, data in mine.items():
        (out / name).write_bytes(data)
    second = _probe_into(mcptape_bin, tmp_path, "debug-line")
    assert second.returncode == 0, second.stderr
    probe_files = ["debug-line.jsonl", "probe.json", "start.jsonl", "tools.lock.json"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*probe_files, *mine])
    for name, data in mine.items():
        assert (out / name).read_bytes() == data, name
    report = orjson.loads((out / "probe.json").read_bytes())
    assert [c["id"] for c in report["cases"]] == ["start", "debug-line"]


def test_the_files_of_a_probe_cut_off_before_its_report_are_recognised_by_their_content(
    tmp_path: Path, mcptape_bin: str
) -> None:
    """Without probe.json (a run stopped by Ctrl-C), a transcript is the probe's by its header and
    tools.lock.json by being the lock of the start.jsonl beside it: both go."""
    out = tmp_path / "out"
    assert _probe_into(mcptape_bin, tmp_path, "tools").returncode in (0, 1)
    (out / "probe.json").unlink()
    assert (out / "mrtr-1.jsonl").is_file()
    assert _probe_into(mcptape_bin, tmp_path, "debug-line").returncode == 0
    files = ["debug-line.jsonl", "probe.json", "start.jsonl", "tools.lock.json"]
    assert sorted(p.name for p in out.iterdir()) == files


def test_a_file_no_probe_wrote_under_a_name_the_probe_writes_stops_the_run(
    tmp_path: Path, mcptape_bin: str
) -> None:
    """A user's batch.jsonl, or a tools.lock.json that is not the lock of the probe transcript beside
    it, is not the probe's to overwrite: one Error line, exit 2, before anything runs; the folder is
    as it was, the previous probe's files included."""
    out = tmp_path / "out"
    assert _probe_into(mcptape_bin, tmp_path, "debug-line").returncode == 0
    (out / "batch.jsonl").write_text("my notes\n")
    for edit, theirs in ((None, "batch.jsonl"), ("tools.lock.json", "tools.lock.json")):
        if edit is not None:
            (out / "batch.jsonl").unlink()
            (out / edit).write_bytes((out / edit).read_bytes().replace(b"}", b' , "x": 1}', 1))
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        proc = _probe_into(mcptape_bin, tmp_path, "batch")
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.decode().splitlines()
        assert lines[-1].startswith("Error: ") and f"{theirs}, which no probe wrote there" in lines[-1], lines
        assert b"Traceback" not in proc.stderr and proc.stdout == b""
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before


REFUSES = (
    "import sys\n"
    "for line in sys.stdin:\n"
    '    print(\'{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}\', flush=True)\n'
)


def test_a_server_that_dies_at_start_is_one_error_line(tmp_path: Path, mcptape_bin: str) -> None:
    """A server that exits before answering initialize: one Error line naming its exit and stderr, exit 2."""
    proc = run(mcptape_bin, "-o", "out", "--", "sh", "-c", "echo cannot open db >&2; exit 3", cwd=tmp_path)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.decode().splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and errors[0].startswith(
        "Error: the server ended before answering initialize (exit 3): cannot open db"
    )
    assert b"Traceback" not in proc.stderr and proc.stdout == b""


def test_cases_not_run_after_a_failed_start_are_counted_apart(tmp_path: Path, mcptape_bin: str) -> None:
    """A server that refuses the handshake: start fails, the others are 'not run' (summary, JSON, JUnit
    skipped), and the details list the start case only."""
    refuses = [sys.executable, "-c", REFUSES]
    proc = run(mcptape_bin, "-o", "out", "--junit", "p.xml", "--case", "batch", "--", *refuses, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    table = proc.stdout.decode()
    assert table.rstrip().splitlines()[-1].startswith("FAIL: 0 passed, 0 warnings, 1 failed, 1 not run")
    assert "start (FAIL)" in table and "batch (FAIL)" not in table
    cases = {c["id"]: c for c in orjson.loads((tmp_path / "out" / "probe.json").read_bytes())["cases"]}
    assert cases["start"]["ran"] is True and cases["batch"]["ran"] is False
    suite = ET.parse(tmp_path / "p.xml").getroot()
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")

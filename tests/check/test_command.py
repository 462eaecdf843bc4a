"""`mcptape check FILE [--json]`: the report, the JSON object, exit codes 0/1/2 and bad input."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcptape.check.analyze import Analyzer
from mcptape.check.report import render_text
from mcptape.commands.check import check_command
from mcptape.transcript import Event
from mcptape.transcript.writer import new_header, write_transcript
from tests import inprocess
from tests.check.helpers import error, events, request, result
from tests.conftest import console_script

PING = request(1, "ping")


def _write(path: Path, evs: list[Event]) -> Path:
    write_transcript(path, new_header(["python", "server.py"], "/srv"), evs)
    return path


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "clean.jsonl",
        events(("in", PING), ("err", b"starting\n"), ("out", result(1)), ("exit", {"code": 0})),
    )


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "broken.jsonl",
        events(
            ("in", PING),
            ("out", result(1)),
            ("out", b"\x1b]0;pwned\x07debug: \xff connected\n"),
            ("in", b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n'),
            ("out", error(None)),
            ("exec", b'{"action":"deploy"}\n'),
            ("err", b"Traceback (most recent call last):\n  boom\n"),
            ("exit", {"code": 1, "signal": None}),
        ),
    )


def test_a_clean_transcript_exits_0_and_says_so(clean: Path) -> None:
    """Exit 0, no findings, stderr shown in its own section."""
    res = CliRunner().invoke(check_command, [str(clean)])
    assert res.exit_code == 0, res.output
    assert "Verdict: clean (no findings)" in res.output
    assert "out (server->client): none, every line is protocol" in res.output
    assert "Server stderr (1 line, 9 bytes" in res.output and "| starting" in res.output


def test_findings_exit_1_with_first_non_protocol_line_findings_and_stderr(broken: Path) -> None:
    """Exit 1; the report shows the first bad line per direction, every finding, then stderr."""
    res = CliRunner().invoke(check_command, [str(broken)])
    assert res.exit_code == 1, res.output
    out = res.output
    assert "out (server->client): line 2, byte offset 37: not valid UTF-8" in out
    assert "bytes:     \\x1b]0;pwned\\x07debug: \\xff connected" in out
    assert 'before it: line 1: {"jsonrpc":"2.0","id":1,"result":{}}' in out
    assert "in (client->server): line 2, byte offset 41: a request id must be a string or an integer" in out
    for rule in ("non-protocol-output", "invalid-message", "exec-after-reject"):
        assert rule in out
    assert out.index("Findings (3)") < out.index("Server stderr (2 lines")
    assert "| Traceback (most recent call last):" in out
    assert "\x1b" not in out and "\x07" not in out


def test_json_output_has_findings_and_first_non_protocol(broken: Path) -> None:
    """--json prints one object with the documented fields."""
    res = CliRunner().invoke(check_command, [str(broken), "--json"])
    assert res.exit_code == 1
    doc = orjson.loads(res.output)
    assert doc["clean"] is False
    first_out = doc["first_non_protocol"]["out"]
    assert (first_out["line"], first_out["offset"]) == (2, 37)
    assert first_out["raw"] == "\\x1b]0;pwned\\x07debug: \\xff connected"
    assert doc["first_non_protocol"]["in"]["line"] == 2
    assert [f["rule"] for f in doc["findings"]] == [
        "non-protocol-output",
        "invalid-message",
        "exec-after-reject",
    ]
    for finding in doc["findings"]:
        assert {"rule", "severity", "channel", "line", "offset", "raw", "message", "request_id"} <= set(
            finding
        )
    assert doc["exit"] == {"code": 1, "signal": None}
    assert doc["stderr"]["lines"] == 2


def test_json_output_of_a_clean_transcript(clean: Path) -> None:
    """A clean transcript gives no findings and null first_non_protocol in both directions."""
    res = CliRunner().invoke(check_command, [str(clean), "--json"])
    assert res.exit_code == 0
    doc = orjson.loads(res.output)
    assert doc["findings"] == []
    assert doc["first_non_protocol"] == {"out": None, "in": None}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return inprocess.run("check", *args, text=True)  # as the process gives it (tests/inprocess.py)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty: not an mcptape transcript"),
        (b'{"mcptape":1,"started":"2026-', "is not an mcptape transcript"),
        (base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"), "is not an mcptape transcript"),
        (b'{"mcptape":99,"started":"x","command":[],"cwd":"/"}\n', "is a version 99 transcript"),
    ],
    ids=["empty", "truncated", "binary", "future-version"],
)
def test_bad_input_gives_one_clear_line_and_exit_2(tmp_path: Path, content: bytes, message: str) -> None:
    """Empty, truncated, binary and future-version files: one `Error:` line on stderr, exit 2."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    proc = _run(str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("Error: ")
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    """A path that does not exist is unreadable input."""
    proc = _run(str(tmp_path / "nope.jsonl"))
    assert (proc.returncode, proc.stderr.startswith("Error: ")) == (2, True)


def test_the_console_script_exits_1_on_findings(broken: Path) -> None:
    """Through the real entry point too (not only click's test runner): the installed script."""
    proc = subprocess.run([console_script(), "check", str(broken)], capture_output=True, timeout=60)
    assert proc.returncode == 1


def test_a_transcript_cut_in_its_last_record_is_checked_with_a_note(clean: Path) -> None:
    """A recorder killed mid-write: the rest is analysed, and the report says the file was cut (a
    note, and an incomplete-capture warning: a CI gate tells a cut recording from a clean one)."""
    with open(clean, "ab") as fh:
        fh.write(b'{"t":9.0,"ch":"out","da')
    res = CliRunner().invoke(check_command, [str(clean)])
    assert res.exit_code == 1
    assert "note: transcript line 6" in res.output and "truncated last line" in res.output
    assert "incomplete-capture" in res.output and "Verdict: 1 finding (0 errors)" in res.output


def test_server_text_inside_finding_messages_is_escaped_in_text_and_json(tmp_path: Path) -> None:
    """An error message chosen by the server cannot drive the terminal through any output."""
    evil = error(1, -1, "no\x1b[2J\u202eway")
    path = _write(
        tmp_path / "evil.jsonl",
        events(
            ("in", request(1, "tools/call", {"name": "x"})),
            ("exec", b"boom\n"),
            ("out", evil),
            ("exit", {"code": 0}),
        ),
    )
    text = CliRunner().invoke(check_command, [str(path)]).output
    doc = orjson.loads(CliRunner().invoke(check_command, [str(path), "--json"]).output)
    assert "\x1b" not in text and "\u202e" not in text
    (finding,) = doc["findings"]
    assert "\x1b" not in finding["message"] and "\u202e" not in finding["message"]
    assert "no\\x1b[2J\\u202eway" in finding["message"]


def test_long_latencies_read_in_seconds_and_one_stderr_line_is_singular() -> None:
    """A 1.89 s response is `1.89 s`, not `1.89e+03 ms`; one stderr line is `1 line`."""
    analyzer = Analyzer()
    analyzer.push(0.0, "in", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n', 0)
    analyzer.push(0.5, "err", "starting\n", 1)
    analyzer.push(1.89, "out", '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n', 2)
    text = render_text(analyzer.finish())
    assert "max 1.89 s" in text and "e+" not in text
    assert "Server stderr (1 line, 9 bytes," in text


def test_a_huge_bad_line_is_cut_in_json_and_its_size_given(tmp_path: Path) -> None:
    """A 1 MB non-protocol line: `--json` carries its first 64 KiB as `raw` and the whole length as
    `raw_size` (the line itself stays in the transcript); the text report stays short too."""
    from mcptape.check.report import RAW_KEPT

    huge = b"x" * 1_000_000 + b"\n"
    path = _write(tmp_path / "huge.jsonl", events(("out", huge), ("in", PING), ("out", result(1))))
    runner = CliRunner()
    out = runner.invoke(check_command, [str(path), "--json"])
    assert out.exit_code == 1
    doc = orjson.loads(out.output)
    first = doc["first_non_protocol"]["out"]
    assert first["raw"] == "x" * RAW_KEPT and first["raw_size"] == 1_000_000
    assert doc["findings"][0]["raw"] == "x" * RAW_KEPT and doc["findings"][0]["raw_size"] == 1_000_000
    assert len(out.output) < 3 * RAW_KEPT
    text = runner.invoke(check_command, [str(path)])
    assert text.exit_code == 1 and len(text.output) < 10_000


def test_several_transcripts_get_one_report_each_a_summary_and_the_worst_exit(
    clean: Path, broken: Path, tmp_path: Path
) -> None:
    """`check a b missing`: both reports, the missing one said on stderr, a summary line, exit 2;
    without the missing one, exit 1 (findings in one)."""
    missing = tmp_path / "missing.jsonl"
    result = inprocess.run("check", str(clean), str(broken), str(missing))
    assert result.returncode == 2
    out = result.stdout.decode()
    assert out.count("mcptape check: ") == 3
    assert out.rstrip().endswith("3 transcripts: 1 clean, 1 with findings, 1 unreadable")
    assert result.stderr.decode().startswith(f"Error: {missing} does not exist")
    both = inprocess.run("check", str(clean), str(broken))
    assert both.returncode == 1
    assert both.stdout.decode().rstrip().endswith("2 transcripts: 1 clean, 1 with findings, 0 unreadable")


def test_several_transcripts_as_json_lines(clean: Path, broken: Path, tmp_path: Path) -> None:
    """`--json` with several files: one compact object per line, each naming its file."""
    missing = tmp_path / "missing.jsonl"
    runner = CliRunner()
    out = runner.invoke(check_command, ["--json", str(clean), str(broken), str(missing)])
    assert out.exit_code == 2
    docs = [orjson.loads(line) for line in out.stdout.splitlines()]
    assert [d["file"] for d in docs] == [str(clean), str(broken), str(missing)]
    assert docs[0]["clean"] is True and docs[1]["clean"] is False
    assert docs[2]["error"].startswith(f"{missing} does not exist") and "clean" not in docs[2]


def test_several_transcripts_as_json_name_each_file_as_it_is(clean: Path, tmp_path: Path) -> None:
    """A backslash in a file name stays one backslash in `file` (it is JSON: the value is the name)."""
    odd = tmp_path / "back\\slash.jsonl"
    odd.write_bytes(clean.read_bytes())
    out = CliRunner().invoke(check_command, ["--json", str(clean), str(odd)])
    assert out.exit_code == 0
    assert [orjson.loads(line)["file"] for line in out.stdout.splitlines()] == [str(clean), str(odd)]


def test_escaped_bytes_in_a_finding_are_escaped_once(tmp_path: Path) -> None:
    """The message quotes the bad line already escaped (`\\x1b`): the report shows it so, once."""
    path = _write(
        tmp_path / "esc.jsonl", events(("in", PING), ("out", b"\x1b[31mALERT\n"), ("out", result(1)))
    )
    out = CliRunner().invoke(check_command, [str(path)])
    messages = [line for line in out.output.splitlines() if "out line 1: not JSON" in line]
    assert messages and all("'\\x1b[31mALERT'" in line for line in messages), messages
    assert "\\\\x1b" not in out.output and "\x1b" not in out.output


def test_a_folder_is_every_transcript_under_it(clean: Path, broken: Path, tmp_path: Path) -> None:
    """`check DIR`: each `*.jsonl` under it (subfolders too, sorted), the summary, the worst exit;
    a folder with none is one Error line."""
    folder = tmp_path / "tapes"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(clean.read_bytes())
    (folder / "sub" / "b.jsonl").write_bytes(broken.read_bytes())
    (folder / "notes.txt").write_text("not a transcript")
    out = CliRunner().invoke(check_command, [str(folder)])
    assert out.exit_code == 1
    assert out.stdout.rstrip().endswith("2 transcripts: 1 clean, 1 with findings, 0 unreadable")
    empty = tmp_path / "empty"
    empty.mkdir()
    none = _run(str(empty))
    assert none.returncode == 2 and none.stderr.startswith(f"Error: no *.jsonl transcript under {empty}")

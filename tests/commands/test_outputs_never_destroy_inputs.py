"""Files: an output that is the input under another name never truncates it, and a failed write
leaves the output as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.commands.tapes import assert_clean_run, run, session


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    return session(
        tmp_path / "session.jsonl", {"content": [{"type": "text", "text": "api_key=Sk3cret-value"}]}
    )


@pytest.mark.parametrize("kind", ["hardlink", "symlink", "same-path"])
def test_redact_refuses_the_input_under_another_name(tmp_path: Path, recording: Path, kind: str) -> None:
    """redact -o NAME --overwrite, where NAME is the input (hard link, symlink, itself): exit 2,
    one error line, the input byte for byte as it was."""
    before = recording.read_bytes()
    other = tmp_path / "other.jsonl"
    if kind == "hardlink":
        os.link(recording, other)
    elif kind == "symlink":
        other.symlink_to(recording)
    else:
        other = recording
    result = run("redact", str(recording), "-o", str(other), "--overwrite")
    assert_clean_run(result, codes=[2])
    assert result.stderr.startswith("Error: ") and "is the input transcript" in result.stderr
    assert recording.read_bytes() == before


@pytest.mark.parametrize("name", ["report.md", "stderr.txt", "transcript.jsonl"])
def test_report_refuses_a_bundle_file_that_is_the_input(tmp_path: Path, recording: Path, name: str) -> None:
    """report -o DIR --overwrite, where DIR/NAME is a hard link to the input: exit 2, input intact."""
    before = recording.read_bytes()
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    os.link(recording, bundle / name)
    result = run("report", str(recording), "-o", str(bundle), "--overwrite")
    assert_clean_run(result, codes=[2])
    assert "is the input transcript" in result.stderr
    assert recording.read_bytes() == before


def test_overwriting_a_hard_link_of_another_file_leaves_that_file_alone(
    tmp_path: Path, recording: Path
) -> None:
    """The copy replaces the output's name (a new file renamed into place): a file the output was
    a hard link of keeps its contents, and the symlink the user named stays a symlink."""
    keep = tmp_path / "keep.txt"
    keep.write_text("someone else's data")
    out = tmp_path / "out.jsonl"
    os.link(keep, out)
    assert_clean_run(run("redact", str(recording), "-o", str(out), "--overwrite"), codes=[0])
    assert keep.read_text() == "someone else's data"
    assert b"[redacted:" in out.read_bytes() and oct(out.stat().st_mode & 0o777) == "0o600"
    target = tmp_path / "target.jsonl"
    target.write_text("old")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert_clean_run(run("redact", str(recording), "-o", str(link), "--overwrite"), codes=[0])
    assert link.is_symlink() and b"[redacted:" in target.read_bytes()


def test_a_failed_redaction_leaves_the_output_as_it_was(
    tmp_path: Path, recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that fails during the copy: the existing output is untouched, and no temporary file
    is left beside it."""
    from mcptape.errors import OutputError
    from mcptape.share import outputs
    from mcptape.share.copy import redact_file
    from mcptape.share.rules import Rules

    def full(self: outputs.Output, data: bytes) -> None:
        raise OutputError(f"cannot write {self.path}: No space left on device")

    out = tmp_path / "out.jsonl"
    out.write_text("previous copy")
    monkeypatch.setattr(outputs.Output, "write", full)
    with pytest.raises(OutputError, match="No space left"):
        redact_file(recording, out, Rules.build(), overwrite=True, environ={})
    assert out.read_text() == "previous copy"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "session.jsonl"]


def test_default_names_of_the_same_second_and_pid_differ() -> None:
    """Two recorders in the same second with the same PID (PID 1 of two containers) get two names."""
    from mcptape.recorder.paths import default_name

    names = {default_name(now=1_800_000_000.0, pid=1) for _ in range(50)}
    assert len(names) == 50
    assert all(name.startswith("mcptape-") and name.endswith(".jsonl") for name in names)


def test_a_taken_default_name_is_skipped_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the name a recorder computed exists already (another recorder created it a moment
    before), it tries a new one: the other file is untouched and this recorder still starts."""
    from mcptape.recorder import paths

    taken = tmp_path / "mcptape-20270101-000000-1-aaaaaa.jsonl"
    taken.write_text("the other recorder's session")
    candidates = iter([taken.name, taken.name, "mcptape-20270101-000000-1-bbbbbb.jsonl"])
    monkeypatch.setattr(paths, "default_name", lambda *args, **kwargs: next(candidates))
    path, fd = paths.open_recording(str(tmp_path), overwrite=True)
    os.close(fd)
    assert path == str(tmp_path / "mcptape-20270101-000000-1-bbbbbb.jsonl")
    assert taken.read_text() == "the other recorder's session"


def test_a_directory_that_cannot_take_a_file_is_one_error(tmp_path: Path) -> None:
    """record into a folder that is not writable: the reason in one sentence (as before)."""
    from mcptape.errors import OutputError
    from mcptape.recorder.paths import open_recording

    with pytest.raises(OutputError, match="cannot write"):
        open_recording(None, environ={"MCPTAPE_DIR": "/proc"})


@pytest.mark.parametrize(
    "option", [["-o", "{out}", "--overwrite"], ["--report", "{out}"]], ids=["-o", "--report"]
)
@pytest.mark.parametrize("kind", ["hardlink", "symlink", "same-path", "in-the-folder"])
def test_serve_refuses_an_output_that_is_a_recording_it_serves(
    tmp_path: Path, recording: Path, option: list[str], kind: str
) -> None:
    """serve -o NAME --overwrite or --report NAME, where NAME is a recording it serves (itself, a
    hard link, a symlink, a file of the served folder): exit 2 before serving, the recording intact
    (--report replaced it, even without --overwrite)."""
    before = recording.read_bytes()
    served = tmp_path if kind == "in-the-folder" else recording
    out = tmp_path / "other.jsonl"
    if kind == "hardlink":
        os.link(recording, out)
    elif kind == "symlink":
        out.symlink_to(recording)
    else:
        out = recording
    result = run("serve", str(served), *[a.format(out=out) for a in option])
    assert_clean_run(result, codes=[2])
    assert result.stderr.startswith("Error: ") and "is the input transcript" in result.stderr
    assert recording.read_bytes() == before

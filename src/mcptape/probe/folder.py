"""The probe's output folder (`-o DIR`): what a probe writes there is this run's only, and a file
the probe did not write is never removed nor overwritten.

Every file a probe writes into DIR is named here first (`Folder.file`), and its name must be one a
probe writes (`written_by_a_probe`: a case's transcript, `start-variations.jsonl`, `tools-N.jsonl`,
`mrtr-N.jsonl`, `http.jsonl`, `probe.json`, `tools.lock.json`). Each is recognisable by its
content, so the next run finds them without a list that a cut-off run (Ctrl-C, a kill) might not
have finished:

* a transcript: its header says a probe recorded it (`"probe": {...}`);
* `probe.json`: a probe report (`transcripts`, `cases`, `counts`);
* `tools.lock.json`: byte for byte the lock of the clean start's transcript beside it
  (`start.jsonl`, or `http.jsonl`), as the probe writes it.

Before a run (`Folder.fresh`) those of a previous probe are removed. A file left with a name the
probe writes is someone else's: the run stops before anything is removed or written (one `Error:`
line, exit 2) rather than overwrite it. Every other file in DIR stays as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson

from mcptape.errors import MCPTapeError, OutputError

REPORT_NAME = "probe.json"
LOCK_NAME = "tools.lock.json"
HTTP_NAME = "http.jsonl"
CLEAN_START_NAMES = ("start.jsonl", HTTP_NAME)  # the transcripts a probe writes its lock from
_FIXED = {REPORT_NAME, LOCK_NAME, HTTP_NAME, "start-variations.jsonl"}
_NUMBERED = re.compile(r"(tools|mrtr)-[0-9]+\.jsonl")
HEAD_BYTES = 1 << 16  # a transcript's header line is read up to this many bytes
REPORT_BYTES = 1 << 26  # a probe.json larger than this is not read (not recognised as a report)


def written_by_a_probe(name: str, case_ids: set[str]) -> bool:
    """Whether a probe writes a file of this name (`case_ids`: the cases a transcript is named after)."""
    if name in _FIXED or _NUMBERED.fullmatch(name):
        return True
    return name.endswith(".jsonl") and name[: -len(".jsonl")] in case_ids


class Folder:
    """DIR, where a probe writes its files."""

    def __init__(self, path: Path, case_ids: set[str]) -> None:
        self.path = path
        self.case_ids = set(case_ids)

    def file(self, name: str) -> Path:
        """DIR/name, for a file this run writes: only names the next run recognises as a probe's."""
        if not written_by_a_probe(name, self.case_ids):
            raise AssertionError(f"the probe writes no file named {name!r}: add it to probe/folder.py")
        return self.path / name

    def fresh(self) -> None:
        """Make DIR if missing and remove the previous probe's files; refuse (OutputError), before
        anything is removed, when a file this run could write is someone else's."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            previous = self.previous()
            theirs = sorted(
                p.name
                for p in self.path.iterdir()
                if written_by_a_probe(p.name, self.case_ids) and p not in previous
            )
            if theirs:
                shown = ", ".join(theirs[:3]) + (f" and {len(theirs) - 3} more" if len(theirs) > 3 else "")
                raise OutputError(
                    f"{self.path} holds {shown}, which no probe wrote there: this run would overwrite it",
                    hint="move it away, or give the probe another -o DIR",
                )
            for old in previous:
                old.unlink(missing_ok=True)
        except OSError as exc:
            raise OutputError(
                f"cannot prepare {self.path}: {exc.strerror}", hint="choose another -o DIR"
            ) from None

    def previous(self) -> list[Path]:
        """The files a probe wrote in DIR (an earlier run's): recognised by their content."""
        files = {p.name: p for p in self.path.iterdir() if p.is_file() and not p.is_symlink()}
        found = [
            path
            for name, path in files.items()
            if name.endswith(".jsonl")
            and (written_by_a_probe(name, self.case_ids) or name.startswith("corpus-"))
            and _probe_transcript(path)
        ]
        report = files.get(REPORT_NAME)
        if report is not None and _probe_report(report):
            found.append(report)
        lock = files.get(LOCK_NAME)
        if lock is not None and any(
            _locks(lock, files[n]) for n in CLEAN_START_NAMES if files.get(n) in found
        ):
            found.append(lock)
        return found


def _json_head(path: Path, most: int) -> object:
    try:
        with path.open("rb") as f:
            data = f.readline(most) if path.suffix == ".jsonl" else f.read(most)
        return orjson.loads(data)
    except (OSError, orjson.JSONDecodeError):
        return None


def _probe_transcript(path: Path) -> bool:
    """A transcript whose header says a probe recorded it."""
    header = _json_head(path, HEAD_BYTES)
    return isinstance(header, dict) and header.get("mcptape") == 1 and isinstance(header.get("probe"), dict)


def _probe_report(path: Path) -> bool:
    report = _json_head(path, REPORT_BYTES)
    return isinstance(report, dict) and {"transcripts", "cases", "counts"} <= report.keys()


def _locks(lock: Path, transcript: Path) -> bool:
    """Whether `lock` is, byte for byte, what the probe writes as the lock of `transcript`."""
    from mcptape.surface.extract import read_transcript
    from mcptape.surface.lockfile import lock_text

    try:
        expected = lock_text(read_transcript(transcript)).encode("utf-8", "surrogatepass")
        return lock.read_bytes() == expected
    except (MCPTapeError, OSError, ValueError):
        return False

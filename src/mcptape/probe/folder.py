"""The probe's output folder (`-o DIR`): what a probe writes there is this run's only, and a file
the probe did not write is never removed nor overwritten.

Every file a probe writes into DIR is named here first (`Folder.file`), and its name must be one a
probe writes (`written_by_a_probe`: a case's transcript, `start-variations.jsonl`, `tools-N.jsonl`,
`mrtr-N.jsonl`, `http.jsonl`, `probe.json`, `tools.lock.json`). Each is recognisable by its name
AND its content, so the next run finds them without a list that a cut-off run (Ctrl-C, a kill)
might not have finished:

* a transcript: its header says a probe recorded it, and which case it was for: `"probe":
  {"case": C, "title": ..., "marker": ...}`, where C names the file (`C.jsonl`; `tools` for
  `tools-N.jsonl`, `mrtr` for `mrtr-N.jsonl`, `http` for `http.jsonl`). A probe transcript that was
  renamed or copied under another name (`kept-start.jsonl`, `corpus-x.jsonl` holding `start`'s
  session) is not one the probe wrote there;
* `probe.json`: a probe report (`transcripts`, `cases`, `counts`);
* `tools.lock.json`: byte for byte the lock of the clean start's transcript beside it
  (`start.jsonl`, or `http.jsonl`), as the probe writes it.

`probe --client` writes other files (`ClientFolder`): `client-<case>.jsonl` (the session `mcptape
serve` wrote for the case, its header naming the serve command the probe gave: `-o` that file,
`--report client-<case>.report.json`, `--inject <case>` but for `start`), `client-<case>.report.json`
(serve's report: `transcripts`, `running`) and `probe-client.json` (the client probe's report).

Before a run (`fresh`) those of a previous probe are removed. A file left with a name the probe
writes is someone else's: the run stops before anything is removed or written (one `Error:` line,
exit 2) rather than overwrite it. Every other file in DIR stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePath

import orjson

from mcptape.errors import MCPTapeError, OutputError

REPORT_NAME = "probe.json"
LOCK_NAME = "tools.lock.json"
HTTP_NAME = "http.jsonl"
CLIENT_REPORT_NAME = "probe-client.json"
CLEAN_START_NAMES = ("start.jsonl", HTTP_NAME)  # the transcripts a probe writes its lock from
_FIXED = {REPORT_NAME, LOCK_NAME, HTTP_NAME, "start-variations.jsonl"}
_NUMBERED = re.compile(r"(tools|mrtr)-[0-9]+\.jsonl")
_CLIENT = re.compile(r"client-(.+)\.(jsonl|report\.json)")
HEAD_BYTES = 1 << 16  # a transcript's header line is read up to this many bytes
REPORT_BYTES = 1 << 26  # a probe.json larger than this is not read (not recognised as a report)


def written_by_a_probe(name: str, case_ids: set[str]) -> bool:
    """Whether a probe writes a file of this name (`case_ids`: the cases a transcript is named after)."""
    if name in _FIXED or _NUMBERED.fullmatch(name):
        return True
    return name.endswith(".jsonl") and name[: -len(".jsonl")] in case_ids


def case_of(name: str) -> str | None:
    """The case a probe transcript of this name was recorded for (its header's `probe.case`)."""
    if name == HTTP_NAME:
        return "http"
    numbered = _NUMBERED.fullmatch(name)
    if numbered is not None:
        return numbered.group(1)
    return name[: -len(".jsonl")] if name.endswith(".jsonl") and len(name) > len(".jsonl") else None


class _Fresh:
    """DIR, made fresh before a run: the previous run's files removed, a foreign one refused."""

    path: Path

    def writes(self, name: str) -> bool:
        raise NotImplementedError

    def previous(self) -> list[Path]:
        raise NotImplementedError

    def fresh(self, keep: Sequence[Path] = ()) -> None:
        """Make DIR if missing and remove the previous probe's files; refuse (OutputError), before
        anything is removed, when a file this run could write is someone else's. `keep`: files this
        run reads (`--from`): never removed, even when a probe wrote them."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            kept = {k.resolve() for k in keep}
            previous = [p for p in self.previous() if p.resolve() not in kept]
            theirs = sorted(p.name for p in self.path.iterdir() if self.writes(p.name) and p not in previous)
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

    def _files(self) -> dict[str, Path]:
        return {p.name: p for p in self.path.iterdir() if p.is_file() and not p.is_symlink()}


class Folder(_Fresh):
    """DIR, where a (server) probe writes its files."""

    def __init__(self, path: Path, case_ids: set[str]) -> None:
        self.path = path
        self.case_ids = set(case_ids)

    def file(self, name: str) -> Path:
        """DIR/name, for a file this run writes: only names the next run recognises as a probe's."""
        if not written_by_a_probe(name, self.case_ids):
            raise AssertionError(f"the probe writes no file named {name!r}: add it to probe/folder.py")
        return self.path / name

    def writes(self, name: str) -> bool:
        return written_by_a_probe(name, self.case_ids)

    def previous(self) -> list[Path]:
        """The files a probe wrote in DIR (an earlier run's): recognised by their name and content.
        A transcript of an earlier run's case this run does not send (a `corpus-<file>` of another
        corpus, say) is one when its header names that case."""
        files = self._files()
        found = [
            path
            for name, path in files.items()
            if (written_by_a_probe(name, self.case_ids) or name.startswith("corpus-"))
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


class ClientFolder(_Fresh):
    """DIR, where `probe --client` writes its files (`case_ids`: this run's cases, `start` too)."""

    def __init__(self, path: Path, case_ids: set[str]) -> None:
        self.path = path
        self.case_ids = set(case_ids)

    def writes(self, name: str) -> bool:
        if name == CLIENT_REPORT_NAME:
            return True
        named = _CLIENT.fullmatch(name)
        return named is not None and named.group(1) in self.case_ids

    def previous(self) -> list[Path]:
        """The files an earlier `probe --client` wrote in DIR, recognised by their name and content."""
        found: list[Path] = []
        files = self._files()
        for name, path in files.items():
            named = _CLIENT.fullmatch(name)
            if name == CLIENT_REPORT_NAME:
                mine = _client_report(path)
            elif named is None:
                continue
            elif named.group(2) == "jsonl":
                mine = _client_transcript(path, named.group(1))
            else:  # a serve report: the probe's when its case's transcript is (whose --report names it)
                sibling = files.get(f"client-{named.group(1)}.jsonl")
                mine = (
                    sibling is not None
                    and _client_transcript(sibling, named.group(1))
                    and _serve_report(path)
                )
            if mine:
                found.append(path)
        return found


def _json_head(path: Path, most: int) -> object:
    try:
        with path.open("rb") as f:
            data = f.readline(most) if path.suffix == ".jsonl" else f.read(most)
        return orjson.loads(data)
    except (OSError, orjson.JSONDecodeError):
        return None


def _probe_transcript(path: Path) -> bool:
    """A transcript whose header says a probe recorded it for the case its name says."""
    case = case_of(path.name)
    if case is None:
        return False
    header = _json_head(path, HEAD_BYTES)
    if not isinstance(header, dict) or header.get("mcptape") != 1:
        return False
    probe = header.get("probe")
    return (
        isinstance(probe, dict)
        and probe.get("case") == case
        and isinstance(probe.get("title"), str)
        and isinstance(probe.get("marker"), str)
    )


def _probe_report(path: Path) -> bool:
    report = _json_head(path, REPORT_BYTES)
    return isinstance(report, dict) and {"transcripts", "cases", "counts"} <= report.keys()


def _client_report(path: Path) -> bool:
    report = _json_head(path, REPORT_BYTES)
    keys = {"client", "transcript", "out_dir", "failed", "counts", "cases"}
    return isinstance(report, dict) and keys <= report.keys()


def _serve_report(path: Path) -> bool:
    """A report `mcptape serve --report` wrote (`running` while its session lasted)."""
    report = _json_head(path, REPORT_BYTES)
    return (
        isinstance(report, dict)
        and isinstance(report.get("transcripts"), list)
        and isinstance(report.get("running"), bool)
    )


def _client_transcript(path: Path, case: str) -> bool:
    """A session `mcptape serve` wrote for the client probe's `case`: its header's command is the one
    the client probe gives (`-o` this file, `--report client-<case>.report.json`, `--inject <case>`
    but for the clean run)."""
    header = _json_head(path, HEAD_BYTES)
    if not isinstance(header, dict) or header.get("mcptape") != 1:
        return False
    serve, command = header.get("serve"), header.get("command")
    if not isinstance(serve, dict) or not isinstance(command, list):
        return False
    args = [a for a in command if isinstance(a, str)]
    return (
        _names(args, "-o") == path.name
        and _names(args, "--report") == f"client-{case}.report.json"
        and serve.get("inject") == ([] if case == "start" else [case])
    )


def _names(args: list[str], option: str) -> str | None:
    """The file name the value of `option` ends with in `args`, or None."""
    if option not in args[:-1]:
        return None
    return PurePath(args[args.index(option) + 1]).name


def _locks(lock: Path, transcript: Path) -> bool:
    """Whether `lock` is, byte for byte, what the probe writes as the lock of `transcript`."""
    from mcptape.surface.extract import read_transcript
    from mcptape.surface.lockfile import lock_text

    try:
        expected = lock_text(read_transcript(transcript)).encode("utf-8", "surrogatepass")
        return lock.read_bytes() == expected
    except (MCPTapeError, OSError, ValueError):
        return False

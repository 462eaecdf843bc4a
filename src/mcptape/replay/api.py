"""The Python API: replay a transcript against a command, or diff two transcripts.

import mcptape

result = mcptape.replay("tests/transcripts/list-and-call.jsonl", ["python", "-m", "my_server"])
result.assert_same()          # AssertionError whose message is the readable diff

from mcptape.replay import diff_files
diff = diff_files("old.jsonl", "new.jsonl", ignore=["tools/call:result._meta"])
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcptape.check.model import ExecCall
from mcptape.diff.channels import NOT_OBSERVED, unobserved_channels
from mcptape.diff.ignore import Rule, parse_rule
from mcptape.diff.sessions import EXECUTOR, Diff, diff_events
from mcptape.errors import EXIT_FINDINGS, EXIT_OK, OutputError, UsageError
from mcptape.limits import seconds_ok
from mcptape.replay.cassette import cassette_player, unmatched_issues
from mcptape.replay.config import Config, load_config
from mcptape.replay.driver import (
    CAUSAL,
    EXECUTED_ACTIONS,
    RECORDED,
    UNMATCHED_SECRET,
    Driver,
    Issue,
    Run,
    Substitution,
)
from mcptape.replay.plan import make_plan
from mcptape.replay.where import GIVEN, Server, server_for, session_folder, stubs_for
from mcptape.share.outputs import same_file
from mcptape.transcript.events import Header

if TYPE_CHECKING:
    from mcptape.transcript.reader import Transcript

DEFAULT_STEP_TIMEOUT = 10.0


@dataclass
class ReplayResult:
    """A replay: the recording, the new session, how the run went and the diff between them."""

    original: Path
    new: Path
    command: list[str]
    header: Header
    run: Run
    diff: Diff
    notes: list[str] = field(default_factory=list)
    kept: bool = True  # False when the temporary new session was removed (the sessions were the same)
    server: Server | None = None  # the command run, where, and where it came from

    @property
    def issues(self) -> list[Issue]:
        return self.run.issues

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.run.issues if not i.error]

    @property
    def same(self) -> bool:
        """True when the new build behaved like the recording (and the replay ran to the end)."""
        return self.diff.same and self.run.completed and not any(i.error for i in self.run.issues)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.same else EXIT_FINDINGS

    @property
    def substitutions(self) -> list[Substitution]:
        """The server-minted values replaced in the client's bytes by the new server's."""
        return self.run.substitutions

    def render(self, *, color: bool = False) -> str:
        """The readable report (what `mcptape replay` prints)."""
        from mcptape.replay.render import render_replay

        return render_replay(self)

    def to_json(self) -> dict[str, Any]:
        from mcptape.replay.render import replay_to_json

        return replay_to_json(self)

    def assert_same(self) -> None:
        """Raise AssertionError, with the readable diff as its message, unless `same`."""
        if not self.same:
            raise AssertionError(self.render())

    def update(self) -> None:
        """Replace the recording with the new session (snapshot-style), atomically."""
        if not self.run.completed:
            raise UsageError(
                f"{self.original} not updated: the replay did not complete",
                hint="fix the failure shown above, then run --update again",
            )
        replace_with(self.original, self.new)


def rules_of(ignore: Iterable[str | Rule], config: Config | None) -> list[Rule]:
    """The configured rules, then the given ones (strings parsed as `--ignore` rules)."""
    rules = list(config.ignore) if config is not None else []
    for rule in ignore:
        rules.append(rule if isinstance(rule, Rule) else parse_rule(rule))
    return rules


def _open(path: str | os.PathLike[str]) -> Transcript:
    from mcptape.transcript import open_transcript

    return open_transcript(path)


def _notes(path: str | os.PathLike[str], transcript: Transcript) -> list[str]:
    """The transcript's reading problems (known once its events have been read)."""
    return [f"{path}: transcript line {p.line}: {p.reason}" for p in transcript.problems]


def replay(
    path: str | os.PathLike[str],
    command: Sequence[str] | None = None,
    *,
    output: str | os.PathLike[str] | None = None,
    ignore: Iterable[str | Rule] = (),
    pace: str | None = None,
    step_timeout: float | None = None,
    shutdown_timeout: float = 2.0,
    stderr: bool | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stubs: Sequence[str] = (),
    config: Config | bool = True,
    secrets: Sequence[str] = (),
    overwrite: bool = False,
    http_match: str | Sequence[str] | None = None,
    keep_dir: str | os.PathLike[str] | None = None,
    announce: Callable[[Server], None] | None = None,
) -> ReplayResult:
    """Replay the client side of the transcript at `path` against `command`; diff the sessions.

    `command` defaults to `[tool.mcptape] server`, then to the recorded command, run in the
    recorded working directory (`announce` is called with the `Server` chosen before it starts).
    The new session is recorded to `output`, or to a temporary file in a `mcptape-replay-*` folder
    under `keep_dir` (default: the system's temporary folder), kept for inspection when the sessions
    differ, removed when they are the same; such folders older than a day are removed. `stubs`
    names commands to replace with recording stubs (as `record --stub`), besides the ones the
    recording had, which are always installed again.
    `config=True` reads `[tool.mcptape]` from the nearest pyproject.toml; pass a `Config`
    or False. `secrets` (`NAME=VALUE`) put real values back where a redacted transcript has their
    placeholder (verified against its hash first; see docs/sharing.md). A transcript recorded with
    `--http-cassette` gets its recorded HTTP responses served back, requests matched on
    `http_match` (default method, URL and body; see docs/cassettes.md). Raises `MCPTapeError` for
    unreadable input or a command that cannot start. An existing `output` is refused unless
    `overwrite` (a saved session is never lost silently).
    """
    cfg = load_config() if config is True else (config if isinstance(config, Config) else None)
    original = _open(path)  # read again for each pass (plan, diff), never held whole
    header = original.header
    server = server_for(header, command, cfg, cwd)
    server = dataclasses.replace(server, stubs=stubs_for(header, stubs))
    argv = server.command
    if not argv[0]:  # e.g. an unset shell variable: posix_spawn would raise ValueError
        raise UsageError("the server command's name is empty", hint="give the server's executable after --")
    pace = pace or (cfg.pace if cfg is not None and cfg.pace else CAUSAL)
    if pace not in (CAUSAL, RECORDED):
        raise UsageError(f"unknown pace {pace!r}", hint="use causal or recorded")
    timeout = step_timeout or (
        cfg.step_timeout if cfg is not None and cfg.step_timeout else DEFAULT_STEP_TIMEOUT
    )
    for name, seconds in (("step timeout", timeout), ("shutdown timeout", shutdown_timeout)):
        if not seconds_ok(seconds, min_open=name == "step timeout"):  # a thread cannot wait 1e300 s
            raise UsageError(f"the {name} {seconds!r} is out of range", hint="give seconds, at most 86400")
    with_stderr = stderr if stderr is not None else (cfg.stderr if cfg is not None else False)
    rules = rules_of(ignore, cfg)
    plan = make_plan(original.events)
    player = cassette_player(header.extra, original.events(), http_match)  # None: no cassette recorded
    from mcptape.share.unredact import load_unredactor

    unredactor = load_unredactor(path, secrets)
    temporary = output is None
    new_path = new_session_path(path, output, overwrite=overwrite, keep_dir=keep_dir)
    if announce is not None and server.origin != GIVEN:
        announce(server)
    driver = Driver(
        plan,
        argv,
        new_path,
        pace=pace,
        step_timeout=timeout,
        shutdown_timeout=shutdown_timeout,
        env=env,
        cwd=server.cwd,
        stubs=server.stubs,
        header={"of": str(path), "pace": pace},
        transform=_per_line(unredactor.line) if unredactor.by_digest else None,
        http=player.listener if player is not None else None,
    )
    try:
        run = driver.replay()
        if run.write_error is not None:  # what is there is a part of the session, or nothing
            failed = run.write_error
            raise OutputError(f"cannot write {new_path}: {failed.strerror or failed}")
        # The new session is streamed into the diff, never held whole: a server that flooded its
        # stdout made a transcript as large as the flood.
        new_transcript = _open(new_path)
        diff = diff_events(
            original.events(),
            new_transcript.events(),
            rules,
            stderr=with_stderr,
            unobserved=(unobserved_channels(header.extra), NOT_OBSERVED),
        )
    except BaseException:  # Ctrl-C during the diff too: no temporary session is left behind
        if temporary:
            shutil.rmtree(new_path.parent, ignore_errors=True)
        raise
    result = ReplayResult(
        original=Path(path),
        new=new_path,
        command=argv,
        header=header,
        run=run,
        diff=diff,
        notes=_notes(path, original) + _notes(new_path, new_transcript),
        server=server,
    )
    for label in unredactor.unmatched:
        run.issues.append(
            Issue(
                UNMATCHED_SECRET, f"--secret {label}: the value matches no placeholder in {path}", error=False
            )
        )
    if player is not None:
        run.issues.extend(unmatched_issues(player))
    warning = _executed_actions(result.diff, cassette=player is not None)
    if warning is not None:
        run.issues.append(Issue(EXECUTED_ACTIONS, warning, error=False))
    if temporary and result.same:
        shutil.rmtree(new_path.parent, ignore_errors=True)
        result.kept = False
    return result


def new_session_path(
    path: str | os.PathLike[str],
    output: str | os.PathLike[str] | None,
    *,
    overwrite: bool,
    keep_dir: str | os.PathLike[str] | None,
) -> Path:
    """Where a replay of `path` records its new session: `output` (neither the transcript itself
    nor, without `overwrite`, an existing file), or a new `mcptape-replay-*` folder under `keep_dir`."""
    if output is not None and (
        Path(output).resolve() == Path(path).resolve() or same_file(Path(output), path)
    ):
        raise UsageError(
            f"-o {output} is the transcript being replayed", hint="write the new session elsewhere"
        )
    if output is not None and not overwrite and Path(output).exists():
        raise OutputError(f"{output} already exists", hint="pass --overwrite, or choose another -o")
    return Path(output) if output is not None else session_folder(keep_dir) / Path(path).name


def _executed_actions(diff: Diff, *, cassette: bool) -> str | None:
    """The warning for the side effects the replay ran again (None: none ran). A stubbed command
    ran nothing (the stub answered for it): it is named, but alone it is no reason to warn."""
    counts: Counter[str] = Counter()
    for pair in diff.pairs:
        if pair.kind != EXECUTOR or pair.new is None or not isinstance(pair.new, ExecCall):
            continue
        value = pair.new.value
        stubbed = pair.scope == "exec" and value is not None and value.get("source") == "stub"
        counts["stub" if stubbed else pair.scope] += 1
    if not counts["exec"] and not counts["http"]:
        return None
    parts = []
    if counts["exec"]:
        parts.append(f"{counts['exec']} action(s) reported on the executor tap, which really ran")
    if counts["http"]:
        answered = "the cassette answered them" if cassette else "the sink answered them"
        parts.append(f"{counts['http']} HTTP request(s): {answered}, none reached a host")
    if counts["stub"]:
        parts.append(f"{counts['stub']} stubbed command(s), not run")
    return "the replay ran the session's side effects again: " + "; ".join(parts)


def diff_files(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    *,
    ignore: Iterable[str | Rule] = (),
    stderr: bool = False,
    config: Config | bool = False,
) -> Diff:
    """The diff of two transcripts (nothing is run). Raises TranscriptError for unreadable input."""
    cfg = load_config() if config is True else (config if isinstance(config, Config) else None)
    rules = rules_of(ignore, cfg)
    old_transcript, new_transcript = _open(old), _open(new)  # both headers checked before any work
    diff = diff_events(
        old_transcript.events(),
        new_transcript.events(),
        rules,
        stderr=stderr,
        unobserved=(
            unobserved_channels(old_transcript.header.extra),
            unobserved_channels(new_transcript.header.extra),
        ),
    )
    diff.notes = _notes(old, old_transcript) + _notes(new, new_transcript)
    return diff


def replace_with(target: Path, source: Path) -> None:
    """Copy `source` over `target` atomically (a temporary file in the same folder, then rename)."""
    tmp = target.with_name(f".{target.name}.mcptape-update")
    try:
        shutil.copyfile(source, tmp)
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise OutputError(f"cannot update {target}: {exc.strerror or exc}") from None


def _per_line(fix: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """Apply a line substitution to each line of a chunk (lines as the check core frames them)."""
    from mcptape.check.framing import lines_of

    def apply(data: bytes) -> bytes:
        return b"".join(fix(line) for line in lines_of(data, "in"))

    return apply

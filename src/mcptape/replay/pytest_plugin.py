"""The pytest plugin: every transcript under the given paths becomes a test that replays it.

    pytest tests/transcripts --mcptape-server "python -m my_server"
    pytest tests/transcripts -n auto          # with [tool.mcptape] server = [...] in pyproject.toml

It replays nothing unless a server command is given (`--mcptape-server` or
`[tool.mcptape] server`): then each `*.jsonl` file whose first line is an mcptape transcript
header (and, when `[tool.mcptape] transcripts` is set, that lies under one of those folders)
is collected as one item whose failure message is the diff. Without a server, transcripts met
during collection are counted and a warning says why they were not collected. Works under
pytest-xdist: each item replays in the worker that runs it; what `--mcptape-update` rewrote, and
the project's ignore rules that hid nothing in any transcript, are said once at the end (from the
items' `user_properties`, which xdist brings back).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcptape.replay.api import ReplayResult
    from mcptape.replay.config import Config

_KEY = pytest.StashKey["_Settings | None"]()
_UNSERVED = pytest.StashKey[list[Path]]()  # transcripts seen while no server is configured

UPDATED = "mcptape_updated"  # user_properties: "<path>: <what differed>"


@dataclass
class _Settings:
    command: list[str]
    config: Config
    ignore: list[str]
    update: bool
    timeout: float | None
    keep_dir: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcptape", "replay mcptape transcripts against a server")
    group.addoption(
        "--mcptape-server",
        metavar="CMD",
        default=None,
        help="Replay every mcptape transcript collected against CMD (default: [tool.mcptape] server).",
    )
    group.addoption(
        "--mcptape-ignore",
        metavar="RULE",
        action="append",
        default=[],
        help="An ignore rule for the diff, e.g. 'tools/call:result.content[*].text|json.timestamp'.",
    )
    group.addoption(
        "--mcptape-update",
        action="store_true",
        default=False,
        help="Rewrite each transcript that differs with the new session (snapshot-style).",
    )
    group.addoption(
        "--mcptape-step-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="Seconds to wait for the server's responses at each replay step (default 10).",
    )
    group.addoption(
        "--mcptape-keep-dir",
        metavar="DIR",
        default=None,
        help="Keep the new sessions that differ under DIR (default: the system's temporary folder).",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = None
    config.stash[_UNSERVED] = []
    option = config.getoption("--mcptape-server")
    pyproject = _settings_file(config.invocation_params.dir)
    if option is None and (pyproject is None or not _mentions_server(pyproject)):
        return  # the common case: not asked for, nothing imported, nothing collected
    from mcptape.errors import MCPTapeError
    from mcptape.replay.config import Config, command_of, load_config

    try:
        cfg = load_config(pyproject=pyproject) if pyproject is not None else Config()
        command = command_of(option, "--mcptape-server") if option is not None else cfg.server
    except MCPTapeError as exc:
        raise pytest.UsageError(f"mcptape: {exc}") from None
    if not command:
        return
    settings = _Settings(
        command,
        cfg,
        list(config.getoption("--mcptape-ignore")),
        bool(config.getoption("--mcptape-update")),
        config.getoption("--mcptape-step-timeout"),
        config.getoption("--mcptape-keep-dir"),
    )
    config.stash[_KEY] = settings
    config.pluginmanager.register(_UnusedRulesSummary(), "mcptape-unused-rules")
    config.pluginmanager.register(_UpdatedSummary(), "mcptape-updated")


def _settings_file(start: Path) -> Path | None:
    """The nearest mcptape.toml or pyproject.toml at or above `start`, the directory pytest runs in:
    the file `mcptape replay` reads (`mcptape.replay.config.find_config`, not imported here: this
    runs in every pytest session). Not pytest's rootdir: pytest decides it before it knows this
    plugin's options, so `--mcptape-server /other/.venv/bin/server` would make it the server's
    project."""
    here = start.resolve()
    for folder in (here, *here.parents):
        for name in ("mcptape.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def _mentions_server(pyproject: Path) -> bool:
    """Cheap pre-check before parsing TOML: does the file have a [tool.mcptape] table at all (or,
    for an mcptape.toml, a server)?"""
    try:
        return (
            b"server" if pyproject.name == "mcptape.toml" else b"[tool.mcptape]"
        ) in pyproject.read_bytes()
    except OSError:
        return False


class _UnusedRulesSummary:
    """Ignore rules that hid nothing in any transcript, said once in the terminal summary (not in
    every failure). Each item reports its rules in `user_properties`, which pytest-xdist carries
    from the workers to the controller, where this summary is written."""

    def __init__(self) -> None:
        from mcptape.diff.unused import UnusedRules

        self.rules = UnusedRules()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props: dict[str, Any] = dict(report.user_properties)
        if report.when == "call" and "mcptape_rules" in props:
            rules = [(str(text), str(origin)) for text, origin in props["mcptape_rules"]]
            self.rules.add_rules(rules, [str(text) for text in props.get("mcptape_used_rules", [])])

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from mcptape.textsafe import escape_text

        lines = self.rules.lines()
        if lines:
            terminalreporter.section("mcptape")
            for line in lines:
                terminalreporter.write_line(escape_text(line))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".jsonl":
        return None
    settings = parent.config.stash.get(_KEY, None)
    if settings is None:
        if _is_transcript(file_path):
            parent.config.stash[_UNSERVED].append(file_path)
        return None
    roots = settings.config.transcripts
    if roots and not any(file_path.resolve().is_relative_to(root) for root in roots):
        return None
    if not _is_transcript(file_path):
        return None
    return TranscriptFile.from_parent(parent, path=file_path)


def _is_transcript(path: Path) -> bool:
    """True when line 1 is an mcptape transcript header (a bad file is still collected if it says so)."""
    from mcptape.transcript.reader import claims_header

    return claims_header(path)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Transcripts met with no server configured: say why they were not collected (once)."""
    unserved = session.config.stash.get(_UNSERVED, [])
    if unserved:
        import warnings

        first = unserved[0]
        more = f" and {len(unserved) - 1} more" if len(unserved) > 1 else ""
        warnings.warn(
            pytest.PytestWarning(
                f"mcptape: {len(unserved)} transcript(s) not collected ({first}{more}): no server to replay "
                "them against; give --mcptape-server CMD or set [tool.mcptape] server in pyproject.toml"
            ),
            stacklevel=1,
        )


class _UpdatedSummary:
    """What --mcptape-update rewrote, said once in the terminal summary (each item says it in its
    `user_properties`, which pytest-xdist carries to the controller)."""

    def __init__(self) -> None:
        self.updated: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.updated.extend(str(value) for name, value in report.user_properties if name == UPDATED)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.updated:
            from mcptape.textsafe import escape_text

            terminalreporter.section("mcptape updated")
            terminalreporter.write_line(
                f"rewrote {len(self.updated)} transcript(s) with the new session (--mcptape-update):"
            )
            for line in self.updated:
                terminalreporter.write_line(f"  {escape_text(line)}")


class TranscriptFile(pytest.File):
    """A transcript file: one item, the replay."""

    def collect(self) -> list[pytest.Item]:
        return [TranscriptItem.from_parent(self, name=self.path.name)]


class ReplayDiffers(Exception):
    """The replay differed; `str()` is the readable diff."""


class TranscriptItem(pytest.Item):
    """Replay one transcript against the configured server; fails with the diff."""

    def runtest(self) -> None:
        from mcptape.replay.api import replay

        settings = self.config.stash[_KEY]
        assert settings is not None
        result: ReplayResult = replay(
            self.path,
            settings.command,
            ignore=settings.ignore,
            step_timeout=settings.timeout,
            config=settings.config,
            keep_dir=settings.keep_dir,
        )
        self.user_properties.append(("mcptape_new_transcript", str(result.new)))
        result.diff.unused_reported = False  # told once for the session (_UnusedRulesSummary)
        self.user_properties.append(("mcptape_rules", [[r.text, r.origin] for r in result.diff.rules]))
        self.user_properties.append(
            ("mcptape_used_rules", sorted({h.rule.text for _, h in result.diff.hidden}))
        )
        if result.same:
            return
        if settings.update and result.run.completed:
            from mcptape.replay.notes import what_differed

            result.update()
            self.user_properties.append(
                (UPDATED, f"{self.path}: {what_differed(result.diff, result.issues)}")
            )
            return
        raise ReplayDiffers(result.render())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from mcptape.errors import MCPTapeError

        if isinstance(excinfo.value, ReplayDiffers | MCPTapeError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"mcptape replay {self.path.name} -- {shlex.join(self._command())}"

    def _command(self) -> list[str]:
        settings = self.config.stash.get(_KEY, None)
        return settings.command if settings is not None else []

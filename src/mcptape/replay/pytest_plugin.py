"""The pytest plugin: every transcript under the given paths becomes a test that replays it.

    pytest tests/transcripts --mcptape-server "python -m my_server"
    pytest tests/transcripts -n auto          # with [tool.mcptape] server = [...] in pyproject.toml

Each `*.jsonl` file whose first line is an mcptape transcript header (and, when
`[tool.mcptape] transcripts` is set, that lies under one of those folders) is collected as one
item whose failure message is the diff, replayed against the server command given
(`--mcptape-server` or `[tool.mcptape] server`). Without one, as `mcptape replay DIR` does, each
transcript is replayed against its own recorded command in its recorded working directory — for
the paths named on pytest's command line (`pytest tests/transcripts`) and the `transcripts`
folders only: a bare `pytest` does not start recorded commands it happened to find. Transcripts
met then are counted, and one warning (naming only files under the paths pytest was given) says
why they were not collected. Works under
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

from mcptape.replay.pytest_summaries import UPDATED, UnusedRulesSummary, UpdatedSummary

if TYPE_CHECKING:
    from mcptape.replay.api import ReplayResult
    from mcptape.replay.config import Config

_KEY = pytest.StashKey["_Settings | None"]()
_UNSERVED = pytest.StashKey[list[Path]]()  # transcripts seen while no server is configured
_FALLBACK = pytest.StashKey[bool]()  # no server, paths given: each transcript's recorded command


@dataclass
class _Settings:
    command: list[str] | None  # None: each transcript's own recorded command
    config: Config
    ignore: list[str]
    update: bool
    timeout: float | None
    keep_dir: str | None = None
    set_env: tuple[str, ...] = ()
    inherit_env: bool = False
    allow_mutating: bool | None = None  # None: the settings file's, else MCPTAPE_ALLOW_MUTATING


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
        help="Keep the new sessions that differ under DIR (default: pytest's own temporary folder, "
        "of which pytest keeps the last 3 runs).",
    )
    group.addoption(
        "--mcptape-env",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="Set NAME in the server's environment (repeatable; as replay --env).",
    )
    group.addoption(
        "--mcptape-inherit-env",
        action="store_true",
        default=False,
        help="Give the server pytest's whole environment instead of the recorded names "
        "(as replay --inherit-env).",
    )
    group.addoption(
        "--mcptape-allow-mutating",
        action="store_true",
        default=None,
        help="Also replay the tools/call of tools that may change data (not marked readOnlyHint: "
        "true), as replay --allow-mutating: point the server at a scratch copy of its data.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = None
    config.stash[_UNSERVED] = []
    config.stash[_FALLBACK] = False
    option = config.getoption("--mcptape-server")
    pyproject = _settings_file(config.invocation_params.dir)
    mentioned = pyproject is not None and _mentions_server(pyproject)
    if option is None and not mentioned:
        # The common case: nothing imported. A transcript met under a path named on the command
        # line is replayed against its recorded command (the settings are made when one is met).
        if _explicit_paths(config):
            config.stash[_FALLBACK] = True
            _register_summaries(config)
        return
    from mcptape.errors import MCPTapeError
    from mcptape.replay.config import Config, command_of, load_config

    try:
        has_settings = pyproject is not None and (pyproject.name == "mcptape.toml" or mentioned)
        cfg = load_config(pyproject=pyproject) if pyproject is not None and has_settings else Config()
        command = command_of(option, "--mcptape-server") if option is not None else cfg.server
    except MCPTapeError as exc:
        raise pytest.UsageError(f"mcptape: {exc}") from None
    if not command and not cfg.transcripts and not _explicit_paths(config):
        return
    config.stash[_KEY] = _settings(config, list(command) if command else None, cfg)
    _register_summaries(config)


def _settings(config: pytest.Config, command: list[str] | None, cfg: Config) -> _Settings:
    return _Settings(
        command,
        cfg,
        list(config.getoption("--mcptape-ignore")),
        bool(config.getoption("--mcptape-update")),
        config.getoption("--mcptape-step-timeout"),
        config.getoption("--mcptape-keep-dir"),
        tuple(config.getoption("--mcptape-env")),
        bool(config.getoption("--mcptape-inherit-env")),
        config.getoption("--mcptape-allow-mutating"),
    )


def _register_summaries(config: pytest.Config) -> None:
    """The end-of-session summaries, on the process that writes the terminal summary (the xdist
    controller, which collects nothing): registered at configure time, cheap until used."""
    config.pluginmanager.register(UnusedRulesSummary(), "mcptape-unused-rules")
    config.pluginmanager.register(UpdatedSummary(), "mcptape-updated")


def _explicit_paths(config: pytest.Config) -> list[Path]:
    """The paths named on pytest's command line (not `testpaths`, not the current folder by
    default), resolved, without a `::test` part."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return []
    root = config.invocation_params.dir
    return [(root / arg.split("::", 1)[0]).resolve() for arg in config.args]


def _under(path: Path, roots: list[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


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


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".jsonl":
        return None
    settings = parent.config.stash.get(_KEY, None)
    if settings is None and parent.config.stash.get(_FALLBACK, False) and _is_transcript(file_path):
        settings = parent.config.stash[_KEY] = _settings(parent.config, None, _fallback_config(parent.config))
    roots = settings.config.transcripts if settings is not None else []
    if roots and not _under(file_path, roots):
        return None
    if not _is_transcript(file_path):
        return None
    if settings is None or (
        settings.command is None and not roots and not _under(file_path, _explicit_paths(parent.config))
    ):
        parent.config.stash[_UNSERVED].append(file_path)
        return None
    return TranscriptFile.from_parent(parent, path=file_path)


def _fallback_config(config: pytest.Config) -> Config:
    """The settings file's rules (top-level and learned) when no server is configured: read once a
    transcript is met, as `mcptape replay DIR` reads them."""
    from mcptape.errors import MCPTapeError
    from mcptape.replay.config import Config, load_config

    found = _settings_file(config.invocation_params.dir)
    try:
        return load_config(pyproject=found) if found is not None else Config()
    except MCPTapeError as exc:
        raise pytest.UsageError(f"mcptape: {exc}") from None


def _is_transcript(path: Path) -> bool:
    """True when line 1 is an mcptape transcript header (a bad file is still collected if it says so)."""
    from mcptape.transcript.reader import claims_header

    return claims_header(path)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Transcripts met with no server configured: say why they were not collected (once)."""
    unserved = session.config.stash.get(_UNSERVED, [])
    passed = _explicit_paths(session.config) or [session.config.invocation_params.dir.resolve()]
    unserved = [path for path in unserved if _under(path, passed)]
    if unserved:
        import warnings

        first = unserved[0]
        more = f" and {len(unserved) - 1} more" if len(unserved) > 1 else ""
        warnings.warn(
            pytest.PytestWarning(
                f"mcptape: {len(unserved)} transcript(s) not collected ({first}{more}): no server to replay "
                "them against; give --mcptape-server CMD, set [tool.mcptape] server in pyproject.toml, or "
                "name their folder (pytest DIR replays each against its recorded command)"
            ),
            stacklevel=1,
        )


class TranscriptFile(pytest.File):
    """A transcript file: one item, the replay."""

    def collect(self) -> list[pytest.Item]:
        return [TranscriptItem.from_parent(self, name=self.path.name)]


class ReplayDiffers(Exception):
    """The replay differed; `str()` is the readable diff."""


class TranscriptItem(pytest.Item):
    """Replay one transcript against the configured server; fails with the diff."""

    def runtest(self) -> None:
        from mcptape.replay.api import replay_with
        from mcptape.replay.settings import ReplaySettings

        settings = self.config.stash[_KEY]
        assert settings is not None
        resolved = ReplaySettings.resolve(
            config=settings.config,
            ignore=settings.ignore,
            step_timeout=settings.timeout,
            keep_dir=settings.keep_dir if settings.keep_dir is not None else self._session_folder(),
            set_env=settings.set_env,
            inherit_env=settings.inherit_env,
            allow_mutating=settings.allow_mutating,
        )
        result: ReplayResult = replay_with(self.path, settings.command, resolved)
        self.user_properties.append(("mcptape_new_transcript", str(result.new)))
        result.diff.unused_reported = False  # told once for the session (_UnusedRulesSummary)
        self.user_properties.append(("mcptape_rules", [[r.text, r.origin] for r in result.diff.rules]))
        self.user_properties.append(
            ("mcptape_used_rules", sorted({h.rule.text for _, h in result.diff.hidden}))
        )
        if result.same:
            return
        if settings.update and result.run.completed and not result.run.held:
            from mcptape.replay.notes import what_differed

            result.update()
            self.user_properties.append(
                (UPDATED, f"{self.path}: {what_differed(result.diff, result.issues)}")
            )
            return
        raise ReplayDiffers(result.render())

    def _session_folder(self) -> Path:
        """Where a differing new session is kept without --mcptape-keep-dir: under pytest's base
        temporary folder, which pytest prunes (the last 3 runs), not in the system's temporary
        folder, where every run's differing sessions would pile up."""
        factory = getattr(self.config, "_tmp_path_factory", None)
        if factory is None:  # pytest without its tmp_path plugin (-p no:tmpdir)
            import tempfile

            return Path(tempfile.gettempdir())
        return Path(factory.getbasetemp()) / "mcptape-replay"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from mcptape.errors import MCPTapeError

        if isinstance(excinfo.value, ReplayDiffers | MCPTapeError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        settings = self.config.stash.get(_KEY, None)
        if settings is None or settings.command is None:
            return self.path, None, f"mcptape replay {self.path.name} (its recorded command)"
        return self.path, None, f"mcptape replay {self.path.name} -- {shlex.join(settings.command)}"

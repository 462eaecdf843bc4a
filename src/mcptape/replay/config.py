"""The replay settings a project keeps next to its code: `mcptape.toml`, or `[tool.mcptape]` in
pyproject.toml.

[tool.mcptape]
server = ["python", "-m", "my_server"]      # or one string, split like a shell would
transcripts = ["tests/transcripts"]         # where the pytest plugin looks (default: anywhere)
ignore = ["tools/call:result.content[*].text|json.timestamp"]
step-timeout = 10
stderr = false
allow-mutating = false                      # true: replay calls of tools that may change data

The file is the nearest `mcptape.toml` or `pyproject.toml` at or above the current directory (in
one folder, `mcptape.toml` wins); in `mcptape.toml` the same keys stand at the top level, without a
table header. `mcptape replay --learn N --save` adds its rules to that file
(`mcptape.replay.configfile`), creating `mcptape.toml` when there is none, scoped to the server
they were learned from:

[[tool.mcptape.learned]]                    # [[learned]] in mcptape.toml
server = "rp-server"                        # the recording's serverInfo name, or:
command = ["python", "-m", "my_server"]     # its recorded command (when it had no serverInfo)
ignore = ["tools/call:result.content[*].text|json.datetime"]

A learned table applies to a transcript whose recording names that server (`server`, else
`command`, compared exactly); the top-level `ignore` applies to every one, as it always did.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.diff.ignore import Rule, parse_rules
from mcptape.errors import UsageError

KNOWN = {"server", "transcripts", "ignore", "step-timeout", "stderr", "pace", "learned", "allow-mutating"}
LEARNED_KNOWN = {"server", "command", "ignore"}
OWN_FILE = "mcptape.toml"


@dataclass(frozen=True)
class Identity:
    """Who a recording's server is: its serverInfo name (None: it gave none) and its recorded command."""

    server: str | None
    command: tuple[str, ...]


@dataclass
class Learned:
    """Rules learned for one server (a `learned` table): they apply to its recordings only."""

    server: str | None
    command: tuple[str, ...] | None
    rules: list[Rule] = field(default_factory=list)

    def matches(self, identity: Identity) -> bool:
        """By serverInfo name when the table names one, else by the recorded command, exactly."""
        if self.server is not None:
            return self.server == identity.server
        return self.command is not None and self.command == identity.command

    def describe(self) -> str:
        return (
            f"server {self.server!r}"
            if self.server is not None
            else f"command {shlex.join(self.command or ())}"
        )


@dataclass
class Config:
    """The settings found (all empty when there is no `[tool.mcptape]`)."""

    path: Path | None = None
    server: list[str] = field(default_factory=list)
    transcripts: list[Path] = field(default_factory=list)
    ignore: list[Rule] = field(default_factory=list)
    step_timeout: float | None = None
    stderr: bool = False
    pace: str | None = None
    learned: list[Learned] = field(default_factory=list)
    allow_mutating: bool | None = None  # replay tools/call of tools that may change data (None: not set)

    def rules_for(self, identity: Identity) -> list[Rule]:
        """The learned rules that apply to a recording of this server (in the file's order)."""
        return [rule for table in self.learned if table.matches(identity) for rule in table.rules]


def find_config(start: Path) -> Path | None:
    """The nearest mcptape.toml or pyproject.toml at or above `start` (mcptape.toml first)."""
    here = start.resolve()
    for folder in (here, *here.parents):
        for name in (OWN_FILE, "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def find_pyproject(start: Path) -> Path | None:
    """The nearest settings file at or above `start` (kept for callers of the old name)."""
    return find_config(start)


def is_own_file(path: Path) -> bool:
    """True for an `mcptape.toml`, whose top level is the settings (no `[tool.mcptape]` header)."""
    return path.name == OWN_FILE


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # tomllib decodes the whole file first
        raise UsageError(f"{path} is not valid TOML: not UTF-8 (byte offset {exc.start})") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise UsageError(f"{path} is not valid TOML: nested too deeply") from None
    except ValueError as exc:  # int() refuses an integer of more than 4300 digits
        raise UsageError(f"{path} is not valid TOML: {str(exc).split(';')[0]}") from None


def section_of(data: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The settings table of a parsed file: the whole of mcptape.toml, pyproject's [tool.mcptape]."""
    if is_own_file(path):
        return data
    tool = data.get("tool", {})
    section = tool.get("mcptape") if isinstance(tool, dict) else None
    if section is not None and not isinstance(section, dict):
        raise UsageError(f"{path}: [tool.mcptape] must be a table")
    return section


def load_config(start: Path | None = None, *, pyproject: Path | None = None) -> Config:
    """Read the settings from `pyproject` (a pyproject.toml or an mcptape.toml), or from the nearest
    settings file at or above `start` (the current directory)."""
    path = pyproject if pyproject is not None else find_config(start or Path.cwd())
    if path is None:
        return Config()
    section = section_of(read_toml(path), path)
    if section is None:
        return Config()
    return parse_section(section, path)


def parse_section(section: dict[str, Any], path: Path) -> Config:
    where = str(path) if is_own_file(path) else f"{path} [tool.mcptape]"
    unknown = sorted(set(section) - KNOWN)
    if unknown:
        raise UsageError(
            f"{where}: unknown key {unknown[0]!r}", hint=f"known keys: {', '.join(sorted(KNOWN))}"
        )
    config = Config(path=path)
    server = section.get("server")
    if server is not None:
        config.server = command_of(server, where)
    transcripts = section.get("transcripts", [])
    if isinstance(transcripts, str):
        transcripts = [transcripts]
    if not isinstance(transcripts, list) or not all(type(t) is str and "\0" not in t for t in transcripts):
        raise UsageError(f"{where}: transcripts must be a list of paths")
    config.transcripts = [(path.parent / t).resolve() for t in transcripts]
    config.ignore = parse_rules(section.get("ignore", []), where)
    timeout = section.get("step-timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise UsageError(f"{where}: step-timeout must be a positive number of seconds")
        config.step_timeout = float(timeout)
    stderr = section.get("stderr", False)
    if not isinstance(stderr, bool):
        raise UsageError(f"{where}: stderr must be true or false")
    config.stderr = stderr
    allow = section.get("allow-mutating")
    if allow is not None and not isinstance(allow, bool):
        raise UsageError(f"{where}: allow-mutating must be true or false")
    config.allow_mutating = allow
    pace = section.get("pace")
    if pace is not None and pace not in ("causal", "recorded"):
        raise UsageError(f'{where}: pace must be "causal" or "recorded"')
    config.pace = pace
    config.learned = _learned(section.get("learned", []), where)
    return config


def _learned(tables: Any, where: str) -> list[Learned]:
    """The `learned` tables: each names a server (or a command) and its ignore rules."""
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise UsageError(f"{where}: learned must be tables ([[learned]] or [[tool.mcptape.learned]])")
    out = []
    for n, table in enumerate(tables, 1):
        unknown = sorted(set(table) - LEARNED_KNOWN)
        if unknown:
            raise UsageError(
                f"{where}: learned table {n}: unknown key {unknown[0]!r}",
                hint=f"known keys: {', '.join(sorted(LEARNED_KNOWN))}",
            )
        server = table.get("server")
        if server is not None and (not isinstance(server, str) or not server):
            raise UsageError(f"{where}: learned table {n}: server must be a server name")
        command = table.get("command")
        argv = tuple(command_of(command, f"{where}: learned table {n}")) if command is not None else None
        if server is None and argv is None:
            raise UsageError(f"{where}: learned table {n} names no server", hint="give server or command")
        scope = Learned(server, argv)
        scope.rules = parse_rules(table.get("ignore", []), f"{where}, learned for {scope.describe()}")
        out.append(scope)
    return out


def command_of(value: Any, where: str) -> list[str]:
    """A server command given as a list of strings, or as one string split like a shell."""
    if isinstance(value, str):
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise UsageError(f"{where}: server {value!r} cannot be split: {exc}") from None
    elif isinstance(value, list) and all(isinstance(a, str) for a in value):
        argv = list(value)
    else:
        raise UsageError(f"{where}: server must be a list of strings or one command string")
    if not argv:
        raise UsageError(f"{where}: server is empty")
    if any("\0" in a for a in argv):  # no program takes one: exec() would refuse it
        raise UsageError(f"{where}: server holds a NUL character")
    return argv

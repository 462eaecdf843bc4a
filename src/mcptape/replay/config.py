"""`[tool.mcptape]` in pyproject.toml: the replay settings a project keeps next to its code.

[tool.mcptape]
server = ["python", "-m", "my_server"]      # or one string, split like a shell would
transcripts = ["tests/transcripts"]         # where the pytest plugin looks (default: anywhere)
ignore = ["tools/call:result.content[*].text|json.timestamp"]
step-timeout = 10
stderr = false
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.diff.ignore import Rule, parse_rules
from mcptape.errors import UsageError

KNOWN = {"server", "transcripts", "ignore", "step-timeout", "stderr", "pace"}


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


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start`."""
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(start: Path | None = None, *, pyproject: Path | None = None) -> Config:
    """Read `[tool.mcptape]` from `pyproject` or the nearest pyproject.toml above `start` (cwd)."""
    path = pyproject if pyproject is not None else find_pyproject(start or Path.cwd())
    if path is None:
        return Config()
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
    section = data.get("tool", {}).get("mcptape")
    if section is None:
        return Config()
    if not isinstance(section, dict):
        raise UsageError(f"{path}: [tool.mcptape] must be a table")
    return parse_section(section, path)


def parse_section(section: dict[str, Any], path: Path) -> Config:
    where = f"{path} [tool.mcptape]"
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
    if not isinstance(transcripts, list) or not all(isinstance(t, str) for t in transcripts):
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
    pace = section.get("pace")
    if pace is not None and pace not in ("causal", "recorded"):
        raise UsageError(f'{where}: pace must be "causal" or "recorded"')
    config.pace = pace
    return config


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
    return argv

"""What a replay runs and where its new session goes: the server command (given, configured or
recorded, in the recorded working directory), and the temporary session folders (`--keep-dir`,
removed when the sessions are the same; those older than a day are pruned at the next replay).
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcptape.errors import OutputError, UsageError
from mcptape.replay.config import Config
from mcptape.textsafe import escape_text
from mcptape.transcript.events import Header

SESSION_PREFIX = "mcptape-replay-"  # the folders of temporary new sessions
SESSION_MAX_AGE = 24 * 3600.0  # older ones are removed when the next replay starts
GIVEN, CONFIGURED, RECORDED_COMMAND = "given", "config", "recorded"


@dataclass(frozen=True)
class Server:
    """The command a replay runs, where, and where it came from (`given`, `config`, `recorded`)."""

    command: list[str]
    cwd: str | None
    origin: str
    stubs: tuple[str, ...] = ()  # the commands replaced with recording stubs (recorded, then given)

    def describe(self) -> str:
        """One line for stderr, when the command was not given (the user should see what runs)."""
        where = f" in {escape_text(self.cwd)}" if self.cwd else ""
        what = "the recorded command" if self.origin == RECORDED_COMMAND else "the configured server"
        return f"mcptape: replaying against {what}: {escape_text(shlex.join(self.command))}{where}"


def server_for(
    header: Header, command: Sequence[str] | None, config: Config | None, cwd: str | None = None
) -> Server:
    """The command to replay against: the one given, else `[tool.mcptape] server`, else the
    recorded one (in the recorded working directory, unless `cwd` is given)."""
    if command:
        return Server(list(command), cwd, GIVEN)
    if config is not None and config.server:
        return Server(list(config.server), cwd, CONFIGURED)
    if not header.command:
        raise UsageError(
            "no server command to replay against (none given, none configured, none recorded)",
            hint="give one after --, or set [tool.mcptape] server",
        )
    where = cwd if cwd is not None else (header.cwd or None)
    if where is not None and not os.path.isdir(where):
        raise UsageError(
            f"the recorded working directory {where} does not exist",
            hint="give the server command after -- (it runs in the current directory)",
        )
    return Server(list(header.command), where, RECORDED_COMMAND)


def stubs_for(header: Header, given: Sequence[str]) -> tuple[str, ...]:
    """The commands to replace with recording stubs: the ones the recording had (`record --stub`,
    in the header's `side_effects`), then the given ones, each once. The recorded command ran
    against a stub, so the replay must too: the real command would run (and the exec lines differ)."""
    effects = header.extra.get("side_effects")
    recorded = effects.get("stubs") if isinstance(effects, dict) else None
    names = [n for n in recorded if isinstance(n, str)] if isinstance(recorded, list) else []
    for name in names:  # `record --stub` took bare names only: anything else was not written by it
        if not name or "/" in name or name in (".", "..") or "\0" in name:
            raise UsageError(
                f"the transcript's header names a stub that is not a command name: {escape_text(name)!r}",
                hint="the header was not written by mcptape record; fix its side_effects.stubs",
            )
    return tuple(dict.fromkeys([*names, *given]))


def prune_sessions(parent: Path, *, max_age: float = SESSION_MAX_AGE, now: float | None = None) -> int:
    """Remove the temporary session folders (`mcptape-replay-*`) under `parent` that are older
    than `max_age` seconds and belong to this user; the number removed."""
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(SESSION_PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_dir(follow_symlinks=False) or st.st_uid != os.getuid():
            continue
        if now - st.st_mtime > max_age:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed


def session_folder(keep_dir: str | os.PathLike[str] | None) -> Path:
    """A new folder for a temporary session (under `keep_dir`, created 0700 when missing), once the
    old ones there are pruned."""
    parent = Path(keep_dir) if keep_dir is not None else Path(tempfile.gettempdir())
    try:
        parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create --keep-dir {parent}: {exc.strerror or exc}") from None
    prune_sessions(parent)
    try:
        return Path(tempfile.mkdtemp(prefix=SESSION_PREFIX, dir=parent))
    except OSError as exc:
        raise OutputError(f"cannot create a session folder in {parent}: {exc.strerror or exc}") from None

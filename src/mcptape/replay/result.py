"""A replay's result, whatever the transport: the recording, the new session, how the run went and
the diff between them (`ReplayResult`), and `replace_with` (`--update`'s atomic copy)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.diff.sessions import Diff
from mcptape.errors import EXIT_FINDINGS, EXIT_OK, OutputError, UsageError
from mcptape.replay.environment import Environment
from mcptape.replay.outcome import Issue, Run, Substitution
from mcptape.replay.where import Server
from mcptape.surface.compare import Diff as SurfaceDiff
from mcptape.transcript.events import Header


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
    environment: Environment | None = None  # the server's environment (None: no server was started)
    surface: SurfaceDiff | None = None  # the tool surfaces compared (None: neither session listed one)

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
    def verdict(self) -> str:
        """`same`, `different`, or `incomplete`: nothing differed in what was replayed, but calls
        that may change data were held back (`replay.guard`), so they were not tested."""
        if self.same:
            return "same"
        if self.run.held and self.diff.same:
            return "incomplete"
        return "different"

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
        if self.run.held:  # the new session lacks the held calls: the recording would lose them
            raise UsageError(
                f"{self.original} not updated: {len(self.run.held)} client frame(s) were held back "
                "(they may change data), and the new session does not have them",
                hint="run --update with --allow-mutating, the server on a scratch copy of its data",
            )
        replace_with(self.original, self.new)


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

"""The tool surface the probe listed, written as `tools.lock.json` in its output folder (issue 28).

The lock is the one `mcptape tools lock` writes of the same transcript (`surface.extract` reads the
clean start's session, `surface.lockfile` writes it): commit it, and `mcptape tools diff` it against
the next release. Nothing is listed twice: the surface is the one the clean start's `tools/list`
answer declared (its first page: the probe follows no `nextCursor`, and the lock says what it saw).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from mcptape.errors import MCPTapeError
from mcptape.probe.folder import LOCK_NAME

__all__ = ["LOCK_NAME", "SurfaceLock", "write_surface_lock"]


class SurfaceLock(NamedTuple):
    """Where the lock went and how many tools it holds (`path` None: not written, `why` says why)."""

    path: Path | None
    tools: int = 0
    why: str = ""


def write_surface_lock(transcript: Path, path: Path) -> SurfaceLock:
    """Lock the surface `transcript` declares into `path` (OUT_DIR/tools.lock.json); never raises
    for a session that listed nothing or a folder that cannot be written (the verdict stands)."""
    from mcptape.share.outputs import write_file
    from mcptape.surface.extract import read_transcript
    from mcptape.surface.lockfile import lock_text

    try:
        surface = read_transcript(transcript)
        write_file(path, lock_text(surface).encode("utf-8", "surrogatepass"))
    except MCPTapeError as exc:
        return SurfaceLock(None, why=exc.message)
    except OSError as exc:
        return SurfaceLock(None, why=f"cannot write {path}: {exc.strerror}")
    return SurfaceLock(path, len(surface.tools))

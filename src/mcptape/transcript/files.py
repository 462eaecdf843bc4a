"""Opening a transcript for writing (os only: `mcptape record` calls this before it spawns)."""

from __future__ import annotations

import os

from mcptape.errors import OutputError

RECORD_EXISTS_HINT = "pass --overwrite, or give -o a directory to get a new file per session"


def open_output(
    path: str | os.PathLike[str], *, overwrite: bool = False, exists_hint: str = RECORD_EXISTS_HINT
) -> int:
    """Open `path` for appending (creating it 0600) and return the fd, or fail with one sentence.

    `exists_hint` is what to do when `path` is an existing file (the default is `record`'s advice).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
    flags |= os.O_TRUNC if overwrite else os.O_EXCL
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        if os.path.isdir(path):
            raise OutputError(f"cannot write {path}: it is a directory", hint="name a file") from None
        raise OutputError(f"{path} already exists", hint=exists_hint) from None
    except FileNotFoundError:
        parent = os.path.dirname(os.fspath(path)) or "."
        if os.path.isdir(parent):  # e.g. /proc: it exists, but no file can be created there
            raise OutputError(f"cannot write {path}: no file can be created in {parent}") from None
        raise OutputError(f"cannot write {path}: directory {parent} does not exist") from None
    except IsADirectoryError:
        if not os.path.isdir(path):  # `-o tapes/` for a directory that is not there yet
            raise OutputError(
                f"cannot write {path}: directory {path} does not exist",
                hint=f"create it first: mkdir -p {os.fspath(path)}",
            ) from None
        raise OutputError(f"cannot write {path}: it is a directory", hint="name a file") from None
    except PermissionError:
        raise OutputError(f"cannot write {path}: permission denied") from None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if overwrite:
        _make_private(fd)
    return fd


def _make_private(fd: int) -> None:
    """An overwritten regular file keeps its old mode: make it 0600 like a new transcript (it may
    hold tokens). Devices (`/dev/null`) and files mcptape may not chmod are left as they are."""
    import stat

    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
    except OSError:
        pass

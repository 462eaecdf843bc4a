"""Writing an output so that it can never destroy an input.

An output that is the input under another name (a hard link, a symlink, `./a` for `a`) is refused
by comparing the files (device and inode), never the paths. A regular file is written to a
temporary file in the same directory and renamed over the output once it is complete: until then
the output is as it was, a failure leaves it so, and a hard link that shares the output's name
keeps the old contents. A device (`-o /dev/null`, `/dev/full`) or a FIFO is written in place. A
symlink is followed: the file it leads to is replaced, the link stays.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

from mcptape.errors import OutputError


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Are `a` and `b` the same file (symlinks followed; False when either does not exist)?"""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def refuse_input(inputs: Iterable[Path], output: Path, hint: str) -> None:
    """An OutputError when `output` is one of `inputs` under any name."""
    for source in inputs:
        if same_file(source, output):
            same = (
                ""
                if os.path.abspath(source) == os.path.abspath(output)
                else f" ({source}, under another name)"
            )
            raise OutputError(f"{output} is the input transcript{same}", hint=hint)


class Output:
    """One output file being written: `fd` while it is written, then `commit()` or `abort()`.

    The checks (a directory, an existing file without `overwrite`, a missing parent directory)
    fail at once with one sentence, before anything is written.
    """

    def __init__(self, path: Path, *, overwrite: bool, exists_hint: str) -> None:
        self.path = path
        self.overwrite = overwrite
        self.exists_hint = exists_hint
        self.final = path
        self.temporary: str | None = None
        target = _stat(path)
        if target is not None and stat.S_ISDIR(target.st_mode):
            raise OutputError(f"cannot write {path}: it is a directory", hint="name a file")
        if (target is not None or os.path.islink(path)) and not overwrite:
            raise OutputError(f"{path} already exists", hint=exists_hint)
        if target is not None and not stat.S_ISREG(target.st_mode):
            from mcptape.transcript.files import open_output

            self.fd = open_output(path, overwrite=True)  # a device or a FIFO: written in place
            return
        self.final = Path(os.path.realpath(path))  # a symlink's target is replaced, the link stays
        parent = self.final.parent
        if not parent.is_dir():
            raise OutputError(f"cannot write {path}: directory {parent} does not exist")
        self.temporary = str(parent / f".{self.final.name}.{secrets.token_hex(4)}.part")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            self.fd = os.open(self.temporary, flags, 0o600)
        except PermissionError:
            raise OutputError(f"cannot write {path}: permission denied") from None
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None

    def write(self, data: bytes) -> None:
        """Write all of `data` (an OutputError when the disk refuses)."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def commit(self) -> None:
        """Put the complete file in place of the output."""
        os.close(self.fd)
        if self.temporary is None:
            return
        try:
            if self.overwrite:
                os.replace(self.temporary, self.final)
            else:  # never over a file that appeared meanwhile
                _link(self.temporary, self.final)
        except FileExistsError:
            raise OutputError(f"{self.path} already exists", hint=self.exists_hint) from None
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        finally:
            _unlink(self.temporary)

    def abort(self) -> None:
        """Leave the output as it was (the temporary file goes)."""
        try:
            os.close(self.fd)
        except OSError:
            pass
        if self.temporary is not None:
            _unlink(self.temporary)


def write_file(path: Path, data: bytes, *, overwrite: bool = True, exists_hint: str = "") -> None:
    """`data` as the whole of `path`, replaced at once (see `Output`)."""
    out = Output(path, overwrite=overwrite, exists_hint=exists_hint)
    try:
        out.write(data)
    except BaseException:
        out.abort()
        raise
    out.commit()


def _link(source: str, destination: Path) -> None:
    """Give `source` the name `destination`, which must not exist (a file system without hard
    links: rename, after one more look)."""
    try:
        os.link(source, destination)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(destination):
            raise FileExistsError(destination) from None
        os.replace(source, destination)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass

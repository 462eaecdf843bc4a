"""The tools lock: a surface as readable JSON, made to be committed like a lockfile.

    {
      "capabilities": {...},            the server's, as declared
      "instructions": "...",            when the server gives some
      "mcptapeToolsLock": 1,            the format version
      "prompts": [...],                 each kind the server was asked for, sorted by name (or URI)
      "protocolVersion": "2025-06-18",
      "resourceTemplates": [...],
      "resources": [...],
      "serverInfo": {...},
      "sha256": {"tools": {"add": "9f86...", ...}, ...},   one hash per definition
      "tools": [{"description": ..., "inputSchema": ..., "name": "add", ...}, ...]
    }

Every object's members are sorted and the text is indented by two spaces: the file is a function
of the surface alone (no date, no path, no command line), so locking the same server twice gives the
same bytes, and a reader never depends on key order or whitespace. A definition's hash is the sha256
of its canonical JSON (`model.digest`).

`read_lock` refuses, with one line, a file that is not a lock, a lock of another format version, a
truncated one, and one whose hashes do not match its definitions (edited by hand).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import orjson

from mcptape.errors import MCPTapeError
from mcptape.jsonsafe import dumps
from mcptape.surface.model import KINDS, Definition, Surface, digest
from mcptape.textsafe import escape_controls, escape_json

LOCK_KEY = "mcptapeToolsLock"
LOCK_FORMAT = 1
MAX_LOCK = 256 << 20  # bytes: a lock is a few hundred KiB at most
RELOCK = "run mcptape tools lock again"


class LockError(MCPTapeError):
    """A file that is not a tools lock mcptape can read."""


def lock_document(surface: Surface) -> dict[str, Any]:
    """The lock's JSON value (see the module's docstring)."""
    document: dict[str, Any] = {LOCK_KEY: LOCK_FORMAT}
    if surface.protocol_version is not None:
        document["protocolVersion"] = surface.protocol_version
    for member, value in (
        ("serverInfo", surface.server_info),
        ("capabilities", surface.capabilities),
        ("instructions", surface.instructions),
    ):
        if value is not None:
            document[member] = value
    hashes: dict[str, dict[str, str]] = {}
    for kind in KINDS:
        if kind.member not in surface.listed:
            continue
        found = surface.of_kind(kind)
        names = sorted(found)
        document[kind.member] = [found[name].value for name in names]
        hashes[kind.member] = {name: found[name].sha256 for name in names}
    document["sha256"] = hashes
    return document


def lock_text(surface: Surface) -> str:
    """The lock file's text: sorted members, two-space indent, a final newline; every character a
    reader could not see or that would reorder the text (bidi controls, zero-width, C1) written as
    a `\\uXXXX` escape (`textsafe.escape_json`: the same JSON value, so the same hashes), so that
    `git diff` and `cat` of a committed lock show a hidden character instead of hiding it."""
    return escape_json(dumps(lock_document(surface), indent=True, sort_keys=True)) + "\n"


def is_lock(data: bytes) -> bool:
    """Could this file be a tools lock (a JSON object)? `read_lock` says why when it is not one
    (the lock key can come after a long `instructions`: it is not looked for here)."""
    return data.lstrip()[:1] == b"{"


def read_lock(path: str | os.PathLike[str], data: bytes | None = None) -> Surface:
    """The surface a lock file holds (raises LockError, exit 2, for anything else)."""
    name = escape_controls(str(path))
    if data is None:
        data = read_bytes(Path(path))
    try:
        document = _loads(data)
    except (ValueError, RecursionError) as exc:
        cut = "" if data.rstrip().endswith(b"}") else " (it ends early: truncated?)"
        why = "nested too deeply" if isinstance(exc, RecursionError) else escape_controls(str(exc))
        raise LockError(f"{name} is not a readable tools lock: {why}{cut}", hint=RELOCK) from None
    if type(document) is not dict or LOCK_KEY not in document:
        raise LockError(
            f"{name} is not a tools lock (no {LOCK_KEY} member)",
            hint="make one with: mcptape tools lock TRANSCRIPT -o FILE",
        )
    version = document[LOCK_KEY]
    if version != LOCK_FORMAT or type(version) is not int:
        raise LockError(
            f"{name} is a tools lock of format {escape_controls(repr(version))}; this mcptape reads format "
            f"{LOCK_FORMAT}",
            hint=RELOCK + " with this mcptape",
        )
    return _surface(document, name, definition_lines(data))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _loads(data: bytes) -> Any:
    """The lock's JSON value. orjson reads a number past a double's range (a server's `10**400`,
    which the check core read exactly and the lock wrote so) as an error: Python's reader takes it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            return json.loads(data, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise exc from None


def definition_lines(data: bytes) -> dict[tuple[str, str], int]:
    """The line of each definition's name in a lock as `lock_text` writes it (`(member, name)`);
    a lock formatted otherwise gives fewer (the definitions are still read, without a line)."""
    arrays = {f'  "{kind.member}": [': kind for kind in KINDS}
    found: dict[tuple[str, str], int] = {}
    current = None
    for number, row in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if row in arrays:
            current = arrays[row]
        elif current is not None and row.startswith(f'      "{current.key}": '):
            try:
                name = orjson.loads(row.split(": ", 1)[1].rstrip(","))
            except orjson.JSONDecodeError:
                continue
            if type(name) is str:
                found.setdefault((current.member, name), number)
    return found


def _surface(document: dict[str, Any], name: str, lines: dict[tuple[str, str], int]) -> Surface:
    surface = Surface(
        server_info=document.get("serverInfo"),
        capabilities=document.get("capabilities"),
        instructions=document.get("instructions"),
        source={"lock": name},
    )
    version = document.get("protocolVersion")
    surface.protocol_version = version if type(version) is str else None
    hashes = document.get("sha256", {})
    if type(hashes) is not dict:
        raise LockError(f"{name}: sha256 is not an object", hint=RELOCK)
    for kind in KINDS:
        if kind.member not in document:
            continue
        items = document[kind.member]
        if type(items) is not list:
            raise LockError(f"{name}: {kind.member} is not an array", hint=RELOCK)
        stated = hashes.get(kind.member, {})
        if type(stated) is not dict:
            raise LockError(f"{name}: sha256.{kind.member} is not an object", hint=RELOCK)
        found: dict[str, Definition] = {}
        for position, item in enumerate(items):
            key = item.get(kind.key) if type(item) is dict else None
            if type(key) is not str or key in found:
                raise LockError(
                    f"{name}: {kind.member}[{position}] is not an object with its own string {kind.key}",
                    hint=RELOCK,
                )
            definition = Definition.of(kind, key, item, line=lines.get((kind.member, key)))
            if stated.get(key, definition.sha256) != definition.sha256:
                raise LockError(
                    f"{name}: the sha256 of {kind.noun} {escape_controls(key)!r} does not match its "
                    "definition (the lock was edited by hand)",
                    hint=RELOCK,
                )
            found[key] = definition
        surface.definitions[kind.member] = found
        surface.listed.add(kind.member)
    return surface


def read_bytes(path: Path) -> bytes:
    """A file's bytes, or one LockError saying why they cannot be read."""
    name = escape_controls(str(path))
    try:
        if path.is_dir():
            raise LockError(f"{name} is a directory, not a lock or a transcript")
        if not stat.S_ISREG(os.stat(path).st_mode):  # before open(): a FIFO with no writer blocks it
            raise LockError(
                f"{name} is not a regular file (a pipe, socket or device)",
                hint="mcptape reads locks and transcripts from files: save it to one first",
            )
        with open(path, "rb") as fh:
            data = fh.read(MAX_LOCK + 1)
    except FileNotFoundError:
        raise LockError(f"{name} does not exist", hint="check the path") from None
    except OSError as exc:
        raise LockError(f"{name} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_LOCK:
        raise LockError(f"{name} is larger than {MAX_LOCK >> 20} MiB: not a tools lock")
    if not data.strip():
        raise LockError(f"{name} is empty: not a tools lock or a transcript", hint=RELOCK)
    return data


__all__ = ["LOCK_FORMAT", "LockError", "digest", "is_lock", "lock_document", "lock_text", "read_lock"]

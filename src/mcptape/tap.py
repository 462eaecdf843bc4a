"""The executor tap for Python servers: report each external action before performing it.

    from mcptape import tap

    tap.executed("deploy-preview", request_id=9, target="https://preview.example")

writes one JSON line, `{"action": "deploy-preview", "request_id": 9, "target": "..."}`, to the file
descriptor named in `$MCPTAPE_EXEC_FD` (set by `mcptape record`, replay and probe). Where the
variable is absent, `executed` does nothing. It never raises into the server: a tap that cannot
be written is switched off with one line on stderr.

`kind` (optional) says what the action does to the world, one of KINDS: `read` (changes nothing),
`create` (adds something new), `update` (changes or overwrites something that exists), `delete`
(removes something), `external` (reaches a system outside the tool's own domain: a message sent, a
third-party API). `mcptape check` holds it against the tool's annotations (readOnlyHint,
destructiveHint, openWorldHint; docs/check.md); without it an action counts as one that may change
state.

Dependency-free (stdlib `json`, `os`, `threading` only), so a server can import it without
pulling in the rest of mcptape.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any

ENV_VAR = "MCPTAPE_EXEC_FD"
KINDS = ("read", "create", "update", "delete", "external")
"""The documented values of a tap line's optional `kind` (what `mcptape check` understands)."""

_lock = threading.Lock()
_broken: set[int] = set()


def tap_fd() -> int | None:
    """The tap's file descriptor, or None when this process is not recorded by mcptape."""
    value = os.environ.get(ENV_VAR)
    if not value:
        return None
    try:
        fd = int(value)
    except ValueError:
        return None
    if fd < 0 or fd in _broken:
        return None
    return fd


def enabled() -> bool:
    """True when `executed` will write somewhere (the process runs under mcptape)."""
    return tap_fd() is not None


def encode(
    action: str, request_id: Any = None, details: dict[str, Any] | None = None, kind: str | None = None
) -> bytes:
    """One tap line: `action`, `request_id` and `kind` (when given) first, then the details;
    non-JSON values as repr."""
    record: dict[str, Any] = {"action": action, "request_id": request_id}
    if kind is not None:
        record["kind"] = kind
    for key, value in (details or {}).items():
        record.setdefault(key, value)
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=repr)
    return text.encode("utf-8", "replace") + b"\n"


def executed(action: str, /, request_id: Any = None, kind: str | None = None, **details: Any) -> None:
    """Report that this server is about to perform `action` for JSON-RPC request `request_id`.

    Call it right before the side effect (HTTP call, SSH, file write, ...), with the id of the
    request that caused it, so `mcptape check` can tell an action after a reject. `kind`: what the
    action does (one of KINDS: read, create, update, delete, external), so check can hold it
    against the tool's annotations; written only when given, never checked here.
    """
    fd = tap_fd()
    if fd is None:
        return
    try:
        line = encode(str(action), request_id, details, kind)
        with _lock:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
    except Exception as exc:  # the tap must never break the server it observes
        _broken.add(fd)
        try:
            sys.stderr.write(f"mcptape.tap: executor tap on fd {fd} switched off: {exc}\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):  # no usable stderr either
            pass

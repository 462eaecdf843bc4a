"""How the session takes a notification either way (a part of `session.Session`, kept apart): the
2026-07-28 rules (`modern`), cancels and cancels of unknown requests, a changed tool list, a task's
terminal status, progress and log messages in the handshake revisions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcptape.check import rules
from mcptape.check.findings import finding_at
from mcptape.check.model import IN, OUT, At, Finding
from mcptape.check.modern import TOKEN_TYPES, Modern
from mcptape.check.pairing import Pairing, cancel_unknown
from mcptape.check.promises import Promises
from mcptape.check.protocol import VersionTracker
from mcptape.check.tasks import TERMINAL_TASK
from mcptape.check.tools import ToolSchemas

_PROGRESS = "notifications/progress"  # a plain notification's method


class Notices:
    """`Session`'s notifications: the state it reads is the session's own."""

    tracker: VersionTracker
    modern: Modern
    client: Pairing
    server: Pairing
    promises: Promises
    tools: ToolSchemas
    emit: Callable[[Finding], None]
    handshake_capabilities: dict[str, Any] | None
    undeclared_logging: At | None

    def _notification(self, method: str, value: dict[str, Any], at: At) -> None:
        """A notification either way: the 2026-07-28 rules, cancels, a changed tool list."""
        ch = at.channel
        if self.tracker.stateless:
            params = value.get("params")  # an object when present (classify)
            modern = self.modern
            if (
                method == _PROGRESS
                and params is not None
                and (token := params.get("progressToken")) in modern.tokens
                and type(token) in TOKEN_TYPES
            ):
                modern.advance(token, params.get("progress"), at)  # a request in flight (see _PROGRESS)
            elif ch == IN:
                modern.client_notification(method, params, at)
            else:
                modern.server_notification(method, params, at)
        if method == "notifications/cancelled":
            params = value.get("params")
            if type(params) is dict:
                target = params.get("requestId")
                if ch == IN:
                    self.promises.cancelled(target, self.client.pending, at.ref("cancel"))
                pairing = self.client if ch == IN else self.server
                if not self.tracker.stateless:  # 2026-07-28's own rules are check/modern.py's
                    unknown = cancel_unknown(target, pairing, at)
                    if unknown is not None:
                        self.emit(unknown)
                pairing.cancel(target)
        elif method == "notifications/tools/list_changed" and ch == OUT:
            self.promises.changed()
            self.tools.changed()
        elif method == "notifications/tasks/status" and ch == OUT and self.modern.task_tokens:
            params = value.get("params")
            if type(params) is dict and params.get("status") in TERMINAL_TASK:
                self.modern.task_ended(params.get("taskId"))
        elif method == _PROGRESS and ch == OUT and not self.tracker.stateless:
            params = value.get("params")
            if params is not None and self.handshake_capabilities is not None:
                self.modern.progress(params.get("progressToken"), params.get("progress"), at)
        elif method == "notifications/message" and ch == OUT and not self.tracker.stateless:
            declared_at = self.undeclared_logging
            if declared_at is not None:
                self.undeclared_logging = None
                self.emit(
                    finding_at(
                        rules.UNREQUESTED_LOG,
                        declared_at,
                        f"the initialize result declares no logging capability, and the server emits "
                        f"notifications/message ({at.channel} line {at.line})",
                        related=(at.ref("log-message"),),
                    )
                )

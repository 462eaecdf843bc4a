"""`--from TRANSCRIPT`: the valid call taken from a real session, not guessed from a schema.

Every `tools/call` of the transcript that the server answered with a success (a result that is not
`isError: true` nor `input_required`) is a candidate; the runner prefers read-only tools among them.
The transcript is read through the check core (`messages`): nothing here frames or classifies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcptape.check.analyze import messages
from mcptape.check.model import IN, OUT, Kind
from mcptape.errors import UsageError
from mcptape.probe.cases import Call, sendable
from mcptape.transcript import open_transcript


def recorded_calls(path: Path) -> list[Call]:
    """The successful `tools/call`s of the transcript at `path`, in order, each once."""
    pending: dict[Any, Call] = {}
    found: list[Call] = []
    for message in messages(open_transcript(path).events()):
        if message.channel == IN and message.kind is Kind.REQUEST and message.method == "tools/call":
            params = message.value.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            arguments = params.get("arguments", {}) if isinstance(params, dict) else None
            if isinstance(name, str) and isinstance(arguments, dict) and sendable(params):
                pending[(type(message.id), message.id)] = Call(name, arguments)
        elif message.channel == OUT and message.kind is Kind.RESPONSE:
            call = pending.pop((type(message.id), message.id), None)
            result = message.value.get("result")
            if (
                call is not None
                and isinstance(result, dict)
                and result.get("isError") is not True
                and result.get("resultType", "complete") == "complete"
                and call not in found
            ):
                found.append(call)
    if not found:
        raise UsageError(
            f"--from {path}: no tools/call answered with a success in this transcript",
            hint="record a session that calls a tool successfully (mcptape record), or give --args",
        )
    return found

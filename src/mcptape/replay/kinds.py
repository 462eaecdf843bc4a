"""What a message is to a driver (pure): an answer to the client's request, or the server's own
request. Judging the message is the check core's job; these only say which way it goes."""

from __future__ import annotations

from typing import Any

from mcptape.check.model import Kind, Message

Key = tuple[Any, ...]  # where a message stands, as the diff aligns messages (`diff.sessions.Side`)


def is_answer(msg: Message) -> bool:
    """A response-shaped message (result or error, maybe invalid) that names an id."""
    if msg.kind is Kind.RESPONSE or msg.kind is Kind.ERROR_RESPONSE:
        return msg.id is not None
    return msg.kind is Kind.INVALID and msg.method is None and type(msg.value) is dict and msg.id is not None


def is_server_request(msg: Message) -> bool:
    """A request-shaped message with a method and an id (judging it is the diff's job, not the driver's)."""
    return msg.method is not None and msg.id is not None and msg.kind in (Kind.REQUEST, Kind.INVALID)

"""The progress tokens of the requests in flight (a part of `modern.Modern`, kept apart): a token is
active from the request that provides it to that request's answer.

A token provided again while active is the client's mistake ("Progress tokens **MUST** be unique
across all active requests", basic/utilities/progress), or the requests of two HTTP sessions (each
numbers its ids, the SDK's tokens, from 1): the notifications cannot be told apart, so its values are
not judged (`REPORTED`), and it stays active until every request that provided it is answered (or for
ever, when two of them shared an id as well)."""

from __future__ import annotations

from typing import Any, Protocol

from mcptape.check.model import RequestId

REPORTED: Any = object()  # a token whose progress went back (found once), or shared: not judged
KEPT = 4096


class Modern(Protocol):
    """The token state of `modern.Modern`."""

    watched: dict[RequestId, Any]
    tokens: dict[Any, RequestId]
    reached: dict[Any, Any]
    sharing: dict[Any, int]
    done_tokens: dict[Any, None]
    done_older: dict[Any, None]


def provide(modern: Modern, rid: RequestId, token: Any) -> None:
    """Request `rid` provides a progress token: notifications may reference it until its answer."""
    if type(token) is int or type(token) is str:  # TOKEN_TYPES
        if token in modern.tokens:
            modern.sharing[token] = modern.sharing.get(token, 0) + 1
            modern.reached[token] = REPORTED
        else:
            modern.reached.pop(token, None)
        modern.tokens[token] = rid
        modern.watched[rid] = token


def release(modern: Modern, token: Any) -> None:
    """The answer to a request that provided `token`: the token is done, unless another request
    provided it too."""
    sharing = modern.sharing
    if sharing and token in sharing:
        left = sharing.pop(token) - 1
        if left:
            sharing[token] = left
    elif modern.tokens.pop(token, None) is not None:
        modern.reached.pop(token, None)
        done = modern.done_tokens  # remembered in two generations, like `Recent` (no call here)
        done[token] = None
        if len(done) > KEPT:
            modern.done_older, modern.done_tokens = done, {}

"""`mcptape serve FILE --listen --inject CASE` (a real process): each HTTP hard output reaches the
official SDK client (2026-07-28) on its first call past the handshake, and what the client does
with it is pinned here: it refuses a wrong Content-Type, an SSE event that is not JSON, a stream
cut mid-event and an empty 200; it follows a redirect; it takes a response with a foreign id on
its request's stream for its answer (the SDK gives a stream's response the request's id)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.replay.http.helpers import Tape, mcptape, notes_session
from tests.serve.helpers import listening


@pytest.fixture
def auto(auto_tape: Tape) -> Tape:
    """The SDK client's auto session with notes_http.py (tests/replay/http/recordings.py: recorded
    once per run, shared with the replay and serve tests; read it, never modify it)."""
    return auto_tape


def _outcome(url: str) -> str:
    """ "went on" when the SDK session ran to its end, else the message of what it raised."""

    async def session() -> None:
        with anyio.fail_after(30):
            await notes_session(url, "auto")

    try:
        anyio.run(session)
    except BaseException as exc:  # the SDK raises inside task groups
        leaf: BaseException = exc
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        return f"{type(leaf).__name__}: {leaf}"
    return "went on"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("http-wrong-content-type", "text/plain"),
        ("http-sse-not-json", "Failed to parse SSE message"),
        ("http-cut-mid-event", "SSE stream ended without a response"),
        ("http-empty-200", "Error"),
        ("http-foreign-id", "ValidationError"),
        ("http-redirect", "went on"),
        ("http-session-changes", "went on"),
    ],
)
def test_the_sdk_client_meets_each_http_hard_output(
    auto: Tape, tmp_path: Path, case: str, expected: str
) -> None:
    """The case is played on the first call (greet) and said on stderr; the SDK's outcome is the one
    named (a refusal's message, or going on)."""
    with listening(auto.path, tmp_path, "--inject", case) as (url, _, err):
        outcome = _outcome(url)
    assert expected in outcome, outcome
    assert f"injected {case} into the answer to tools/call" in err.read_text()


def test_http_cases_need_listen_and_stdio_cases_need_stdio(auto: Tape) -> None:
    """An HTTP case without --listen, a stdio case with it: exit 2, one line each."""
    alone = mcptape("serve", str(auto.path), "--inject", "http-redirect")
    assert alone.returncode == 2 and "--inject http-redirect is for HTTP clients" in alone.stderr
    mixed = mcptape("serve", str(auto.path), "--listen", "0", "--inject", "banner-same-line")
    assert mixed.returncode == 2 and "--inject is for stdio clients: banner-same-line" in mixed.stderr

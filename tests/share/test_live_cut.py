"""Must show (issue 27.9): `record --redact` writes a line longer than its cut in pieces, and a
secret past a cut is still replaced, even when the cut fell inside a JSON string (the rest of the
line is read from inside that string, so `"password": "..."` after it is still a key and its value).
Nothing else is lost: every byte the server wrote is recorded, in order, each piece timed.

The cut is 8 MiB; `$MCPTAPE_REDACT_CUT` moves it to 256 KiB here, so the SDK server's 3 MiB answer,
read through the recorder's 1 MiB pipe, crosses it in each read (the SDK takes seconds per 10 MiB)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.share.live import CUT_ENV
from mcptape.share.placeholder import key_from_header, placeholder
from mcptape.transcript import Event, open_transcript
from tests.clients import recorded, sdk_session
from tests.conftest import PYTHON, SERVERS
from tests.servers.nr_long_answer import PASSWORD, document

pytestmark = pytest.mark.slow

SERVER = [PYTHON, str(SERVERS / "nr_long_answer.py")]
CUT = 256 << 10
SIZE = 3 << 20  # more than the recorder's 1 MiB pipe holds: read in pieces, each past the cut


async def export(client: Client) -> dict[str, Any]:
    result = await client.call_tool("export", {"size": SIZE})
    return {"structured": result.structured_content}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One session recorded with `record --redact` by the installed script, cut at 256 KiB."""
    path = tmp_path_factory.mktemp("cut") / "live.jsonl"
    seen = sdk_session(
        recorded(SERVER, path, "--redact"), script=export, env={**os.environ, CUT_ENV: str(CUT)}
    )
    assert seen.results["structured"]["connection"]["password"] == PASSWORD  # the client got it whole
    return path


def _out(path: Path) -> list[Event]:
    return [e for e in open_transcript(path).events() if e.ch == "out"]


def test_a_secret_after_a_cut_inside_a_json_string_is_redacted(live: Path) -> None:
    """The answer is written in pieces, each cut inside the document's string, and the password
    that follows the document is a placeholder."""
    pieces = [e.data for e in _out(live)]
    assert PASSWORD.encode() not in b"".join(pieces)
    cut = [data for data in pieces if not data.endswith(b"\n")]
    assert len(cut) >= 2, "the answer crossed the cut more than once"
    assert all(data[-1:].isdigit() or data.endswith(b",") for data in cut), "each cut is in the document"


def test_every_byte_is_recorded_in_order_and_timed(live: Path) -> None:
    """Joined, the pieces are the answer the client got, byte for byte but the placeholder; each
    piece has its time, in order."""
    events = _out(live)
    lines = b"".join(e.data for e in events).splitlines()
    assert len(lines) == 3  # server/discover (or initialize), tools/list, tools/call
    answer = orjson.loads(lines[-1])
    key = key_from_header(open_transcript(live).header.extra["redacted"])
    assert key is not None
    assert answer["result"]["structuredContent"] == {
        "document": document(SIZE),
        "connection": {"host": "db.internal", "password": placeholder(key, PASSWORD)},
    }
    times = [e.t for e in events]
    assert all(t > 0 for t in times) and times == sorted(times)

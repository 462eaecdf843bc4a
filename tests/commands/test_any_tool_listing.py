"""Every command that reads a tool listing survives any listing a server can send (a property test):
tools of any JSON type, names, descriptions, schemas and annotations of any type and depth, every
unsafe character. export (html, otlp, har), tools lock, tools diff and tools drift exit 0, 1 or 2
with nothing unsafe on stdout or stderr, and a lock is a fixed point: `tools diff` of a transcript's
lock against that transcript finds nothing, and locking the lock's transcript again gives the same
bytes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.commands.tapes import assert_clean_run, line, message, record, run, write

UNSAFE = ["\x1b[31m", "\x1b]8;;http://e/\x07", "\x00", "\u202e", "\u2028", "\x9b", "\U000e0041", "`|<b>"]
TEXT = st.one_of(st.text(max_size=6), st.sampled_from(UNSAFE))
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), TEXT)
JSON = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=8,
)
TOOL = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"name": st.one_of(TEXT, JSON), "inputSchema": st.one_of(st.just({"type": "object"}), JSON)},
        optional={
            "description": st.one_of(TEXT, JSON),
            "annotations": JSON,
            "title": JSON,
            "outputSchema": JSON,
        },
    ),
)
LISTING = st.one_of(st.lists(TOOL, max_size=4), JSON)


def listing_tape(path: Path, tools: Any) -> Path:
    client = {"name": "c", "version": "1"}
    server = {"name": "s", "version": "1"}
    return write(
        path,
        [
            line(
                0.01,
                "in",
                message(
                    id=0, method="initialize", params={"protocolVersion": "2025-06-18", "clientInfo": client}
                ),
            ),
            line(
                0.02,
                "out",
                message(
                    id=0,
                    result={
                        "protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {}},
                        "serverInfo": server,
                    },
                ),
            ),
            line(0.03, "in", message(id=1, method="tools/list")),
            line(0.04, "out", message(id=1, result={"tools": tools})),
            record(t=0.1, ch="exit", code=0, signal=None),
        ],
    )


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=LISTING)
def test_any_tool_listing_is_exported_locked_and_diffed(tmp_path: Path, tools: Any) -> None:
    """No traceback, nothing unsafe shown, and a transcript agrees with its own lock."""
    tape = listing_tape(tmp_path / "t.jsonl", tools)
    plain = listing_tape(tmp_path / "plain.jsonl", [{"name": "t", "inputSchema": {"type": "object"}}])
    for form in ("html", "otlp", "har"):
        assert_clean_run(run("export", str(tape), "--format", form), codes=[0])
    assert_clean_run(run("tools", "drift", str(tape)))
    assert_clean_run(run("tools", "diff", str(plain), str(tape)))
    assert_clean_run(run("tools", "diff", "--json", str(tape), str(plain)))
    lock = tmp_path / "t.lock.json"
    locked = run("tools", "lock", str(tape), "-o", str(lock))
    assert_clean_run(locked)
    if locked.exit_code == 0:
        assert_clean_run(run("tools", "diff", str(lock), str(tape)), codes=[0])
        again = run("tools", "lock", str(tape))
        assert again.stdout == lock.read_text()

"""The executor tap: `mcptape.tap` in a real server, and what the recorder keeps of the tap's bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptape import tap
from tests.recorder.outbound.helpers import call_span, call_tools, events, records, server

pytestmark = pytest.mark.slow

TAP = server("fx_tap_server")


async def test_tapped_actions_appear_in_order_between_their_request_and_response(tmp_path: Path) -> None:
    """Each tool call's tap lines are recorded in order, after its request and before its response."""
    out = tmp_path / "t.jsonl"
    texts = await call_tools(out, TAP, [("deploy", {"target": "alpha"}), ("deploy", {"target": "beta"})])
    assert texts == ["deployed alpha", "deployed beta"]
    evs = events(out)
    actions = records(evs, "exec")
    assert [(r["action"], r["target"]) for _, r in actions] == [
        (step, target) for target in ("alpha", "beta") for step in ("resolve", "upload", "activate")
    ]
    for target in ("alpha", "beta"):
        mine = [(t, r) for t, r in actions if r["target"] == target]
        rid, t_request, t_response = call_span(evs, "deploy", {"target": target})
        assert all(r["request_id"] == rid for _, r in mine)
        times = [t for t, _ in mine]
        assert t_request <= times[0] <= times[1] <= times[2] <= t_response


async def test_a_tap_line_that_is_not_json_is_kept_as_raw_bytes(tmp_path: Path) -> None:
    """Bytes on the tap that are neither JSON nor UTF-8 are recorded exactly, not dropped."""
    out = tmp_path / "t.jsonl"
    junk = b"not json \xff\xfe {\n"
    await call_tools(out, TAP, [("raw_tap", {"hex_bytes": junk.hex()}), ("deploy", {"target": "x"})])
    evs = [e for e in events(out) if e.ch == "exec"]
    assert evs[0].raw == junk
    assert b"".join(e.data for e in evs).startswith(junk + b'{"action":"resolve"')


async def test_a_flood_on_the_tap_does_not_block_the_server(tmp_path: Path) -> None:
    """50 MiB written to the tap as fast as the server can are drained and recorded while it runs."""
    out = tmp_path / "t.jsonl"
    start = time.monotonic()
    texts = await call_tools(out, TAP, [("flood", {"megabytes": 50}), ("deploy", {"target": "after"})])
    elapsed = time.monotonic() - start
    assert texts[1] == "deployed after"
    assert texts[0].startswith("flooded ")
    flooded = int(texts[0].split()[1])
    tapped = sum(e.size for e in events(out) if e.ch == "exec")
    assert tapped >= flooded >= 50 << 20
    assert elapsed < 60


def test_executed_is_a_no_op_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside mcptape the helper writes nothing anywhere and says it is disabled."""
    monkeypatch.delenv(tap.ENV_VAR, raising=False)
    assert not tap.enabled()
    tap.executed("deploy", request_id=1)


def test_executed_writes_one_json_line_per_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """One call is one line: action and request id first, details after, non-JSON values as repr."""
    r, w = os.pipe()
    try:
        monkeypatch.setenv(tap.ENV_VAR, str(w))
        tap.executed("deploy-preview", request_id=9, target="https://preview.example", when=object)
        tap.executed("ssh", request_id="abc", argv=["ssh", "host"])
        lines = os.read(r, 65536).splitlines(keepends=True)
    finally:
        os.close(r)
        os.close(w)
    assert all(line.endswith(b"\n") for line in lines)
    first, second = (json.loads(line) for line in lines)
    assert list(first)[:2] == ["action", "request_id"]
    assert first == {
        "action": "deploy-preview",
        "request_id": 9,
        "target": "https://preview.example",
        "when": repr(object),
    }
    assert second == {"action": "ssh", "request_id": "abc", "argv": ["ssh", "host"]}


def test_executed_never_raises_into_the_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tap fd that cannot be written is switched off with one line on stderr, not an exception."""
    r, w = os.pipe()
    os.close(r)
    os.close(w)  # now a closed fd: EBADF
    monkeypatch.setenv(tap.ENV_VAR, str(w))
    monkeypatch.setattr(tap, "_broken", set())
    tap.executed("deploy", request_id=1)
    tap.executed("deploy", request_id=2)
    assert not tap.enabled()
    err = capsys.readouterr().err
    assert err.count("switched off") == 1


def test_the_helper_imports_nothing_but_the_standard_library() -> None:
    """`import mcptape.tap` loads no click, orjson, textual or rich, and no other mcptape module."""
    code = (
        "import sys, mcptape.tap\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'orjson', 'textual', 'rich')"
        " or (m.startswith('mcptape') and m not in ('mcptape', 'mcptape.tap')))\n"
        "print(bad)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

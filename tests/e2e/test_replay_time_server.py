"""`mcp-server-time` replays clean once an ignore rule reaches into the JSON text of its results."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mcp import Client

from mcptape.replay.api import replay
from mcptape.replay.config import load_config
from tests.clients import sdk_session
from tests.conftest import PYTHON

TIME_SERVER = [str(Path(PYTHON).parent / "mcp-server-time")]
RULE = "tools/call:result.content[*].text|json.datetime"
STRUCTURED = "tools/call:result.structuredContent.datetime"


async def current_time(client: Client) -> dict[str, Any]:
    now = await client.call_tool("get_current_time", {"timezone": "UTC"})
    return {"text": now.content[0].text}  # type: ignore[union-attr]


def test_time_server_replays_clean_with_a_rule_inside_the_json_text(tmp_path: Path) -> None:
    """Without the rules the datetime differs; with them it is the same, and the report says what they hid."""
    tape = tmp_path / "time.jsonl"
    seen = sdk_session(TIME_SERVER, record_to=tape, script=current_time, mode="legacy")
    assert '"datetime"' in seen.results["text"]
    time.sleep(1.1)  # make sure the clock moved on by a whole second
    # the exit is compared too: wait for mcp-server-time's own (code 0, as recorded) up to 30 s, not
    # the default 2 s a busy machine can exceed (a deadline: the replay goes on when it exits)
    strict = replay(tape, TIME_SERVER, config=False, shutdown_timeout=30)
    assert not strict.same
    changed = {c.where for p in strict.diff.differing for c in p.changes}
    assert changed == {"result.content[0].text", "result.structuredContent.datetime"}
    ruled = replay(tape, TIME_SERVER, ignore=[RULE, STRUCTURED], config=False, shutdown_timeout=30)
    assert ruled.same, ruled.render()
    hidden = sorted((pair.scope, h.where) for pair, h in ruled.diff.hidden)
    assert hidden == [
        ("tools/call", "result.content[0].text|json.datetime"),
        ("tools/call", "result.structuredContent.datetime"),
    ]
    text = ruled.render()
    assert f"{RULE} (--ignore): hid 1" in text and f"{STRUCTURED} (--ignore): hid 1" in text


def test_ignore_rules_are_read_from_pyproject(tmp_path: Path) -> None:
    """[tool.mcptape] ignore in pyproject.toml gives the same rule, named by its origin."""
    (tmp_path / "pyproject.toml").write_text(f'[tool.mcptape]\nignore = ["{RULE}"]\nstep-timeout = 3\n')
    config = load_config(tmp_path)
    assert [r.text for r in config.ignore] == [RULE] and config.step_timeout == 3.0
    assert "pyproject.toml [tool.mcptape]" in config.ignore[0].origin

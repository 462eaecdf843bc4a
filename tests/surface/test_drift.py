"""In-session drift (`tools drift`, the pure `surface.drift` that `check` is to use): a session in
which a real server rewrites a tool's description after the client listed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import Client

from tests.clients import run_session
from tests.surface.support import tools, weather

pytestmark = pytest.mark.slow


async def _upgrade_and_list_again(client: Client) -> dict[str, Any]:
    await client.call_tool("upgrade", {})
    await anyio.sleep(0.2)  # the notification, if any, before the second listing
    listed = await client.list_tools()
    return {"descriptions": [t.description for t in listed.tools]}


def _record(variant: str, path: Path) -> None:
    result = anyio.run(
        lambda: run_session(weather(variant), record_to=path, script=_upgrade_and_list_again, mode="legacy")
    )
    assert any("IMPORTANT" in (d or "") for d in result.results["descriptions"])


@pytest.mark.parametrize(("variant", "announced"), [("drift", True), ("drift-quiet", False)])
def test_a_description_rewritten_mid_session_is_flagged(
    variant: str, announced: bool, tmp_path: Path
) -> None:
    """The second tools/list of the session differs from the first: the rewrite is named with what
    it addresses to the model; a warning after notifications/tools/list_changed, an error without."""
    session = tmp_path / "s.jsonl"
    _record(variant, session)
    result = tools("drift", str(session), "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    (drift,) = orjson.loads(result.stdout)["drift"]
    assert drift["kind"] == "tools" and drift["announced"] is announced
    assert drift["severity"] == ("warning" if announced else "error")
    (change,) = drift["changes"]
    assert (change["tool"], change["severity"], change["path"]) == (
        "get_forecast",
        "suspicious",
        "/description",
    )
    assert change["flags"] == ["instruction", "path", "secret"]
    text = tools("drift", str(session))
    assert f"line {drift['event'] + 2}" in text.stdout and "addresses the model" in text.stdout


def test_a_session_that_lists_the_same_tools_twice_has_no_drift(tmp_path: Path) -> None:
    """Listing twice without a change is not drift: exit 0."""
    session = tmp_path / "s.jsonl"

    async def list_again(client: Client) -> dict[str, Any]:
        await client.list_tools()
        return {}

    anyio.run(lambda: run_session(weather("base"), record_to=session, script=list_again, mode="legacy"))
    result = tools("drift", str(session))
    assert result.returncode == 0, result.stdout
    assert "no listing changed during the session" in result.stdout

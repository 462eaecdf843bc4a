"""In-session drift (`tools drift`, the pure `surface.drift` that `check` is to use): a session in
which a real server rewrites a tool's description after the client listed it."""

from __future__ import annotations

import orjson
import pytest

from tests.surface.support import listed_twice, tools

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("variant", "announced"), [("drift", True), ("drift-quiet", False)])
def test_a_description_rewritten_mid_session_is_flagged(
    variant: str, announced: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The second tools/list of the session differs from the first: the rewrite is named with what
    it addresses to the model; a warning after notifications/tools/list_changed, an error without."""
    session = listed_twice(tmp_path_factory, variant)
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


def test_a_session_that_lists_the_same_tools_twice_has_no_drift(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Listing twice without a change is not drift: exit 0."""
    session = listed_twice(tmp_path_factory, "base")
    result = tools("drift", str(session))
    assert result.returncode == 0, result.stdout
    assert "no listing changed during the session" in result.stdout

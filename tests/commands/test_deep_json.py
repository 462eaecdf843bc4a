"""Depth: a message nested as deep as the check core accepts is walked, compared, encoded and
printed by every command without a crash."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape import jsonsafe
from mcptape.transcript import open_transcript
from tests.commands.tapes import HEADER, assert_clean_run, line, message, record, run, session, write

DEEPEST = 1024  # what orjson.loads (the check core's parser) accepts


def nested(levels: int, leaf: Any = 1) -> Any:
    """`levels` containers around `leaf`, objects and arrays alternating."""
    value = leaf
    for i in range(levels):
        value = {"a": value, "n": i} if i % 2 else [value, i]
    return value


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values, indent=st.booleans(), sort_keys=st.booleans())
def test_the_iterative_encoder_writes_what_orjson_writes(value: Any, indent: bool, sort_keys: bool) -> None:
    """The fallback encoder is the fast path's twin: the same text for every value orjson accepts."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    assert (
        jsonsafe._Encoder(None, None).encode(value, indent, sort_keys)
        == orjson.dumps(value, option=option).decode()
    )


@pytest.mark.parametrize("indent", [False, True])
def test_dumps_encodes_the_deepest_value_the_parser_accepts(indent: bool) -> None:
    """A value 1024 levels deep (orjson.dumps refuses past 254) encodes and reads back the same."""
    value = nested(DEEPEST - 1)
    text = jsonsafe.dumps(value, indent=indent)
    assert jsonsafe.equal(orjson.loads(text), value)
    assert jsonsafe.depth(value) == DEEPEST - 1


def test_dumps_writes_what_orjson_refuses_as_readable_json() -> None:
    """Lone surrogates, big integers and non-string names are written instead of raising."""
    text = jsonsafe.dumps({"s": "a\udcff", 1: 2**70, "deep": nested(300)})
    back = json.loads(text)
    assert back["s"] == "a\udcff" and back["1"] == 2**70


def test_dumps_calls_default_for_other_types_and_raises_without_it() -> None:
    """A value that is not JSON goes through `default`, as with orjson."""
    assert jsonsafe.dumps(nested(300, leaf=object()), default=lambda _: "x").count('"x"') == 1
    with pytest.raises(TypeError):
        jsonsafe.dumps(nested(300, leaf=object()))


def test_equal_compares_deep_values_as_json() -> None:
    """equal: member order ignored, 1 == 1.0, true is not 1, at 1024 levels."""
    assert jsonsafe.equal(nested(DEEPEST, {"x": 1, "y": 2}), nested(DEEPEST, {"y": 2, "x": 1.0}))
    assert not jsonsafe.equal(nested(DEEPEST, 1), nested(DEEPEST, True))
    assert not jsonsafe.equal(nested(DEEPEST, [1]), nested(DEEPEST, [1, 2]))
    assert not jsonsafe.equal({"a": None}, {"a": 0})


def test_walk_visits_every_value_with_its_path_in_document_order() -> None:
    """walk yields the root first, then members and elements in order, however deep."""
    assert list(jsonsafe.walk({"a": [1, {"b": 2}], "c": 3})) == [
        ((), {"a": [1, {"b": 2}], "c": 3}),
        (("a",), [1, {"b": 2}]),
        (("a", 0), 1),
        (("a", 1), {"b": 2}),
        (("a", 1, "b"), 2),
        (("c",), 3),
    ]
    assert max(len(path) for path, _ in jsonsafe.walk(nested(DEEPEST))) == DEEPEST


def deep_session(path: Path, leaf: Any, levels: int = DEEPEST - 8, extra: list[str] | None = None) -> Path:
    """A tools/call whose arguments and result are `levels` containers deep (the check core accepts it)."""
    request = {"name": "echo", "arguments": {"a": nested(levels)}}
    return session(path, {"v": nested(levels, leaf)}, request=request, extra=extra or [])


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("other", ["deeper-change", "shallow"])
def test_diff_of_deep_messages_reports_the_change(tmp_path: Path, as_json: bool, other: str) -> None:
    """diff and diff --json compare and print messages nested 1016 levels deep: exit 1, a change."""
    old = deep_session(tmp_path / "old.jsonl", 1)
    new = (
        deep_session(tmp_path / "new.jsonl", 2)
        if other == "deeper-change"
        else session(tmp_path / "new.jsonl", {"v": 1})
    )
    result = run("diff", *(["--json"] if as_json else []), str(old), str(new))
    assert_clean_run(result, codes=[1])
    assert "result.v" in result.stdout
    if as_json:
        assert orjson.loads(result.stdout)["same"] is False


def test_check_accepts_the_deep_message_it_is_given(tmp_path: Path) -> None:
    """The deep session is protocol to the check core: the other commands meet exactly this input."""
    result = run("check", str(deep_session(tmp_path / "deep.jsonl", 1)))
    assert_clean_run(result, codes=[0])


def test_the_viewer_shows_a_deep_message_and_a_deep_note(tmp_path: Path) -> None:
    """The viewer's list rows and detail pane (pretty JSON, raw fields) work at any depth."""
    from mcptape.transcript.index import TranscriptIndex
    from mcptape.tui.model.viewer import ViewerModel

    path = deep_session(tmp_path / "deep.jsonl", 1, extra=[record(t=0.25, ch="note", msg="n", x=nested(600))])
    index = TranscriptIndex(path)
    index.scan()
    model = ViewerModel(index)
    for row in range(len(index)):
        model.describe(row)
        detail = model.detail(row)
        if row == 1:
            assert detail.pretty is not None and detail.pretty.count("\n") > DEEPEST


def test_redact_and_report_copy_deep_headers_notes_and_messages(tmp_path: Path) -> None:
    """redact and report read and write a header field, a note and a message 1016 levels deep."""
    header = {**HEADER, "x": nested(DEEPEST - 8)}
    lines = [
        line(0.1, "out", message(id=1, result={"v": nested(DEEPEST - 8)})),
        record(t=0.2, ch="note", msg="n", x=nested(DEEPEST - 8)),
    ]
    src = write(tmp_path / "deep.jsonl", lines, header=header)
    out = tmp_path / "copy.jsonl"
    assert_clean_run(run("redact", str(src), "-o", str(out)), codes=[0])
    assert_clean_run(run("check", str(out)), codes=[0, 1])
    copy = open_transcript(out)
    assert jsonsafe.depth(copy.header.extra["x"]) == DEEPEST - 8
    assert [jsonsafe.depth(e.fields) for e in copy.events() if e.ch == "note"] == [DEEPEST - 7]
    assert_clean_run(run("report", str(src), "-o", str(tmp_path / "bundle")), codes=[0])


SERVER = """
import sys
for line in sys.stdin:
    if '"id"' in line:
        depth = int(sys.argv[1])
        sys.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"v":' + '[' * depth + '2' + ']' * depth + '}}\\n')
        sys.stdout.flush()
"""


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_replay_against_a_server_answering_deep_messages(tmp_path: Path, as_json: bool) -> None:
    """replay and replay --json compare the recorded deep answer with the new server's: exit 1."""
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    recorded = session(tmp_path / "old.jsonl", {"v": nested(DEEPEST - 8)})
    argv = [
        "replay",
        str(recorded),
        *(["--json"] if as_json else []),
        "--",
        sys.executable,
        str(script),
        "1000",
    ]
    result = run(*argv)
    assert_clean_run(result, codes=[1])
    assert "result.v" in result.stdout

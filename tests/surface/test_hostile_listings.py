"""Any JSON value anywhere in a tool listing: `tools lock`, `tools diff`, `tools drift` and
`check` (with and without `--tools-lock`) give a verdict or one `Error:` line, never a traceback,
and print no raw control character of the listing."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcptape.jsonsafe import dumps
from mcptape.transcript.index import TranscriptIndex
from tests.commands.tapes import HEADER, unsafe_chars
from tests.inprocess import run

INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}},
    "serverInfo": {"name": "s", "version": "1"},
}


def transcript(path: Path, exchanges: list[tuple[str, Any]]) -> Path:
    """A session where the client asks each method in turn and the server answers each result."""
    lines = [json.dumps(HEADER)]
    t = 0.0
    for rid, (method, result) in enumerate(exchanges, 1):
        request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {}}
        for ch, message in (("in", request), ("out", {"jsonrpc": "2.0", "id": rid, "result": result})):
            t += 0.01
            lines.append(dumps({"t": t, "ch": ch, "data": dumps(message) + "\n"}))
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogatepass"))
    return path


def assert_clean(result: Any) -> None:
    """Exit 0, 1 or 2; an exit 2 says one `Error:` line; no traceback; nothing unsafe printed."""
    out, err = result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")
    assert result.returncode in (0, 1, 2), err
    assert "Traceback" not in err, err
    if result.returncode == 2:
        assert err.startswith("Error: ") and err.count("\nError: ") == 0, err
    assert unsafe_chars(out) == [] and unsafe_chars(err) == [], (out[:500], err[:500])


def every_surface_command(tmp: Path, session: Path, other: Path) -> None:
    lock = tmp / "tools.lock.json"
    lock.unlink(missing_ok=True)
    runs: list[list[str | Path]] = [
        ["tools", "lock", session, "-o", lock],
        ["tools", "diff", session, other],
        ["tools", "diff", other, session, "--json"],
        ["tools", "drift", session],
        ["check", session],
        ["check", "--json", session],
        ["diff", session, other],
    ]
    for argv in runs:
        assert_clean(run(*argv))
    if lock.exists():
        assert_clean(run("tools", "diff", lock, other))
        assert_clean(run("check", other, "--tools-lock", lock))
    view_headless(session)


def view_headless(path: Path) -> None:
    """The viewer's model shows every row (its tool tables and drifts), all of it safe."""
    from mcptape.tui.model.viewer import ViewerModel
    from mcptape.tui.widgets.detail import render_detail

    index = TranscriptIndex(path)
    index.scan()
    model = ViewerModel(index)
    for row in range(len(index)):
        assert unsafe_chars(model.describe(row).preview) == []
        shown = render_detail(model.detail(row), hex_mode=False).plain
        assert unsafe_chars(shown) == [], shown[:500]


@pytest.mark.parametrize("value", [5, None, ["http://json-schema.org/draft-07/schema#"], {"a": 1}, True])
def test_a_dollar_schema_that_is_not_a_string_is_a_finding(tmp_path: Path, value: Any) -> None:
    """`"$schema": 5` names no dialect: tools diff and check --tools-lock say the schema cannot be
    judged (a suspicious change, exit 1), and the schema comparison itself reads it as 2020-12."""
    from mcptape.surface.schemadiff import compare_schemas

    old_schema, new_schema = {"$schema": value, "type": "object"}, {"$schema": value, "type": "string"}
    found, _ = compare_schemas(old_schema, new_schema, "/inputSchema", output=False)
    assert [(f.severity, f.detail) for f in found] == [("breaking", "type object -> string (changed)")]
    old = {"name": "t", "inputSchema": {"$schema": value, "type": "object"}}
    new = {"name": "t", "inputSchema": {"$schema": value, "type": "string"}}
    a = transcript(tmp_path / "a.jsonl", [("initialize", INIT), ("tools/list", {"tools": [old]})])
    b = transcript(tmp_path / "b.jsonl", [("initialize", INIT), ("tools/list", {"tools": [new]})])
    result = run("tools", "diff", a, b, text=True)
    assert result.returncode == 1, result.stderr
    assert "could not compare: the old schema cannot be judged ($schema is not a string)" in result.stdout
    lock = tmp_path / "tools.lock.json"
    assert run("tools", "lock", a, "-o", lock).returncode == 0
    checked = run("check", b, "--tools-lock", lock, text=True)
    assert checked.returncode == 1 and "cannot be judged ($schema is not a string)" in checked.stdout, (
        checked.stdout + checked.stderr
    )
    every_surface_command(tmp_path, a, b)


KEYWORDS = [
    *("type", "properties", "required", "enum", "const", "items", "additionalProperties", "$ref"),
    *("$defs", "definitions", "$schema", "$id", "$anchor", "anyOf", "oneOf", "allOf", "not", "minimum"),
    *("maxLength", "minItems", "description", "title", "default", "prefixItems", "patternProperties"),
    *("readOnlyHint", "destructiveHint", "taskSupport", "uri", "uriTemplate", "arguments", "name"),
    *("x\x1b[31m", "\u202e", "", "0"),
]
texts = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            *("#", "#/$defs/a", "#/properties/a", "#/", "#a", "object", "string", "integer", "a"),
            *("http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"),
            "\x1b]0;x\x07",
        ]
    ),
)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), texts)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYWORDS) | texts, inner, max_size=5)
    ),
    max_leaves=25,
)
MEMBERS = ["name", "description", "inputSchema", "outputSchema", "annotations", "title", "execution", "_meta"]
items = st.one_of(
    values,
    st.dictionaries(st.sampled_from(MEMBERS), values, max_size=6),
    st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b", 5, None]), "inputSchema": values},
        optional={"outputSchema": values, "annotations": values, "description": values},
    ),
)
listings = st.one_of(
    values,
    st.fixed_dictionaries({"tools": values | st.lists(items, max_size=4)}, optional={"nextCursor": values}),
)
handshakes = st.one_of(
    values,
    st.fixed_dictionaries(
        {"protocolVersion": st.just("2025-06-18") | values, "capabilities": values, "serverInfo": values},
        optional={"instructions": values},
    ),
)
other_lists = st.lists(
    st.tuples(st.sampled_from(["prompts/list", "resources/list", "resources/templates/list"]), values),
    max_size=2,
)


@settings(
    max_examples=int(os.environ.get("MCPTAPE_HOSTILE_EXAMPLES", "20")),
    derandomize=True,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(handshake=handshakes, first=listings, second=listings, others=other_lists)
def test_any_json_in_a_tool_listing_gets_a_verdict_or_one_error(
    tmp_path: Path, handshake: Any, first: Any, second: Any, others: list[tuple[str, Any]]
) -> None:
    """Listings made of any JSON (schemas that are lists or numbers, `$ref` loops, `required` a
    string, a number as a name, control characters in keys): every surface command is clean."""
    a = transcript(
        tmp_path / "a.jsonl",
        [("initialize", handshake), ("tools/list", first), *others, ("tools/list", second)],
    )
    b = transcript(tmp_path / "b.jsonl", [("initialize", INIT), ("tools/list", second)])
    every_surface_command(tmp_path, a, b)


def test_a_lock_holding_a_number_past_a_doubles_range_reads_back(tmp_path: Path) -> None:
    """A schema's `"minimum": 1e400` written as an integer: the lock mcptape writes of it is one it
    reads again (no change against its own session, a change against another bound)."""
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "integer", "minimum": 10**400}}
    session = transcript(tmp_path / "a.jsonl", [("initialize", INIT), ("tools/list", {"tools": [tool]})])
    lock = tmp_path / "tools.lock.json"
    assert run("tools", "lock", session, "-o", lock).returncode == 0
    assert str(10**400).encode() in lock.read_bytes()
    same = run("tools", "diff", lock, session, text=True)
    assert same.returncode == 0 and "no change" in same.stdout, same.stderr
    checked = run("check", session, "--tools-lock", lock, text=True)
    assert checked.returncode in (0, 1) and "tools-lock" not in checked.stdout, checked.stderr
    tool["inputSchema"]["minimum"] = 10**401
    other = transcript(tmp_path / "b.jsonl", [("initialize", INIT), ("tools/list", {"tools": [tool]})])
    changed = run("tools", "diff", lock, other, text=True)
    assert changed.returncode == 1 and "minimum" in changed.stdout, changed.stdout + changed.stderr


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("surrogate", "the server refused tools/list: error 1: bad \\xed\\xa0\\x80 \\x1b]0;x\\x07"),
        ("array-result", "answered tools/list with an invalid response: an MCP result is an object"),
        ("deep-code", "answered tools/list with an invalid response: error must be an object"),
    ],
)
def test_a_live_server_answering_tools_list_with_hostile_json_is_one_error(mode: str, words: str) -> None:
    """An error message with a lone surrogate (a UnicodeEncodeError before), or an answer that is
    not a valid response (mcptape waited for the timeout, then said the server never answered):
    one line at once, saying what the server sent, escaped."""
    import time

    from tests.conftest import PYTHON
    from tests.surface.support import tools

    started = time.monotonic()
    result = tools(
        "lock", "--timeout", "20", "--", PYTHON, str(Path(__file__).parent / "hostile_server.py"), mode
    )
    assert result.returncode == 2 and result.stderr.startswith("Error: "), result.stderr
    assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert unsafe_chars(result.stderr) == [] and time.monotonic() - started < 15


@pytest.mark.parametrize("extra", ['"pid":' + "9" * 5000, '"x":' + "[" * 100_000 + "]" * 100_000])
def test_a_transcript_whose_header_cannot_be_read_is_called_one(tmp_path: Path, extra: str) -> None:
    """A header with a number or a nesting no reader takes: tools lock and tools diff say the file
    is not a readable transcript, as check does (they called it an unreadable tools lock)."""
    session = transcript(tmp_path / "s.jsonl", [("initialize", INIT), ("tools/list", {"tools": []})])
    lines = session.read_text().split("\n")
    lines[0] = lines[0][:-1] + "," + extra + "}"
    session.write_text("\n".join(lines))
    runs: list[list[str | Path]] = [
        ["tools", "lock", session],
        ["tools", "diff", session, session],
        ["check", session],
    ]
    for argv in runs:
        result = run(*argv, text=True)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "is not an mcptape transcript (line 1 is not a transcript header)" in result.stderr


@pytest.mark.parametrize("pattern", ["a{99999999999}", "(", "(?<=a+)b"])
def test_a_schema_pattern_python_cannot_compile_is_a_finding(tmp_path: Path, pattern: str) -> None:
    """A tool's inputSchema whose `pattern` (or patternProperties name) Python's re cannot compile
    (a repetition count past its limit raised OverflowError from jsonschema's format check: a
    traceback in check and tools diff): the schema is not judged, said once, and nothing crashes."""
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
        "patternProperties": {pattern: {"type": "string"}},
    }
    old = {"name": "t", "inputSchema": schema}
    new = {"name": "t", "inputSchema": {**schema, "required": ["s"]}}
    call = {"name": "t", "arguments": {"s": "aaaa"}}
    a = transcript(tmp_path / "a.jsonl", [("initialize", INIT), ("tools/list", {"tools": [old]})])
    b = transcript(
        tmp_path / "b.jsonl",
        [("initialize", INIT), ("tools/list", {"tools": [new]}), ("tools/call", {"content": []})],
    )
    lines = b.read_text().splitlines()
    lines[-2] = lines[-2].replace('"params":{}', '"params":' + json.dumps(call).replace('"', '\\"'))
    b.write_text("\n".join(lines) + "\n")
    runs: list[list[str | Path]] = [
        ["check", b],
        ["check", "--json", b],
        ["tools", "diff", a, b],
        ["tools", "lock", b],
    ]
    for argv in runs:
        result = run(*argv, text=True)
        assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr[-1500:]
    diff = run("tools", "diff", a, b, text=True)
    assert "could not compare: the old schema cannot be judged (not a valid schema" in diff.stdout


@pytest.fixture
def hostile_http(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of tests/surface/hostile_http_server.py in the mode the test is parametrized with."""
    import subprocess

    from tests.conftest import PYTHON
    from tests.recorder.http.helpers import free_port, wait_accepting

    port = free_port()
    script = Path(__file__).parent / "hostile_http_server.py"
    server = subprocess.Popen([PYTHON, str(script), str(port), request.param], stderr=subprocess.DEVNULL)
    try:
        wait_accepting(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(30)


@pytest.mark.parametrize("hostile_http", ["newline", "nonlatin", "cr"], indirect=True)
def test_a_protocol_version_that_cannot_be_a_header_is_not_sent_back(hostile_http: str) -> None:
    """initialize answered with a protocolVersion holding a line break or non-Latin-1 text: it does
    not go back as MCP-Protocol-Version (http.client raised ValueError, UnicodeEncodeError: a
    traceback), and the listing is locked."""
    result = run("tools", "lock", "--url", hostile_http, text=True)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-1500:]


@pytest.mark.parametrize("hostile_http", ["trickle"], indirect=True)
def test_an_event_stream_that_never_answers_ends_at_the_timeout(hostile_http: str) -> None:
    """tools/list answered by keep-alives forever: one ListingError after the timeout (mcptape
    read the stream until 64 MiB of keep-alives, hours at this pace)."""
    import time

    from mcptape.surface.live import ListingError
    from mcptape.surface.overhttp import HttpLines

    lines = HttpLines(hostile_http, timeout=1.0)
    lines.send(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')
    started = time.monotonic()
    with pytest.raises(ListingError, match="kept its event stream open for 1 s without answering"):
        lines.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}')
    assert time.monotonic() - started < 5

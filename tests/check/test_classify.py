"""Classification by direction and protocol version; never raises on arbitrary bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check.analyze import analyze
from mcptape.check.classify import classify_line
from mcptape.check.model import Kind
from mcptape.transcript import Event
from tests.check.helpers import request

STATELESS = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}


@pytest.mark.parametrize(
    ("raw", "channel", "version", "kind", "rule"),
    [
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', "in", None, Kind.REQUEST, None),
        (b'{"jsonrpc":"2.0","id":"a","method":"ping"}\n', "in", None, Kind.REQUEST, None),
        (b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', "in", None, Kind.NOTIFICATION, None),
        (b'{"jsonrpc":"2.0","id":1,"result":{}}\n', "out", None, Kind.RESPONSE, None),
        (
            b'{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}\n',
            "out",
            None,
            Kind.ERROR_RESPONSE,
            None,
        ),
        (
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}\n',
            "out",
            None,
            Kind.ERROR_RESPONSE,
            None,
        ),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n', "in", None, Kind.INVALID, "invalid-message"),
        (b'{"jsonrpc":"2.0","id":1,"result":[]}\n', "out", None, Kind.INVALID, "invalid-message"),
        (
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}\n',
            "in",
            None,
            Kind.INVALID,
            "invalid-message",
        ),
        (b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}\n', "out", "2025-11-25", Kind.REQUEST, None),
        (
            b'{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}\n',
            "out",
            "2026-07-28",
            Kind.INVALID,
            "invalid-message",
        ),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', "out", "2027-01-01", Kind.INVALID, "invalid-message"),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', "out", "2024-11-05", Kind.REQUEST, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n', "in", "2025-03-26", Kind.BATCH, None),
        (
            b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n',
            "in",
            "2025-06-18",
            Kind.BATCH,
            "batch-not-allowed",
        ),
        (
            b'[{"jsonrpc":"2.0","id":true,"method":"ping"}]\n',
            "in",
            "2025-03-26",
            Kind.BATCH,
            "invalid-message",
        ),
        (b"debug\n", "out", None, Kind.NON_PROTOCOL, "non-protocol-output"),
        (b"debug\n", "in", None, Kind.NON_PROTOCOL, "non-protocol-input"),
        (b'{"jsonrpc":"2.0"', "in", None, Kind.NON_PROTOCOL, "incomplete-frame"),
        (b' {"jsonrpc":"2.0","id":1,"result":{}} \n', "out", None, Kind.RESPONSE, None),
        (b'{"jsonrpc":"2.0","id":1,"result":{"n":18446744073709551616}}\n', "out", None, Kind.RESPONSE, None),
    ],
)
def test_classification_table(
    raw: bytes, channel: str, version: str | None, kind: Kind, rule: str | None
) -> None:
    """Kind and frame-level rule of one line, by direction and protocol version."""
    msg = classify_line(raw, channel, version)
    assert (msg.kind, msg.rule) == (kind, rule), msg.problem
    assert (msg.problem is None) == (rule is None)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"debug: hi\n", "not JSON: 'debug: hi'"),
        (b'{"a":1} banner\n', "trailing bytes after a JSON value: 'banner'"),
        (b'{"a":1}{"b":2}\n', "two JSON values on one line (concatenated without a newline)"),
        (b"\xef\xbb\xbf{}\n", "starts with a UTF-8 byte order mark (BOM)"),
        (b"{}\r\n", "carriage return in the line (a line ends with \\n alone)"),
        (b"\xff\n", "not valid UTF-8 (byte 0xff at offset 0)"),
        (b'{"a":\n', "truncated JSON value (the line ends inside it)"),
        (b"\n", "empty line"),
        (b"NaN\n", "not JSON: 'NaN'"),
    ],
)
def test_non_protocol_lines_say_why_in_one_sentence(raw: bytes, problem: str) -> None:
    """The problem text names what is wrong with the bytes."""
    assert classify_line(raw, "out").problem == problem


def test_the_stateless_revision_is_learned_from_request_meta() -> None:
    """With `_meta` carrying 2026-07-28, a later server->client request is invalid."""
    events = [
        Event(0.001, "in", raw=request(1, "server/discover", STATELESS), index=0),
        Event(0.002, "out", raw=request(7, "ping"), index=1),
        Event(0.003, "exit", fields={"code": 0}, index=2),
    ]
    analysis = analyze(events)
    assert (analysis.protocol_version, analysis.stateless) == ("2026-07-28", True)
    assert [f.rule for f in analysis.findings] == ["unanswered-request", "invalid-message"]


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=200),
    st.sampled_from(["in", "out"]),
    st.sampled_from([None, "2025-03-26", "2026-07-28"]),
)
def test_classification_never_raises_on_arbitrary_bytes(
    raw: bytes, channel: str, version: str | None
) -> None:
    """Any bytes at all get a kind, and a problem whenever they are not a good message."""
    msg = classify_line(raw, channel, version)
    assert isinstance(msg.kind, Kind)
    assert (msg.rule is None) == (msg.problem is None or (msg.kind is Kind.BATCH and msg.rule is None))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
message_like = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        "method": st.sampled_from(["ping", "tools/call", "initialize", "roots/list", "x"]) | json_values,
        "params": json_values,
        "result": json_values,
        "error": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["in", "out", "exec", "err"]), message_like | json_values), max_size=25
    )
)
def test_analysis_never_raises_on_arbitrary_message_shapes(items: list[tuple[str, object]]) -> None:
    """Whatever JSON the peers exchange, analysis completes and every finding has a known rule."""
    import json

    from mcptape.check.rules import RULES

    events = [
        Event(i * 0.001, ch, raw=json.dumps(v).encode() + b"\n", index=i) for i, (ch, v) in enumerate(items)
    ]
    analysis = analyze(events)
    assert all(f.rule in RULES for f in analysis.findings)


@settings(max_examples=1000, deadline=None)
@given(
    message_like
    | st.fixed_dictionaries(
        {
            "jsonrpc": st.just("2.0"),
            "method": st.sampled_from(["notifications/progress", "ping"]) | json_values,
        },
        optional={"params": json_values, "result": json_values, "error": json_values},
    )
    | st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": st.integers() | st.text(max_size=3)},
        optional={
            "method": st.sampled_from(["tools/call", "ping", "roots/list", "initialize"]),
            "params": st.fixed_dictionaries({}, optional={"name": json_values, "arguments": json_values}),
            "result": json_values,
            "error": json_values,
        },
    ),
    st.sampled_from(["in", "out"]),
    st.sampled_from([None, "2025-06-18", "2026-07-28"]),
)
def test_the_classifier_shortcuts_agree_with_the_full_gates(
    value: dict[str, object], channel: str, version: str | None
) -> None:
    """The fast path for common lines gives exactly what every gate in order gives."""
    from mcptape.check.classify import shape, shape_full

    assert shape(value, channel, version) == shape_full(value, channel, version)

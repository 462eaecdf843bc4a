"""What the list says of a message: the tool and its arguments, what the tool answered, an error's
code and message; escaped through mcptape.textsafe like every transcript byte."""

from __future__ import annotations

import pytest

from mcptape.check.classify import classify_line
from mcptape.tui.model.essence import LIMIT, essence


def said(line: str, channel: str = "in", method: str | None = None) -> str | None:
    return essence(classify_line(line.encode() + b"\n", channel), method)


@pytest.mark.parametrize(
    ("line", "channel", "method", "expected"),
    [
        (
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Lyon","days":3}}}',
            "in",
            None,
            'forecast(city="Lyon", days=3)',
        ),
        ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"now"}}', "in", None, "now()"),
        (
            '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"sunny"}]}}',
            "out",
            "tools/call",
            "sunny",
        ),
        (
            '{"jsonrpc":"2.0","id":2,"result":'
            '{"content":[{"type":"text","text":"no such city"}],"isError":true}}',
            "out",
            "tools/call",
            "error: no such city",
        ),
        (
            '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}',
            "out",
            "tools/call",
            "[image image/png]",
        ),
        ('{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"t":21}}}', "out", "tools/call", '{"t":21}'),
        (
            '{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool"}}',
            "out",
            "tools/call",
            "error -32602: unknown tool",
        ),
        (
            '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"}]}}',
            "out",
            "tools/list",
            "2 tools: a, b",
        ),
        (
            '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"w","version":"2"}}}',
            "out",
            "initialize",
            "w 2 · protocol 2025-06-18",
        ),
        (
            '{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///a.txt"}}',
            "in",
            None,
            "file:///a.txt",
        ),
        (
            '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"ready"}}',
            "out",
            None,
            "info: ready",
        ),
        ('{"jsonrpc":"2.0","id":3,"method":"ping"}', "in", None, ""),
        ('{"jsonrpc":"2.0","id":3,"result":{}}', "out", "ping", "{}"),
        (
            '{"jsonrpc":"2.0","id":5,"method":"x/y","params":{"a":[1,2],"_meta":{"k":1}}}',
            "in",
            None,
            '{"a":[1,2]}',
        ),
    ],
    ids=[
        "tool-call",
        "tool-call-no-arguments",
        "tool-text",
        "tool-error",
        "tool-image",
        "structured-content",
        "error-response",
        "tools-list",
        "initialize",
        "resource-read",
        "log-notification",
        "ping",
        "empty-result",
        "other-params",
    ],
)
def test_a_message_says(line: str, channel: str, method: str | None, expected: str) -> None:
    """The line for each kind of message."""
    assert said(line, channel, method) == expected


def test_the_stateless_discovery_names_both_peers() -> None:
    """server/discover (2026-07-28) keeps client and server info in `_meta`: shown as for initialize."""
    request = (
        '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{'
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientInfo":{"name":"mcp","version":"0.1.0"}}}}'
    )
    answer = (
        '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],'
        '"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"2"}}}}'
    )
    assert said(request) == "mcp 0.1.0 · protocol 2026-07-28"
    assert said(answer, "out", "server/discover") == "demo 2 · protocol 2026-07-28"


def test_a_line_that_is_not_a_message_says_nothing() -> None:
    """A non-protocol line has no essence: the list shows its bytes instead."""
    assert said("Weather server v2.1 listening", "out") is None


def test_terminal_controls_in_a_value_are_escaped() -> None:
    """ESC, BEL and a bidi override in a tool's name, its arguments and its answer are shown escaped."""
    call = said(
        r'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x\u001b[2J","arguments":{"q":"\u202eabc\u0007"}}}'
    )
    answer = said(
        r'{"jsonrpc":"2.0","id":1,"result":'
        r'{"content":[{"type":"text","text":"\u001b]0;pwned\u0007 line\nnext"}]}}',
        "out",
        "tools/call",
    )
    assert call is not None and answer is not None
    for text in (call, answer):
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text), repr(text)
    assert call.startswith(r"x\x1b[2J(") and r"\u202e" in call
    assert answer == r"\x1b]0;pwned\x07 line\nnext"


def test_a_huge_value_is_cut() -> None:
    """A megabyte argument is cut to one list line."""
    big = "y" * 1_000_000
    text = said(
        f'{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"q":"{big}"}}}}}}'
    )
    assert text is not None and len(text) <= LIMIT and text.startswith('t(q="yyy')

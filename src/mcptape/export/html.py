"""Sessions as one self-contained HTML file: a report to attach to a bug or a pull request.

No external resource, no script, readable with JavaScript off: the session's facts, its timeline
as an inline SVG picture (requests as bars on a time axis, findings as triangles, actions as dots,
red when after a reject), the first non-protocol line of each direction with its bytes, every
finding, and every message (expandable with `<details>`: its raw line, its JSON indented).

A transcript is attacker-controlled. Everything from it reaches the page through Jinja2 with
autoescape on (never string building), after `textsafe` made controls, bidi overrides and invisible
characters visible as escapes; nothing from it is ever an attribute that loads, links or runs. A
Content-Security-Policy meta forbids every script and every fetch, and allows only the page's own
style (by its hash).
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources
from itertools import islice
from typing import Any, NamedTuple

import orjson

from mcptape.check.model import IN, OUT, Finding, Kind, Message
from mcptape.export.session import Session
from mcptape.export.spans import service_name
from mcptape.export.text import printable_ascii, safe
from mcptape.export.timeline import timeline
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape, escape_controls, escape_json
from mcptape.version import __version__

RAW_SHOWN = 16384  # bytes of one message shown raw
MESSAGES_SHOWN = 50_000  # messages listed per session

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}
h1{font-size:1.5em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em}
code,pre{font:12px/1.35 ui-monospace,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.4em;margin:.2em 0}
pre{border-left:3px solid #ccc}
table.facts th,table.first th{text-align:left;padding-right:1em;vertical-align:top}
.finding{margin:.5em 0}.severity{font-weight:bold;text-transform:uppercase}
.finding.error .severity,.bad{color:#b00}.finding.warning .severity{color:#b60}
.finding.info .severity{color:#666}
.good{color:#060}.rule{font-family:ui-monospace,monospace}
details.message{border-bottom:1px solid #eee}details.message summary{cursor:pointer}
details.rejected summary{color:#b00}.t{color:#666;font-family:ui-monospace,monospace}
.timeline{border:1px solid #ddd;max-width:100%;height:auto}
"""
STYLE_HASH = "sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()


class Row(NamedTuple):
    """One message of the list, unpacked by the template's loop into plain names (no attribute
    lookup per field). The findings and the timeline's shapes are named tuples too: Jinja's
    attribute lookup finds a field at once, where a dict key costs it an AttributeError first."""

    t: str
    inbound: bool  # client→server (else server→client: words of the template, not escaped data)
    line: str
    kind: str
    summary: str
    raw: str
    pretty: str
    rejected: bool


class Rows:
    """The message list as the template loops over it: each row made when its turn comes and
    dropped once written, so the rows of a large session never all exist at once."""

    def __init__(self, messages: list[Message], rejected: set[int]) -> None:
        self.messages = messages
        self.rejected = rejected

    def __len__(self) -> int:
        return len(self.messages)

    def __iter__(self) -> Iterator[Row]:
        return _rows(self.messages, self.rejected)


_KIND_TEXT = {kind: kind.value for kind in Kind}
_INDENT_2 = orjson.OPT_INDENT_2
_new = tuple.__new__  # a Row at a fraction of its own constructor's cost


def _rows(messages: list[Message], rejected: set[int]) -> Iterator[Row]:
    """`_message` of each message, a whole line of printable ASCII (the common case) made here
    with what repeats (the method's text) made once: the same rows (a test holds them equal)."""
    methods: dict[str | None, str] = {}
    encode, encode_error = orjson.dumps, orjson.JSONEncodeError
    for message in messages:
        frame = message.frame
        raw = frame.raw
        value = message.value
        flagged = bool(rejected) and frame.event in rejected
        if (
            value is None
            or message.problem is not None
            or not frame.complete
            or len(raw) > RAW_SHOWN
            or not raw.endswith(b"\n")
            or not printable_ascii(raw[:-1])
        ):
            yield _message(message, flagged)
            continue
        text = raw[:-1].decode("ascii")
        method = message.method
        summary = methods.get(method)
        if summary is None:
            summary = methods[method] = escape_controls(method or "")
        rid = message.id
        if rid is not None:
            summary += f" id {rid}" if type(rid) is int else f" id {escape_controls(str(rid))}"
        try:
            pretty = _pretty_safe(encode(value, option=_INDENT_2).decode("utf-8"))
        except encode_error:  # deeper than orjson goes, an integer past 64 bits
            pretty = _pretty_safe(dumps(value, indent=True))
        channel = frame.channel
        yield _new(
            Row,
            (
                f"{frame.t:.6f}",
                channel == IN,
                f"{channel} line {frame.line}",
                _KIND_TEXT[message.kind],
                summary,
                text,
                pretty,
                flagged or message.rule is not None,
            ),
        )


class Found(NamedTuple):
    """One finding of the list."""

    severity: str
    rule: str
    party: str
    where: str
    message: str
    raw: str
    related: list[str]


def _template() -> Any:
    try:
        import jinja2
    except ImportError:
        from mcptape.errors import UsageError

        raise UsageError(
            "the HTML report needs Jinja2, which is not installed", hint="pip install jinja2"
        ) from None
    source = resources.files("mcptape.export").joinpath("report.html.j2").read_text(encoding="utf-8")
    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    template = environment.from_string(source)
    _lean_escape(template)
    return template


def _lean_escape(template: Any) -> None:
    """Autoescape turns every `{{ value }}` of the template into `yield escape(value)`, and
    markupsafe's `escape` wraps the escaped text of a string in a `Markup` through a Python
    constructor (a third of the cost of a message's row). Here every escaped value is only yielded
    and joined (a test holds the compiled template to that), so the escaped text alone is the
    same page: a string is escaped by markupsafe's own escaper and left a plain string; anything
    else goes to `escape`. Where Jinja or markupsafe are not built that way, the template stays
    as it is."""
    import markupsafe

    inner = getattr(markupsafe, "_escape_inner", None)
    namespace = getattr(getattr(template, "root_render_func", None), "__globals__", None)
    escape_markup = markupsafe.escape
    if inner is None or not isinstance(namespace, dict) or namespace.get("escape") is not escape_markup:
        return

    def lean(value: Any) -> str:
        return inner(value) if type(value) is str else escape_markup(value)  # type: ignore[no-any-return]

    namespace["escape"] = lean


def _raw(data: bytes) -> str:
    return escape(data, RAW_SHOWN)


def _pretty_safe(pretty: str) -> str:
    """Indented JSON with every unsafe character as its `\\uXXXX` escape (`escape_json`). A printable
    ASCII line can hold `\\u202e` or `\\u200b`, which the encoder writes out as the character
    itself; orjson escapes every C0 control in strings, so ASCII without DEL needs nothing."""
    return pretty if pretty.isascii() and "\x7f" not in pretty else escape_json(pretty)


def _shown(message: Message) -> tuple[str, str]:
    """The message's line as safe text (`text.message_text`'s rule) and its JSON indented when it
    is not too long (`_pretty_safe`), the line decoded and judged once for both."""
    body = message.frame.body
    if message.value is None or len(body) > RAW_SHOWN:
        return escape(body, RAW_SHOWN), ""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raw = escape(body, RAW_SHOWN)
    else:
        raw = text if safe(text) else escape_json(text)
    if message.frame.complete is False:
        return raw, ""
    return raw, _pretty_safe(dumps(message.value, indent=True))


def _where(found: Finding) -> str:
    where = f"{found.channel} line {found.line} (byte {found.offset})"
    if found.request_id is not None:
        where += f" [request {escape_controls(str(found.request_id))}]"
    return where


def _finding(found: Finding) -> Found:
    return Found(
        found.severity.value,
        found.rule,
        found.party or "-",
        _where(found),
        escape_controls(found.message),
        _raw(found.raw),
        [f"{r.role}: {r.channel} line {r.line}: {_raw(r.raw)}" for r in found.related],
    )


def _message(message: Message, rejected: bool) -> Row:
    frame = message.frame
    summary = escape_controls(message.method or "")
    if message.id is not None:
        summary += f" id {escape_controls(str(message.id))}"
    if message.problem:
        summary += f" ({escape_controls(message.problem)})"
    raw, pretty = _shown(message)
    return Row(
        f"{frame.t:.6f}",
        frame.channel == IN,
        f"{frame.channel} line {frame.line}",
        message.kind.value,
        summary,
        raw,
        pretty,
        rejected or message.rule is not None,
    )


def _firsts(session: Session) -> list[dict[str, Any]]:
    out = []
    for channel, direction in ((OUT, "out (server→client)"), (IN, "in (client→server)")):
        first = session.analysis.first_non_protocol.get(channel)
        if first is None:
            out.append({"direction": direction, "none": True})
            continue
        out.append(
            {
                "direction": direction,
                "none": False,
                "line": first.frame.line,
                "offset": first.frame.offset,
                "problem": escape_controls(first.problem),
                "raw": _raw(first.frame.body),
                "before": _raw(first.previous.body) if first.previous is not None else "",
            }
        )
    return out


def _context(session: Session) -> dict[str, Any]:
    analysis = session.analysis
    errors = analysis.errors
    total = len(analysis.findings) + analysis.findings_truncated
    verdict = "clean" if total == 0 else f"{total} finding(s), {errors} error(s)"
    rejected = {f.event for f in analysis.findings if f.channel in (IN, OUT)}
    exit_text = "still running when the recording ended (no exit record)"
    if analysis.exited:
        exit_text = (
            f"code {analysis.exit_code}"
            if analysis.exit_code is not None
            else f"signal {analysis.exit_signal}"
        )
    started = session.started_ns
    return {
        "name": escape_controls(session.path.name),
        "command": escape_controls(" ".join(session.header.command)) or "(none)",
        "started": datetime.fromtimestamp(started / 1e9, tz=UTC).isoformat() if started else "unknown",
        "transport": "Streamable HTTP" if session.http else "stdio",
        "version": escape_controls(analysis.protocol_version or "unknown"),
        "counts": f"{analysis.messages.get(IN, 0)} from the client, {analysis.messages.get(OUT, 0)} from the "
        f"server, {len(session.calls)} request(s), {len(session.actions)} action(s)",
        "exit": exit_text,
        "verdict": verdict,
        "verdict_class": "good" if total == 0 else "bad",
        "svg": timeline(session, _raw),
        "firsts": _firsts(session),
        "findings": [_finding(f) for f in analysis.findings],
        "messages": Rows(session.messages[:MESSAGES_SHOWN], rejected),
        "messages_more": max(len(session.messages) - MESSAGES_SHOWN, 0),
        "stderr": _raw(bytes(analysis.stderr.head)) if analysis.stderr.size else "",
        "notes": [escape_controls(n) for n in analysis.notes],
    }


PIECES = 8192  # the template's pieces joined and encoded at a time


def html_bytes(sessions: list[Session]) -> bytes:
    """The report of `sessions` as one HTML document, in UTF-8. The template's pieces are joined
    and encoded `PIECES` at a time: a page of 60 MB is never also one string (a single arrow would
    make it two bytes a character), and a piece costs no more than a list's append (Jinja's
    `stream().dump()` encodes each of the ~20 pieces of a message's row by itself)."""
    from markupsafe import Markup

    title = ", ".join(service_name(s) for s in sessions[:3]) + (" ..." if len(sessions) > 3 else "")
    page = io.BytesIO()
    pieces = _template().generate(
        sessions=[_context(s) for s in sessions],
        title=escape_controls(title),
        version=__version__,
        style=Markup(STYLE),
        style_hash=STYLE_HASH,
    )
    while chunk := list(islice(pieces, PIECES)):
        page.write("".join(chunk).encode("utf-8"))
    return page.getvalue()

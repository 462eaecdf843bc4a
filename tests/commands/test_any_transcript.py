"""Every reading command survives any transcript (a property test): deep values, wrong types,
every Unicode format character, unknown record kinds, torn lines and planted secrets.

For each generated transcript, check, check --json, diff, diff --json, redact and report run
in-process, and the viewer's headless model reads every row: the exit code is 0, 1 or 2, there is
no traceback, nothing unsafe reaches stdout or stderr (or report.md, or the viewer's detail
text), and no planted secret is left in any file redact or report writes.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mcptape.errors import MCPTapeError
from mcptape.jsonsafe import dumps
from tests.commands.tapes import HEADER, assert_clean_run, run, unsafe_chars

pytestmark = pytest.mark.slow

FORMAT = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
ODD = [
    "\x1b[31m",
    "\x07",
    "\r",
    "\x9b",
    "\u2028",
    "\ud7ff",
    "`",
    "```",
    "|",
    "![x](http://h/x.png)",
    "<b>",
    '"',
    "\\",
]
ENV = {"MCPTAPE_REDACT_KEY": "", "HOME": "/nonexistent"}

# Planted secrets: letters and digits (plausible credentials, nothing a JSON encoder escapes).
SECRETS = {
    "key": "Pw0rdKey9aXq",
    "bearer": "Br3arerTok7Zq",
    "url": "UrlPa55Zx8Qm",
    "nested": "N3stedJs0nKk",
    "arrays": "Arr4yArr4yQw",
    "unknown": "Unkn0wnRec5Tt",
    "argv": "Argv7TokEn3Yy",
    "header": "Hdr9FieldPw2Ls",
    "host": "H0stPa55Wq4Er",
}


def _secret_lines(shapes: set[str]) -> list[dict[str, Any]]:
    """One record per planted secret shape (each a shape redact says it covers)."""
    s = SECRETS
    out: list[dict[str, Any]] = []
    if "key" in shapes:
        params: dict[str, Any] = {"name": "x", "arguments": {"password": s["key"]}}
        out.append(
            _data("in", dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}) + "\n")
        )
    if "bearer" in shapes:
        out.append(_data("err", f"calling api with Authorization: Bearer {s['bearer']}\n"))
    if "url" in shapes:
        out.append(_data("err", f"cache at redis://:{s['url']}@cache:6379/0\n"))
    if "nested" in shapes:
        text = json.dumps({"config": json.dumps({"db": {"api_key": s["nested"]}})})
        result = {"content": [{"type": "text", "text": text}]}
        out.append(_data("out", dumps({"jsonrpc": "2.0", "id": 7, "result": result}) + "\n"))
    if "arrays" in shapes:
        params = {"secrets": [[s["arrays"]], [{"v": [s["arrays"]]}]]}
        out.append(
            _data("out", dumps({"jsonrpc": "2.0", "method": "notifications/x", "params": params}) + "\n")
        )
    if "unknown" in shapes:
        out.append({"t": 0.5, "ch": "future-kind", "what": [{"deep": s["unknown"]}], "n": 1})
    if "host" in shapes:
        out.append(
            _data("http", dumps({"method": "GET", "headers": [["Host", f"u:{s['host']}@api"]]}) + "\n")
        )
    return out


def _data(ch: str, text: str) -> dict[str, Any]:
    return {"t": 0.4, "ch": ch, "data": text}


texts = st.lists(
    st.one_of(st.characters(codec="utf-8"), st.sampled_from(FORMAT), st.sampled_from(ODD)), max_size=12
).map("".join)
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=12,
)


@st.composite
def deep_values(draw: st.DrawFn) -> Any:
    """A value nested up to the depth the check core's parser accepts."""
    value: Any = draw(leaves)
    for i in range(draw(st.integers(200, 1020))):
        value = [value] if i % 3 else {"k": value}
    return value


any_value = st.one_of(values, deep_values())
ids = st.one_of(st.integers(0, 5), st.sampled_from(["1", "a", None, True, 1.5]))
methods = (
    st.sampled_from(["initialize", "tools/list", "tools/call", "notifications/initialized", "ping", "x/y"])
    | texts
)


@st.composite
def messages(draw: st.DrawFn) -> Any:
    """A JSON-RPC-like value: request, notification, response, error, batch, or anything."""
    kind = draw(st.sampled_from(["request", "notification", "result", "error", "batch", "any"]))
    if kind == "request":
        return {"jsonrpc": "2.0", "id": draw(ids), "method": draw(methods), "params": draw(any_value)}
    if kind == "notification":
        return {"jsonrpc": "2.0", "method": draw(methods), "params": draw(any_value)}
    if kind == "result":
        return {"jsonrpc": "2.0", "id": draw(ids), "result": draw(any_value)}
    if kind == "error":
        return {"jsonrpc": "2.0", "id": draw(ids), "error": {"code": draw(leaves), "message": draw(texts)}}
    if kind == "batch":
        return [draw(messages()) for _ in range(draw(st.integers(0, 2)))]
    return draw(any_value)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any] | str:
    """One transcript line: a byte event (whole line, noise, binary), a field event of a known or
    unknown kind, a record of wrong types, or a line that is not JSON at all."""
    t = draw(st.floats(0, 5, allow_nan=False))
    ch = draw(st.sampled_from(["in", "out", "err", "exec", "http"]))
    kind = draw(
        st.sampled_from(["message", "message", "noise", "binary", "fields", "unknown", "wrong", "garbage"])
    )
    if kind == "message":
        return {"t": t, "ch": ch, "data": dumps(draw(messages())) + "\n"}
    if kind == "noise":
        return {"t": t, "ch": ch, "data": draw(texts) + "\n"}
    if kind == "binary":
        raw = draw(st.binary(max_size=24)) + b"\n"
        return {"t": t, "ch": ch, "b64": base64.b64encode(raw).decode()}
    if kind == "fields":
        name = draw(st.sampled_from(["eof", "exit", "note"]))
        extra = (
            {"of": ch} if name == "eof" else {"code": draw(leaves), "signal": None} if name == "exit" else {}
        )
        return {"t": t, "ch": name, **extra, "msg": draw(texts), "x": draw(any_value)}
    if kind == "unknown":
        return (
            {"t": t, "ch": draw(texts), "data": draw(texts)}
            if draw(st.booleans())
            else {"t": t, "ch": draw(texts)}
        )
    if kind == "wrong":
        return {
            "t": draw(st.one_of(texts, st.none(), st.just([]))),
            "ch": draw(st.one_of(st.integers(), st.just(ch))),
            "data": draw(leaves),
        }
    return draw(texts)


@st.composite
def headers(draw: st.DrawFn, shapes: set[str]) -> dict[str, Any] | str:
    """A header: the usual one with extra fields, or fields of the wrong type, or not JSON."""
    header: dict[str, Any] = dict(HEADER)
    header["command"] = ["server", *(["--token", SECRETS["argv"]] if "argv" in shapes else [])]
    if "header" in shapes:
        header["env"] = {"DB": {"password": [SECRETS["header"]]}}
    kind = draw(st.sampled_from(["plain", "plain", "extra", "wrong", "garbage"]))
    if kind == "extra":
        header["x"] = draw(any_value)
        header["cwd"] = draw(texts)
    elif kind == "wrong":
        field = draw(st.sampled_from(["recorder", "command", "started", "cwd", "mcptape"]))
        header[field] = draw(st.one_of(st.just("ab"), st.just([1]), st.just(3), st.just({"a": 1})))
    elif kind == "garbage":
        return draw(texts)
    return header


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[bytes, set[str]]:
    """The bytes of a hostile transcript and the secret shapes planted in it."""
    shapes = draw(st.sets(st.sampled_from(sorted(SECRETS))))
    header = draw(headers(shapes))
    body: list[dict[str, Any] | str] = draw(st.lists(records(), max_size=10))
    planted = _secret_lines(shapes)
    for record in planted:
        body.insert(draw(st.integers(0, len(body))), record)
    lines = [h if isinstance(h, str) else dumps(h) for h in [header, *body]]
    if draw(st.booleans()):  # a torn line at the very end of a channel: its stream closes right after
        torn = dumps(draw(messages()))
        lines.append(dumps({"t": 9.0, "ch": "exec", "data": torn[: draw(st.integers(0, len(torn)))]}))
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    if draw(st.booleans()):  # a recorder killed mid-record: the last line cut short
        data = data[: len(data) - draw(st.integers(1, max(1, min(40, len(data) - 1))))]
    return data, shapes


def assert_no_secret(shapes: set[str], *paths: Path) -> None:
    for path in paths:
        for file in [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()):
            data = file.read_bytes()
            for shape in shapes:
                assert SECRETS[shape].encode() not in data, (shape, file.name, data[:2000])


def view_headless(path: Path) -> None:
    """The viewer's model reads every row: list text and detail text, all of it safe."""
    from mcptape.transcript.index import TranscriptIndex
    from mcptape.tui.model.viewer import ViewerModel
    from mcptape.tui.widgets.detail import render_detail

    try:
        index = TranscriptIndex(path)
    except MCPTapeError:
        return  # not a readable transcript: the viewer says so in one line, as check does
    index.scan()
    model = ViewerModel(index)
    for row in range(len(index)):
        info = model.describe(row)
        assert unsafe_chars(info.preview) == [], info.preview
        shown = render_detail(model.detail(row), hex_mode=False).plain
        assert unsafe_chars(shown) == [], shown[:500]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("any")


@settings(
    max_examples=int(os.environ.get("MCPTAPE_HOSTILE_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(first=transcripts(), second=transcripts())
def test_every_reading_command_survives_any_transcript(
    workdir: Path, first: tuple[bytes, set[str]], second: tuple[bytes, set[str]]
) -> None:
    """Exit 0, 1 or 2, no traceback, nothing unsafe printed, no planted secret in what redact and
    report write, the viewer's rows readable."""
    for old in workdir.iterdir():
        if old.is_dir():
            for f in old.iterdir():
                f.unlink()
            old.rmdir()
        else:
            old.unlink()
    a = a_ = workdir / "a.jsonl"
    b = b_ = workdir / "b.jsonl"
    a.write_bytes(first[0])
    b.write_bytes(second[0])
    for argv in (["check", a], ["check", "--json", a], ["diff", a, b], ["diff", "--json", a, b]):
        result = run(*map(str, argv))
        assert_clean_run(result)
        event(f"{' '.join(str(a) for a in argv if a not in (a_, b_))} exit {result.exit_code}")
    redacted = workdir / "redacted.jsonl"
    assert_clean_run(run("redact", str(a), "-o", str(redacted), env=ENV), codes=[0, 2])
    bundle = workdir / "bundle"
    assert_clean_run(run("report", str(a), "-o", str(bundle), env=ENV), codes=[0, 2])
    event(f"redact {'written' if redacted.exists() else 'refused'}, secrets {len(first[1])}")
    if redacted.exists():
        assert_no_secret(first[1], redacted)
        assert_clean_run(run("check", str(redacted)))
    if bundle.exists():
        assert_no_secret(first[1], bundle)
        report = bundle / "report.md"
        if report.exists():
            assert unsafe_chars(report.read_text(encoding="utf-8")) == []
    view_headless(a)

"""Properties of redaction over generated lines: framing kept, JSON kept, planted secrets gone."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.share.live import redacting_writer
from mcptape.share.placeholder import Key
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules
from mcptape.transcript import open_transcript
from mcptape.transcript.files import open_output
from mcptape.transcript.writer import new_header

pytestmark = pytest.mark.slow

KEY = Key(b"\x01" * 16, "01" * 16)
SECRET = "Zk9-secret-value-4417"
SECRET_NUMBER = 918273645
SECRET_KEYS = ["api_key", "apiKey", "Authorization", "password", "client_secret", "x-auth-token", "Cookie"]
plain_text = st.text(st.characters(codec="utf-8"), max_size=12)
plain_keys = st.sampled_from(["name", "text", "type", "id", "arguments", "content", "data", "uri"])


def _json_values(depth: int = 3) -> st.SearchStrategy[Any]:
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), plain_text)
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(plain_keys, inner, max_size=3),
        ),
        max_leaves=8,
    )


@st.composite
def planted(draw: st.DrawFn) -> tuple[Any, int]:
    """A JSON document with the secret under a few secret keys at random depths."""
    doc = {"jsonrpc": "2.0", "id": draw(st.integers(0, 99)), "params": draw(_json_values())}
    count = draw(st.integers(1, 3))
    for _ in range(count):
        key = draw(st.sampled_from(SECRET_KEYS))
        target = doc
        for _ in range(draw(st.integers(0, 2))):
            child = target.setdefault(draw(plain_keys), {})
            if not isinstance(child, dict):
                break
            target = child
        values = [SECRET, SECRET_NUMBER, [SECRET, "x" + SECRET], "Bearer " + SECRET]
        target[key] = draw(st.sampled_from(values))
    return doc, count


@settings(max_examples=150, deadline=None)
@given(planted(), st.booleans(), st.booleans())
def test_a_json_line_stays_the_same_json_without_its_secrets(
    case: tuple[Any, int], ascii_only: bool, compact: bool
) -> None:
    """Any serialisation: the secret is gone, the line parses to the same document with placeholders."""
    doc, _ = case
    seps = (",", ":") if compact else (", ", ": ")
    line = json.dumps(doc, ensure_ascii=ascii_only, separators=seps)
    out = Redactor(Rules.build(use_env=False), KEY).text(line)
    assert SECRET not in out and str(SECRET_NUMBER) not in out
    assert "\n" not in out
    redacted = orjson.loads(out)
    assert _shape(redacted) == _shape(doc)


def _shape(value: Any) -> Any:
    """The document with every string that is a placeholder (or the secret) blanked."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if isinstance(value, str) and (SECRET in value or value.removeprefix("Bearer ").startswith("[redacted:")):
        return "<secret>"
    if value == SECRET_NUMBER:
        return "<secret>"
    return value


noise = st.one_of(
    st.binary(max_size=40),
    st.text(
        st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters='"\\'), max_size=40
    ).map(str.encode),
)
OPENERS = [b"", b'{"text":"', b'{"token":"', b'"', b'["', b"\xff", b'{"a":1,"password":']
CLOSERS = [b"", b'"}', b'"', b'"]', b"\xfe", b"}"]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(OPENERS),
    noise,
    st.sampled_from(["", "token=" + SECRET, "Bearer " + SECRET, SECRET, "x\\q" + SECRET]),
    st.sampled_from(CLOSERS),
)
def test_a_line_keeps_its_kind_and_its_newline(
    opener: bytes, junk: bytes, planted_text: str, closer: bytes
) -> None:
    """Any bytes: valid JSON stays valid, invalid stays invalid, UTF-8 validity and newlines kept."""
    r = Redactor(Rules.build(use_env=False), KEY)
    r.learn(SECRET, "test")
    body = opener + junk.replace(b"\n", b" ") + planted_text.encode() + closer
    for line in (body + b"\n", body):
        out = r.line(line)
        assert out.count(b"\n") == line.count(b"\n")
        assert out.endswith(b"\n") == line.endswith(b"\n")
        assert SECRET.encode() not in out
        assert _is_json(out) == _is_json(line)
        assert _is_utf8(out) == _is_utf8(line)


def _is_json(data: bytes) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b'{"params":{"api_key":"Av3ry-s3cret"}}\n',
                b"log: using sk-abcdefghijklmnopqrstuvwx now\n",
                b"plain line\n",
                b'{"jsonrpc":"2.0","id":1,"result":{}}\n',
            ]
        ),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.integers(1, 40), max_size=8),
)
def test_record_redact_output_does_not_depend_on_how_reads_were_cut(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], cuts: list[int]
) -> None:
    """However the stream is cut into reads, the live writer writes the same redacted lines."""
    stream = b"".join(lines)
    path = tmp_path_factory.mktemp("cuts") / "live.jsonl"
    writer = redacting_writer(open_output(path), clock_start=0.0, command=["srv"], environ={}, key=KEY)
    writer.header(new_header(["srv"], "/tmp"))
    pos = 0
    for n in cuts:
        writer.chunk(0.1, "out", stream[pos : pos + n])
        pos += n
    writer.chunk(0.2, "out", stream[pos:])
    writer.fields(0.3, "eof", of="out")
    writer.close()
    got = [e.data for e in open_transcript(path).events() if e.ch == "out"]
    expected = Redactor(Rules.build(use_env=False), KEY)
    assert got == [expected.line(line) for line in lines]
    assert b"sk-abcdefghij" not in path.read_bytes() and b"Av3ry-s3cret" not in path.read_bytes()

"""Text that hides or reorders itself: one definition of unsafe text, applied to every output."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from mcptape.textsafe import escape, escape_controls, escape_json, escape_text, is_unsafe
from tests.commands.tapes import (
    UNSAFE_CATEGORIES,
    assert_clean_run,
    line,
    message,
    run,
    session,
    unsafe_chars,
)

# Every code point Python's unicodedata puts in an unsafe category (Cc, Cf, Cs, Zl, Zp).
UNSAFE = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in UNSAFE_CATEGORIES]
FORMAT = [c for c in UNSAFE if unicodedata.category(c) == "Cf"]
# A bidi mark outside what was escaped before, the invisible tag characters, a soft hyphen.
SHOWCASE = "a\u061cb \U000e0049\U000e0047\U000e004e\U000e004f\U000e0052\U000e0045 c\u00add \u2066e\u2069"


def test_every_format_and_control_character_is_unsafe() -> None:
    """The table in textsafe covers the whole of Cc, Cf, Cs, Zl and Zp of this Python's Unicode."""
    missed = [f"U+{ord(c):04X}" for c in UNSAFE if not is_unsafe(c)]
    assert missed == []
    assert len(FORMAT) > 150  # the tag block alone is 97 characters


def test_escape_text_leaves_no_unsafe_character_and_no_other_change() -> None:
    """escape_text turns each unsafe character into an escape and leaves printable text alone."""
    joined = "".join(UNSAFE)
    assert unsafe_chars(escape_text(joined)) == []
    assert unsafe_chars(escape_controls(joined)) == []
    plain = "héllo wörld ✓ 日本 👍 \\ `code`"
    assert escape_controls(plain) == plain
    assert escape_text(plain) == plain.replace("\\", "\\\\")


def test_a_tag_character_is_escaped_as_one_readable_code() -> None:
    """Characters beyond U+FFFF are written `\\U` and eight hex digits, as Python reads them back."""
    assert escape_text(SHOWCASE) == (
        "a\\u061cb \\U000e0049\\U000e0047\\U000e004e\\U000e004f\\U000e0052\\U000e0045 c\\xadd \\u2066e\\u2069"
    )
    assert escape(SHOWCASE.encode()) == escape_text(SHOWCASE)


def test_escape_json_keeps_the_value_with_surrogate_pairs_for_tag_characters() -> None:
    """JSON output escapes every format character (a surrogate pair beyond U+FFFF) and reads back the same."""
    value = {"text": "".join(c for c in UNSAFE if not 0xD800 <= ord(c) <= 0xDFFF), "show": SHOWCASE}
    document = escape_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert unsafe_chars(document) == []
    assert json.loads(document) == value
    assert "\\udb40\\udc49" in document  # U+E0049 TAG LATIN CAPITAL LETTER I


@pytest.fixture
def showcase(tmp_path: Path) -> Path:
    """A session whose method, tool name, result, stdout noise and stderr carry format characters."""
    return session(
        tmp_path / "format.jsonl",
        {"content": [{"type": "text", "text": SHOWCASE}]},
        request={"name": "echo" + SHOWCASE, "arguments": {"q": SHOWCASE}},
        extra=[
            line(0.21, "out", f"banner {SHOWCASE}\n"),
            line(0.22, "err", f"log {SHOWCASE}\n"),
            line(0.23, "out", message(method="notifications/x" + SHOWCASE)),
        ],
    )


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_check_prints_no_format_character(showcase: Path, as_json: bool) -> None:
    """check and check --json show the server's format characters escaped, on stdout and stderr."""
    result = run("check", *(["--json"] if as_json else []), str(showcase))
    assert_clean_run(result, codes=[1])
    assert "\\u061c" in result.stdout


def test_escaped_json_output_still_reads_back_the_server_text(showcase: Path) -> None:
    """check --json escapes inside JSON strings: a consumer decoding it gets the exact characters."""
    result = run("check", "--json", str(showcase))
    document = json.loads(result.stdout)
    assert any("\U000e0049" in f["raw"] or "\\U000e0049" in f["raw"] for f in document["findings"])


MARKDOWN = (
    "banner ![logo](http://attacker.example/x.png) [click](http://attacker.example) <img src=x> "
    "*bold* | pipe `` ```` ~~~ # title"
)


def test_report_md_quotes_server_bytes_only_inside_code(tmp_path: Path) -> None:
    """A server's Markdown (an image link that would fetch from the attacker's host) is never live
    in report.md: every transcript byte sits in a code span or fence longer than any backtick run."""
    from markdown_it import MarkdownIt

    src = session(
        tmp_path / "md.jsonl",
        {"content": []},
        request={"name": MARKDOWN, "arguments": {}},
        extra=[line(0.21, "out", MARKDOWN + "\n"), line(0.22, "err", MARKDOWN + "\n")],
    )
    assert_clean_run(run("report", str(src), "-o", str(tmp_path / "bundle")), codes=[0])
    text = (tmp_path / "bundle" / "report.md").read_text()
    assert "attacker.example" in text and unsafe_chars(text) == []
    live: list[str] = []

    def visit(tokens: list) -> None:  # type: ignore[type-arg]
        for token in tokens:
            if token.type in ("image", "link_open", "html_inline", "html_block"):
                live.append(token.type)
            if token.type == "text" and "attacker" in token.content:
                live.append(token.content)
            visit(token.children or [])

    visit(MarkdownIt("gfm-like").parse(text))
    assert live == []


def test_junit_xml_text_uses_the_same_definition() -> None:
    """The CI formats' JUnit XML (read on CI pages) escapes a bidi control or a tag character too,
    not only the C0 controls XML cannot hold."""
    from mcptape.commands.ci.report import xml_text

    assert unsafe_chars(xml_text(SHOWCASE)) == []
    assert xml_text("plain\ntext\twith tabs") == "plain\ntext\twith tabs"

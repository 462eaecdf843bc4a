"""Must show: `mcptape export --format html` is one self-contained file that Chromium renders with the
findings, and a hostile transcript (`<script>`, `onerror=`, `</textarea>`, `javascript:` links,
terminal escapes, bidi overrides, in stdout, stderr, executor lines and the command line) gives
no injected element, no script run and no request leaving the file, with JavaScript on or off:
the first bad line is there as text."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.export.helpers import dump_dom, export, line, listener, tool_session, write_transcript

pytestmark = pytest.mark.slow

# Every element the report itself is made of: anything else in the DOM came from a transcript.
OWN_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table", "tbody", "tr", "th",
    "td", "code", "pre", "ol", "ul", "li", "span", "details", "summary", "div", "section",
    "svg", "line", "text", "g", "rect", "path", "circle",
}  # fmt: skip
LOADING = {"src", "href", "xlink:href", "action", "formaction", "srcset", "background", "poster", "data"}


class Elements(HTMLParser):
    """Every start tag of a document, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(document: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(document)
    return parser.found


def hostile(tmp_path: Path, leak: str) -> Path:
    """A session whose server prints markup that would load `leak` and run script if it were HTML."""
    banner = (
        f'<script>document.title=\'PWNED\'</script><img src="{leak}/img" onerror="document.body.'
        f"setAttribute('data-pwned','1')\"></textarea><a href=\"javascript:alert(1)\">x</a>"
        f'<iframe src="{leak}/frame"></iframe>\x1b]8;;{leak}/osc\x07link\x1b[31m red \u202eevil\u202c\n'
    )
    records = [
        line(0.001, "out", banner),
        line(0.002, "err", f'<link rel=stylesheet href="{leak}/css"><style>body{{display:none}}</style>\n'),
        *tool_session(),
    ]
    records.insert(4, line(0.015, "exec", {"action": f"<svg onload=alert(1)><image href='{leak}/svg'/>"}))
    return write_transcript(
        tmp_path / "hostile.jsonl", records, ["python", "srv.py", f"<base href='{leak}/'>"]
    )


def render(tmp_path: Path, transcript: Path) -> Path:
    page = tmp_path / "report.html"
    done = export(str(transcript), "--format", "html", "-o", str(page))
    assert done.returncode == 0, done.stderr
    return page


def test_the_report_is_one_file_with_the_findings_and_every_message(tmp_path: Path) -> None:
    """Rendered by Chromium: the verdict, each finding's rule and bytes, the first non-protocol line,
    every message in a <details>, the timeline's bars and the red dot of the action after a reject."""
    page = render(tmp_path, write_transcript(tmp_path / "t.jsonl", tool_session()))
    dom = dump_dom(page, javascript=True)
    assert "2 finding(s), 2 error(s)" in dom
    for text in ("exec-after-reject", "non-protocol-output", "debug: still here", "tools/call deploy"):
        assert text in dom
    found = elements(dom)
    assert sum(1 for tag, _ in found if tag == "details") == 10  # every in/out line
    assert sum(1 for tag, _ in found if tag == "rect") == 4  # the calls
    assert [a.get("fill") for tag, a in found if tag == "circle"] == ["#2a2", "#d00"]


def test_a_hostile_transcript_injects_nothing_and_loads_nothing(tmp_path: Path) -> None:
    """With JavaScript on and off: only the report's own elements, no attribute that loads or runs,
    the title untouched, zero requests to the address the transcript names, the bad line as text."""
    with listener() as leak:
        page = render(tmp_path, hostile(tmp_path, leak.url))
        source = page.read_text(encoding="utf-8")
        doms = [dump_dom(page, javascript=on) for on in (True, False)]
        assert leak.requests == []
    for document in (source, *doms):
        found = elements(document)
        assert {tag for tag, _ in found} <= OWN_TAGS
        for tag, attributes in found:
            assert not any(name.startswith("on") for name in attributes), (tag, attributes)
            assert not LOADING & set(attributes), (tag, attributes)
        assert "<title>mcptape report: srv.py</title>" in document
        assert not any("data-pwned" in attributes for _, attributes in found)  # the onerror never ran
    dom = doms[0]
    assert "&lt;script&gt;document.title='PWNED'&lt;/script&gt;&lt;img src=" in dom.replace("&#39;", "'")
    assert "\\x1b]8;;" in dom and "\\u202eevil" in dom  # terminal escapes and bidi shown, not acted on
    assert "\x1b" not in source and "\u202e" not in source
    assert "Content-Security-Policy" in source and "script-src 'none'" in source


def test_javascript_off_is_really_off(tmp_path: Path) -> None:
    """The control for the test above: a page's own script runs with JavaScript on, not off."""
    page = tmp_path / "control.html"
    page.write_text("<p id=x>static</p><script>document.getElementById('x').textContent='ran'</script>")
    assert '<p id="x">ran</p>' in dump_dom(page, javascript=True)
    assert '<p id="x">static</p>' in dump_dom(page, javascript=False)


def test_escaped_bidi_and_invisible_characters_in_a_message_stay_escaped(tmp_path: Path) -> None:
    """A printable ASCII line whose JSON strings hold \\u202e, \\u0085, \\u200b and \\u007f: the page
    (its raw line and its indented JSON) never holds the characters themselves, only their escapes."""
    sneaky = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"x\\u202ey\\u0085z\\u200bw\\u007fv"}}\n'
    records = [line(0.001, "in", sneaky), line(0.002, "out", '{"jsonrpc":"2.0","id":1,"result":{}}\n')]
    page = render(tmp_path, write_transcript(tmp_path / "t.jsonl", records))
    text = page.read_text(encoding="utf-8")
    assert [c for c in "\u202e\u0085\u200b\x7f" if c in text] == []
    assert "\\u202e" in text and "\\u200b" in text

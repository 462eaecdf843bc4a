"""Member names a server chooses go into ignore rules (`replay --learn`) and into the settings file
(`--save`): every name must come back from its rule text, and the file must show every character a
reader could be misled by as an escape. A name holding `[*]`, `]`, a quote or a backslash made a rule
its own parser refused (learning failed: exit 2); a bidi override was written raw into the file; a
lone surrogate (a JSON \\ud800 escape) was a UnicodeEncodeError traceback."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.diff.ignore import parse_path, parse_rule, render_path, rule_text
from mcptape.errors import UsageError
from mcptape.replay.configfile import toml_string
from mcptape.textsafe import has_unsafe
from tests import inprocess
from tests.conftest import console_script

NAMES = [
    "[*]",
    "]",
    "[0]",
    '"',
    "'q'",
    'a"]b',
    "back\\slash",
    "end\\",
    "x|json",
    "colon:x",
    "a.b",
    "",
    "\x1b[31m",
]
TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)


@pytest.mark.parametrize("name", NAMES)
def test_a_rule_naming_a_hostile_member_reads_back_as_that_member(name: str) -> None:
    """rule_text writes the name quoted and escaped; parse_rule reads the same path back."""
    path = ("result", name, -1, "x")
    rule = parse_rule(rule_text("tools/call", "t", path))
    assert rule.pattern == path and rule.target == "t"


@settings(max_examples=60, deadline=None)
@given(name=st.text(max_size=12))
def test_any_member_name_round_trips_through_its_rule_path(name: str) -> None:
    """parse_path(render_path(path)) is the path, for any member name (a property)."""
    assert parse_path(render_path(("result", name))) == ("result", name)


@settings(max_examples=60, deadline=None)
@given(value=TEXT)
def test_a_settings_string_is_read_back_and_shows_no_unsafe_character(value: str) -> None:
    """toml_string writes every unsafe character as an escape; tomllib reads the value back."""
    text = toml_string(value)
    assert not has_unsafe(text) and tomllib.loads(f"k = {text}")["k"] == value


def test_a_settings_string_with_a_lone_surrogate_is_a_usage_error() -> None:
    """TOML cannot hold a lone surrogate: one UsageError, not a UnicodeEncodeError when writing."""
    with pytest.raises(UsageError, match="lone surrogate"):
        toml_string('initialize:result["\ud800"]')


SERVER = r"""
import json, random, sys
KEYS = ["[*]", "]", "a\"]b", "back\\slash", "\u202e"]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    r = random.random()
    result = {k: r for k in KEYS}
    if m["method"] == "initialize":
        result.update(protocolVersion="2025-06-18", serverInfo={"name": "h\u202e", "version": "1"})
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"""


@pytest.mark.slow
def test_learn_save_writes_rules_for_hostile_member_names_that_hide_their_noise(tmp_path: Path) -> None:
    """--learn 2 --save on a server varying members named `[*]`, `]`, `a"]b`, `back\\slash` and
    U+202E: exit 0, the file escapes U+202E, and a replay with the saved rules is same."""
    server = tmp_path / "srv.py"
    server.write_text(SERVER)
    tape = tmp_path / "t.jsonl"
    hello = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}\n'
    recorded = subprocess.run(
        [console_script(), "record", "-q", "-o", str(tape), "--", sys.executable, str(server)],
        input=hello,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert recorded.returncode == 0, recorded.stderr
    learned = inprocess.run("replay", str(tape), "--learn", "2", "--save", cwd=tmp_path, text=True)
    assert learned.returncode == 0, learned.stdout + learned.stderr
    assert "mcptape.toml" in learned.stdout + learned.stderr, learned.stdout + learned.stderr
    saved = (tmp_path / "mcptape.toml").read_text()
    assert "\u202e" not in saved and "\\u202E" in saved
    again = inprocess.run("replay", str(tape), cwd=tmp_path, text=True)
    assert again.returncode == 0 and "same" in again.stdout, again.stdout + again.stderr

"""The viewer, driven headless with Pilot: where it lands, how it moves, what it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.tui.bindings import APP_BINDINGS, LIST_BINDINGS
from mcptape.tui.screens.help import HelpScreen
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.helpers import SIZE, viewer
from tests.tui.transcripts import (
    banner_session,
    exec_after_reject_session,
    hostile_session,
    req,
    write,
)

pytestmark = pytest.mark.slow


async def test_cursor_starts_on_the_first_non_protocol_line_of_a_banner_session(tmp_path: Path) -> None:
    """A banner on stdout is where the viewer opens, and the header says why."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 4
        assert "first non-protocol line on stdout (line 2" in app.reason
        text = screen_text(app)
        assert "cursor: first non-protocol line on stdout" in text
        assert "non-protocol-output" in text and "Weather server v2.1 listening" in text


async def test_next_finding_reaches_the_exec_after_reject_row(tmp_path: Path) -> None:
    """From the stray stdout line, `]` goes to the executor call made for a rejected request."""
    app = viewer(exec_after_reject_session(tmp_path / "deploy.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 3
        await pilot.press("right_square_bracket")
        row = app.messages.current_row
        assert row is not None and app.model.describe(row).kind == "exec-after-reject"
        assert app.model.describe(row).status == "exec-after-reject"
        text = screen_text(app)
        assert "deploy-prod" in text and "which was rejected" in text
        assert app.reason.startswith(f"cursor: row {row + 1} — exec-after-reject: ")  # the header follows
        await pilot.press("left_square_bracket")
        assert app.messages.current_row == 3
        assert app.reason.startswith("cursor: row 4 — non-protocol-output: ")


async def test_search_finds_a_raw_byte_string(tmp_path: Path) -> None:
    """`/` with escapes finds the bytes a server wrote, including non-UTF-8 ones; `n` finds the next."""
    app = viewer(hostile_session(tmp_path / "hostile.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("home", "slash")
        await pilot.press(*r"\x1b]0;pwned")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.messages.current_row == 3)
        await pilot.press("slash", "ctrl+u", *r"\xff", "enter")
        await wait_for(pilot, lambda: app.messages.current_row == 5)
        await pilot.press("slash", "ctrl+u", *r"\x1b[", "enter")
        await wait_for(pilot, lambda: app.messages.current_row == 3)  # wrapped around
        await pilot.press("n")
        await wait_for(pilot, lambda: app.messages.current_row == 4)  # the stderr line


async def test_request_response_jump(tmp_path: Path) -> None:
    """`p` goes from a request to its response and back; the detail pane shows the pair."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.messages.select_row(7)
        await pilot.pause()
        await pilot.press("p")
        assert app.messages.current_row == 8
        detail = screen_text(app)
        assert "request: row 8" in detail
        await pilot.press("p")
        assert app.messages.current_row == 7
        assert "response: row 9" in screen_text(app)


async def test_escape_osc_and_bell_bytes_render_escaped(tmp_path: Path) -> None:
    """No ESC, C1 or BEL byte from stdout or stderr reaches the screen: they are shown as \\xNN."""
    app = viewer(hostile_session(tmp_path / "hostile.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for row in (3, 4, 5):
            app.messages.select_row(row)
            await pilot.pause()
            svg = app.export_screenshot()
            assert "\x1b" not in svg and "\x9b" not in svg and "\x07" not in svg
            text = screen_text(app)
            assert r"\x1b[31mALERT\x1b[0m \x1b]0;pwned\x07 ring\x07\n" in text
            assert r"\x1b]8;;http://evil.example/\x1b\\click" in text
            assert r"\x9b31m C1 CSI and \xff\n" in text
        await pilot.press("x")
        assert "5c 78 39 62" not in screen_text(app) and "9b 33 31 6d" in screen_text(app)


async def test_help_lists_every_binding_with_its_id(tmp_path: Path) -> None:
    """`?` shows each binding id with its key, so a user can write a keymap."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=(150, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {binding_id for _, _, binding_id in app.screen.rows}
        assert {b.id for b in APP_BINDINGS + LIST_BINDINGS} <= ids
        assert "finding.next" in screen_text(app)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_a_keymap_rebinds_a_binding_by_id(tmp_path: Path) -> None:
    """With `finding.next` mapped to `z`, `z` moves to the next finding."""
    app = viewer(exec_after_reject_session(tmp_path / "deploy.jsonl"))
    app.set_keymap({"finding.next": "z"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("z")
        row = app.messages.current_row
        assert row is not None and app.model.describe(row).kind == "exec-after-reject"


async def test_channel_method_and_finding_filters(tmp_path: Path) -> None:
    """Filters narrow the list by channel, by method and to findings; the cursor row is kept."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # protocol (in+out)
        assert len(app.messages.view) == 8 and app.messages.current_row == 4
        await pilot.press("c")  # stdout
        assert [app.messages.view.row(i) for i in range(len(app.messages.view))] == [1, 4, 5, 8]
        for _ in range(4):
            await pilot.press("c")
        assert len(app.messages.view) == 11
        await pilot.press("m", *"tools/call", "enter")
        await pilot.pause()
        assert [app.messages.view.row(i) for i in range(len(app.messages.view))] == [7, 8]
        await pilot.press("m", "ctrl+u", "enter", "f")
        await pilot.pause()
        assert [app.messages.view.row(i) for i in range(len(app.messages.view))] == [4]
        assert "findings only" in screen_text(app)


async def test_stderr_can_have_its_own_pane(tmp_path: Path) -> None:
    """`e` moves stderr lines out of the timeline into a pane of their own."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert not app.messages.view.contains(6)
        assert app.stderr_list.display and app.stderr_list.view.contains(6) and len(app.stderr_list.view) == 1
        await pilot.press("e")
        assert app.messages.view.contains(6) and not app.stderr_list.display


async def test_follow_shows_new_events_without_moving_the_selection(tmp_path: Path) -> None:
    """With --follow, rows appended to the file appear and the selected row stays selected."""
    path = banner_session(tmp_path / "live.jsonl")
    app = viewer(path, follow=True, poll=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.messages.select_row(2)
        app.messages.user_moved = True
        await pilot.pause()
        with open(path, "ab") as fh:
            for i in range(3, 6):
                fh.write(
                    b'{"t":0.1,"ch":"in","data":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":%d,\\"method\\":\\"ping\\"}\\n"}\n'
                    % i
                )
            fh.write(b'{"t":0.2,"ch":"out","da')  # a record still being written
        await wait_for(pilot, lambda: len(app.index) == 14)
        await settle(pilot)
        assert app.messages.current_row == 2
        assert app.model.describe(13).label == "ping #5"
        assert "14 rows" in screen_text(app)


async def test_a_truncated_transcript_opens_and_says_so(tmp_path: Path) -> None:
    """A recorder killed mid-write: the rows are there and the header names the cut line."""
    path = write(tmp_path / "cut.jsonl", [req(0.0, 1, "ping")])
    with open(path, "ab") as fh:
        fh.write(b'{"t":0.1,"ch":"out","data":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"res')
    app = viewer(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.index) == 2
        text = screen_text(app)
        assert "incomplete-capture" in text  # the verdict says the recording was cut
        app.messages.select_row(1)
        await pilot.pause()
        assert "truncated last line" in screen_text(app)


async def test_only_visible_rows_are_rendered(tmp_path: Path) -> None:
    """A 20,000-row transcript renders about one screen of rows, at the top and after a jump."""
    events = [Event(i * 0.001, "err", text=f"log line {i}\n") for i in range(20_000)]
    app = viewer(write(tmp_path / "big.jsonl", events))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert 0 < len(app.messages.rendered_rows) <= 40
        app.messages.rendered_rows.clear()
        await pilot.press("end")
        await pilot.pause()
        assert 19_999 in app.messages.rendered_rows and len(app.messages.rendered_rows) <= 40


async def test_detail_pane_shows_pretty_json_and_hex(tmp_path: Path) -> None:
    """The detail pane pretty-prints the message and `x` switches raw bytes to a hex dump."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=(150, 60)) as pilot:
        await settle(pilot)
        app.messages.select_row(7)
        await pilot.pause()
        text = screen_text(app)
        assert '"method": "tools/call",' in text and "raw bytes (104, escaped)" in text
        await pilot.press("x")
        assert "00000000  7b 22 6a 73" in screen_text(app)

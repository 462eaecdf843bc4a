"""Every key of the viewer, each with an id so a user keymap can rebind it.

A keymap is a TOML file mapping binding ids to keys, read from `--keymap FILE` or
`$XDG_CONFIG_HOME/mcptape/keymap.toml`::

    [keymap]
    "finding.next" = "F"
    "search.open" = "ctrl+f"
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from textual.binding import Binding

from mcptape.errors import UsageError

APP_BINDINGS: list[Binding] = [
    Binding("question_mark", "help", "Help", id="app.help", key_display="?"),
    Binding("q", "quit", "Quit", id="app.quit"),
    Binding("right_square_bracket", "finding(1)", "Next finding", id="finding.next", key_display="]"),
    Binding("left_square_bracket", "finding(-1)", "Prev finding", id="finding.previous", key_display="["),
    Binding("slash", "search", "Search bytes", id="search.open", key_display="/"),
    Binding("n", "search_again(1)", "Next match", id="search.next"),
    Binding("N", "search_again(-1)", "Prev match", id="search.previous", key_display="N"),
    Binding("p", "pair", "Request<->response", id="pair.jump"),
    Binding("c", "cycle_channel", "Channel filter", id="filter.channel"),
    Binding("m", "filter_method", "Method filter", id="filter.method"),
    Binding("t", "filter_tool", "Tool filter", id="filter.tool"),
    Binding("f", "filter_findings", "Findings only", id="filter.findings"),
    Binding("e", "toggle_stderr", "Stderr pane", id="view.stderr"),
    Binding("x", "toggle_hex", "Hex", id="detail.hex"),
    Binding("d", "toggle_detail", "Detail pane", id="view.detail"),
    Binding("enter", "toggle_exchange", "Open exchange", id="exchange.toggle", show=False),
    Binding("z", "by_exchange", "By exchange/record", id="view.exchanges", show=False),
]

LIST_BINDINGS: list[Binding] = [
    Binding("up,k", "cursor(-1)", "Up", id="list.up", show=False),
    Binding("down,j", "cursor(1)", "Down", id="list.down", show=False),
    Binding("pageup", "page(-1)", "Page up", id="list.page_up", show=False),
    Binding("pagedown,space", "page(1)", "Page down", id="list.page_down", show=False),
    Binding("home,g", "edge(0)", "First row", id="list.first", show=False),
    Binding("end,G", "edge(1)", "Last row", id="list.last", show=False),
]


DIFF_BINDINGS: list[Binding] = [
    Binding("question_mark", "help", "Help", id="app.help", key_display="?"),
    Binding("q", "quit", "Quit", id="app.quit"),
    Binding("right_square_bracket", "difference(1)", "Next difference", id="diff.next", key_display="]"),
    Binding("left_square_bracket", "difference(-1)", "Prev difference", id="diff.previous", key_display="["),
    Binding("f", "only_differing", "Differences only", id="diff.only_differing"),
    Binding("d", "toggle_detail", "Detail pane", id="view.detail"),
    Binding("enter", "toggle_exchange", "Open exchange", id="exchange.toggle", show=False),
    Binding("z", "by_exchange", "By exchange/pair", id="view.exchanges", show=False),
]
"""The diff viewer's keys (`mcptape view OLD NEW`); the list keys are the same as the viewer's."""


def default_keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcptape" / "keymap.toml"


def load_keymap(path: Path | None) -> dict[str, str]:
    """The `[keymap]` table of a TOML file (an explicit path must exist; the default may not)."""
    explicit = path is not None
    target = path if path is not None else default_keymap_path()
    if not target.exists():
        if explicit:
            raise UsageError(f"keymap file {target} does not exist")
        return {}
    try:
        data = tomllib.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"keymap file {target} cannot be read: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise UsageError(f"keymap file {target} cannot be read: nested too deeply") from None
    except ValueError as exc:  # int() refuses an integer of more than 4300 digits
        raise UsageError(f"keymap file {target} cannot be read: {str(exc).split(';')[0]}") from None
    table = data.get("keymap", {})
    if not isinstance(table, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        raise UsageError(f"keymap file {target}: [keymap] must map binding ids to key strings")
    known = {b.id for b in APP_BINDINGS + LIST_BINDINGS + DIFF_BINDINGS}
    unknown = sorted(set(table) - known)
    if unknown:
        raise UsageError(
            f"keymap file {target}: unknown binding id {unknown[0]!r}",
            hint="press ? in the viewer to see every binding id",
        )
    return dict(table)

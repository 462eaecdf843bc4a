"""The help screen: every binding, its key(s) as currently mapped, and its id for a user keymap."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mcptape.tui.model.rows import KINDS

ROW_STYLES = "row styles, from quiet to loud: " + ", ".join(KINDS)


def binding_rows(app: App[Any]) -> list[tuple[str, str, str]]:
    """(keys as currently mapped, description, binding id) for every binding with an id in reach."""
    seen: dict[str, tuple[list[str], str]] = {}
    for active in app.screen.active_bindings.values():
        binding = active.binding
        if binding.id is None:
            continue
        keys, _ = seen.setdefault(binding.id, ([], binding.description))
        display = app.get_key_display(binding)
        if display not in keys:
            keys.append(display)
    rows = [(" ".join(keys), description, binding_id) for binding_id, (keys, description) in seen.items()]
    return sorted(rows, key=lambda row: row[2])


class HelpScreen(ModalScreen[None]):
    """A table of (keys, action, binding id), then what the rows' styles or marks mean."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss_help", "Close", id="help.close")
    ]

    def __init__(self, rows: list[tuple[str, str, str]], legend: str, *, example: str) -> None:
        super().__init__()
        self.rows = rows
        self.legend = legend
        self.example = example

    def compose(self) -> ComposeResult:
        table = Table(title="mcptape view — keys", expand=True, show_edge=False)
        table.add_column("keys", style="bold")
        table.add_column("action")
        table.add_column("binding id (for keymap.toml)", style="dim")
        for keys, description, binding_id in self.rows:
            table.add_row(keys, description, binding_id)
        legend = Text(f"\n{self.legend}", style="bold")
        legend.append(
            "\n\nRebind keys in $XDG_CONFIG_HOME/mcptape/keymap.toml (or --keymap FILE):\n"
            f'[keymap]\n"{self.example}" = "F"\n\nEscape closes this screen.'
        )
        with VerticalScroll(id="help-box"):
            yield Static(table)
            yield Static(legend)

    def action_dismiss_help(self) -> None:
        self.dismiss(None)

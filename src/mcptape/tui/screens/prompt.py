"""A one-line prompt (search bytes, method filter) as a small modal screen."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter gives it back, Escape gives None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, hint: str = "", value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.hint = hint
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Static(Text(self.title_text, style="bold"))
            yield Input(value=self.value, id="prompt-input")
            if self.hint:
                yield Static(Text(self.hint, style="dim"), id="prompt-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)

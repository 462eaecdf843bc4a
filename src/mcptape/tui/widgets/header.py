"""The header: which session this is, how it ended, the verdict, and why the cursor is where it is."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class SessionHeader(Static):
    """Three lines, each cut (never wrapped) to the width: the session; the verdict, then the
    status; why the cursor is where it is. Every transcript-derived string arrives already escaped.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text(""), id=id)
        self.session = ""
        self.status = ""
        self.verdict = ""
        self.verdict_style = ""
        self.reason = ""

    def set(
        self,
        *,
        session: str | None = None,
        status: str | None = None,
        verdict: str | None = None,
        verdict_style: str | None = None,
        reason: str | None = None,
    ) -> None:
        if session is not None:
            self.session = session
        if status is not None:
            self.status = status
        if verdict is not None:
            self.verdict = verdict
        if verdict_style is not None:
            self.verdict_style = verdict_style
        if reason is not None:
            self.reason = reason
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(self.session, style="bold")
        text.append("\n")
        text.append(self.verdict, style=self.verdict_style)
        if self.verdict and self.status:
            text.append("   ")
        text.append(self.status)
        text.append("\n")
        text.append(self.reason, style="italic")
        self.update(text)

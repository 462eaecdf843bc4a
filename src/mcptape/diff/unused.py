"""Ignore rules that hid nothing, told once for a whole run (a folder, a pytest session), not once
per transcript: a project-wide rule for one server's tool hides nothing in the other servers'
transcripts, and saying so on every failure buries the diff."""

from __future__ import annotations

from collections.abc import Iterable

from mcptape.diff.sessions import Diff

BUILT_IN = "built-in"


class UnusedRules:
    """Gathers, over many diffs, which user rules hid something somewhere."""

    def __init__(self) -> None:
        self.origins: dict[str, str] = {}  # rule text -> origin, in first-seen order
        self.used: set[str] = set()
        self.diffs = 0

    def add(self, diff: Diff) -> None:
        """Count `diff`, and stop it from listing its own unused rules (`Diff.unused_reported`)."""
        diff.unused_reported = False
        self.add_rules(((r.text, r.origin) for r in diff.rules), (h.rule.text for _, h in diff.hidden))

    def add_rules(self, rules: Iterable[tuple[str, str]], used: Iterable[str]) -> None:
        """The same from plain values: (text, origin) of the rules in force, texts of those that hid."""
        self.diffs += 1
        for text, origin in rules:
            if origin != BUILT_IN:
                self.origins.setdefault(text, origin)
        self.used.update(used)

    @property
    def unused(self) -> list[tuple[str, str]]:
        return [(text, origin) for text, origin in self.origins.items() if text not in self.used]

    def lines(self, what: str = "transcripts") -> list[str]:
        """One line per rule that hid nothing in any of them (texts not escaped: the caller does)."""
        return [
            f"ignore rule {text} ({origin}) hid nothing in any of the {self.diffs} {what}"
            for text, origin in self.unused
        ]

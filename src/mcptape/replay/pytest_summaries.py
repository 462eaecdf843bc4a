"""The pytest plugin's end-of-session summaries: what `--mcptape-update` rewrote, and the ignore rules
that hid nothing in any transcript, each said once in the terminal summary.

Each item says its part in its `user_properties`, which pytest-xdist carries from the workers to
the controller, where these summaries (registered by `pytest_plugin.py` at configure time) are
written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcptape.diff.unused import UnusedRules

UPDATED = "mcptape_updated"  # user_properties: "<path>: <what differed>"


class UnusedRulesSummary:
    """Ignore rules that hid nothing in any transcript, said once in the terminal summary (not in
    every failure). Each item reports its rules in `user_properties`, which pytest-xdist carries
    from the workers to the controller, where this summary is written."""

    def __init__(self) -> None:
        self.rules: UnusedRules | None = None  # made at the first replay's report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props: dict[str, Any] = dict(report.user_properties)
        if report.when == "call" and "mcptape_rules" in props:
            if self.rules is None:
                from mcptape.diff.unused import UnusedRules

                self.rules = UnusedRules()
            rules = [(str(text), str(origin)) for text, origin in props["mcptape_rules"]]
            self.rules.add_rules(rules, [str(text) for text in props.get("mcptape_used_rules", [])])

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from mcptape.textsafe import escape_text

        lines = self.rules.lines() if self.rules is not None else []
        if lines:
            terminalreporter.section("mcptape")
            for line in lines:
                terminalreporter.write_line(escape_text(line))


class UpdatedSummary:
    """What --mcptape-update rewrote, said once in the terminal summary (each item says it in its
    `user_properties`, which pytest-xdist carries to the controller)."""

    def __init__(self) -> None:
        self.updated: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.updated.extend(str(value) for name, value in report.user_properties if name == UPDATED)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.updated:
            from mcptape.textsafe import escape_text

            terminalreporter.section("mcptape updated")
            terminalreporter.write_line(
                f"rewrote {len(self.updated)} transcript(s) with the new session (--mcptape-update):"
            )
            for line in self.updated:
                terminalreporter.write_line(f"  {escape_text(line)}")

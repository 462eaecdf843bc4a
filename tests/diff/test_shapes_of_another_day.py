"""A recording replayed on another day: what a date changes in a server's answer is a shape the
learner can name. JavaScript's `Date.prototype.toString()` (`Tue Dec 01 2026 07:07:07 GMT+0000
(Coordinated Universal Time)`, what Node servers print: server-filesystem's `get_file_info`) is a
`time`; a day's name (mcp-server-time's `day_of_week`) is a `weekday`."""

from __future__ import annotations

import pytest

from mcptape.diff.ignore import parse_rule
from mcptape.diff.shapes import NAMES, explain, mask

JS_DATE = "Tue Dec 01 2026 07:07:07 GMT+0000 (Coordinated Universal Time)"


@pytest.mark.parametrize(
    ("name", "text", "masked"),
    [
        ("time", f"created: {JS_DATE}\n", "created: <time>\n"),
        ("time", "modified: Sun Nov 29 2026 10:11:12 GMT-0500 (Eastern Standard Time)", "modified: <time>"),
        ("time", "at Wed Dec 02 2026 09:00:00 GMT+0100", "at <time>"),
        ("weekday", '"day_of_week": "Tuesday"', '"day_of_week": "<weekday>"'),
        (
            "weekday",
            "Monday, then Sunday; not Mondays nor Sun",
            "<weekday>, then <weekday>; not Mondays nor Sun",
        ),
    ],
)
def test_a_days_shapes_are_replaced_by_their_placeholder(name: str, text: str, masked: str) -> None:
    """A JavaScript date string is one `<time>`; a day's full English name is a `<weekday>`."""
    assert mask(text, [name]) == masked


def test_an_http_date_stays_one_time_with_every_shape_applied() -> None:
    """The weekday shape comes after `time`: it never cuts the day's name out of a date."""
    text = f"Date: Sun, 29 Nov 2026 19:44:55 GMT; created: {JS_DATE}; on Sunday"
    assert mask(text, NAMES) == "Date: <time>; created: <time>; on <weekday>"


@pytest.mark.parametrize(
    ("values", "shapes"),
    [
        (
            [
                f"size: 29\ncreated: {JS_DATE}",
                "size: 29\ncreated: Sun Nov 29 2026 10:11:12 GMT+0000 (Coordinated Universal Time)",
            ],
            ("time",),
        ),
        (["Monday", "Tuesday"], ("weekday",)),
        (['{"day_of_week": "Monday"}', '{"day_of_week": "Tuesday"}'], ("weekday",)),
        (["Monday", "Mondays"], None),
    ],
)
def test_a_change_of_day_is_explained_by_the_days_shapes(
    values: list[str], shapes: tuple[str, ...] | None
) -> None:
    """get_file_info's dates differ only by a time; day_of_week only by a weekday."""
    assert explain(values) == shapes


def test_a_weekday_rule_parses() -> None:
    """`|weekday` is a shape a rule can end in."""
    rule = parse_rule("tools/call[get_current_time]:result.structuredContent.day_of_week|weekday")
    assert rule.text.endswith("|weekday")

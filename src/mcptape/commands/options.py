"""Click types shared by the commands: numbers with bounds (see `mcptape.limits`)."""

from __future__ import annotations

from typing import Any

import click

from mcptape.limits import MAX_LINE_BYTES, MAX_SECONDS


class Seconds(click.FloatRange):
    """A number of seconds within [min, one day]: NaN, infinities and values a thread or a sleep
    cannot take (`--timeout 1e300`) are usage errors (exit 2) naming the option and the range."""

    name = "seconds"

    def __init__(self, min: float = 0.0, *, min_open: bool = False) -> None:
        super().__init__(min=min, max=MAX_SECONDS, min_open=min_open)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:  # NaN passes every comparison of FloatRange
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return number


def line_bytes(min: int) -> click.IntRange:
    """A length of a line mcptape builds, within [min, 256 MiB]."""
    return click.IntRange(min=min, max=MAX_LINE_BYTES)

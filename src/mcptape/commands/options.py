"""Click types shared by the commands: numbers with bounds (see `mcptape.limits`), and options
renamed for consistency whose old spellings still work (`Renamed`)."""

from __future__ import annotations

from typing import Any

import click

from mcptape.limits import MAX_LINE_BYTES, MAX_SECONDS


class Seconds(click.FloatRange):
    """A number of seconds within [min, one day]: NaN, infinities and values a thread or a sleep
    cannot take (`--timeout 1e300`) are usage errors (exit 2) naming the option and the range.
    With `forever=True`, `inf` is accepted as a wait that never ends (`--shutdown-timeout inf`)."""

    name = "seconds"

    def __init__(self, min: float = 0.0, *, min_open: bool = False, forever: bool = False) -> None:
        super().__init__(min=min, max=MAX_SECONDS, min_open=min_open)
        self.forever = forever

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if self.forever and str(value).strip().lower() in ("inf", "+inf", "infinity", "+infinity"):
            return float("inf")
        number = super().convert(value, param, ctx)
        if number != number:  # NaN passes every comparison of FloatRange
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return number


def line_bytes(min: int) -> click.IntRange:
    """A length of a line mcptape builds, within [min, 256 MiB]."""
    return click.IntRange(min=min, max=MAX_LINE_BYTES)


class Renamed(click.Option):
    """An option whose old spellings (`old=`) still work but are not shown in `--help`: one name per
    meaning across commands (`--redact-pattern` everywhere), without breaking a script or a config."""

    def __init__(self, param_decls: list[str], old: tuple[str, ...] = (), **attrs: Any) -> None:
        names = [d for d in param_decls if d.startswith("-")]
        dest = [d for d in param_decls if not d.startswith("-")]
        super().__init__([*names, *old, *dest], **attrs)
        self.old = old

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = self.opts
        self.opts = [o for o in shown if o not in self.old]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown

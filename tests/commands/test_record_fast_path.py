"""The record fast path reads a command line exactly as click would, or leaves it to click."""

from __future__ import annotations

import click
import pytest

from mcptape.commands.record import record_command
from mcptape.recorder.options import RecordOptions, parse_fast

SPELLINGS = [
    ["-o=x", "--", "srv"],
    ["-ox", "--", "srv"],
    ["--output=x", "srv"],
    ["--output=", "srv"],
    ["-o", "--", "srv"],
    ["-o", "-q", "srv"],
    ["--stub", "--", "srv"],
    ["--stub=ssh", "--stub", "git", "srv"],
    ["-q", "-", "srv"],
    ["--", "--", "srv"],
    ["--shutdown-timeout", " 5", "srv"],
    ["--shutdown-timeout=1_0", "srv"],
    ["--shutdown-timeout=-0", "srv"],
    ["--shutdown-timeout", "-1", "srv"],
    ["--output", "a", "--output", "b", "srv"],
    ["--overwrite=yes", "srv"],
    ["-q=1", "srv"],
    ["--redact-key=a=b", "srv", "--quiet"],
]


def click_reading(args: list[str]) -> RecordOptions | None:
    try:
        p = record_command.make_context("record", list(args)).params
    except click.exceptions.ClickException:
        return None
    return RecordOptions(
        command=list(p["command"]),
        output=p["output"],
        overwrite=p["overwrite"],
        quiet=p["quiet"],
        shutdown_timeout=p["shutdown_timeout"],
        http_sink=p["http_sink"],
        stubs=list(p["stubs"]),
        redact=p["redact"],
        redact_keys=list(p["redact_keys"]),
        redact_patterns=list(p["redact_patterns"]),
    )


@pytest.mark.parametrize("args", SPELLINGS, ids=" ".join)
def test_fast_path_agrees_with_click_or_defers_to_it(args: list[str]) -> None:
    """Whatever the fast path accepts, click reads the same way (`-o=x` is the file `=x` to click)."""
    fast = parse_fast(args)
    if fast is not None:
        assert fast == click_reading(args)

"""Numbers: a finite value too large to use (`--timeout 1e300`), NaN or infinity is a usage error
naming the option (exit 2), and values taken from a server's schema are clamped to sane sizes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.errors import UsageError
from mcptape.probe.args import minimal_arguments
from mcptape.replay.api import replay
from tests.commands.tapes import assert_clean_run, run, session

TOO_BIG = ["1e300", "inf", "nan", "-1", "86401"]
DEEP: Any = 1
for _ in range(100):
    DEEP = [DEEP]


COMMANDS = [
    ["record", "--shutdown-timeout", "{}", "-o", "{tmp}/x.jsonl", "--", sys.executable, "-c", "pass"],
    ["replay", "{tape}", "--step-timeout", "{}", "--", sys.executable, "-c", "pass"],
    ["replay", "{tape}", "--shutdown-timeout", "{}", "--", sys.executable, "-c", "pass"],
    ["probe", "--timeout", "{}", "--", sys.executable, "-c", "pass"],
    ["probe", "--start-timeout", "{}", "--", sys.executable, "-c", "pass"],
    ["probe", "--idle", "{}", "--", sys.executable, "-c", "pass"],
]


@pytest.mark.parametrize(
    ("argv", "value"),
    [
        pytest.param(argv, value, id=f"{argv[0]} {next(a for a in argv if a.startswith('--'))}-{value}")
        for argv in COMMANDS
        for value in TOO_BIG
        # record --shutdown-timeout inf is a wait that never ends (tests/recorder/test_lifeline.py)
        if not (argv[0] == "record" and value == "inf")
    ],
)
def test_an_unusable_number_of_seconds_is_a_usage_error(tmp_path: Path, argv: list[str], value: str) -> None:
    """record, replay and probe refuse the value before starting anything: exit 2, one line."""
    tape = session(tmp_path / "t.jsonl", {})
    args = [a.format(value, tmp=tmp_path, tape=tape) if "{" in a else a for a in argv]
    result = run(*args)
    assert_clean_run(result, codes=[2])
    assert result.stderr.startswith("Error: Invalid value for '--") and result.stderr.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


def test_record_fast_path_leaves_an_unusable_timeout_to_the_full_parser() -> None:
    """record's builtins-only parser does not accept what click would refuse."""
    from mcptape.recorder.options import parse_fast

    for value in TOO_BIG:
        if value != "inf":  # a wait that never ends: accepted (tests/recorder/test_lifeline.py)
            assert parse_fast(["--shutdown-timeout", value, "--", "server"]) is None
    assert parse_fast(["--shutdown-timeout", "86400", "--", "server"]) is not None
    assert parse_fast(["--shutdown-timeout", "inf", "--", "server"]) is not None


def test_the_replay_api_bounds_its_timeouts(tmp_path: Path) -> None:
    """mcptape.replay(...) (the pytest plugin, settings files) refuses the same values."""
    tape = session(tmp_path / "t.jsonl", {})
    wrong: list[dict[str, float]] = [
        {"step_timeout": 1e300},
        {"shutdown_timeout": float("inf")},
        {"step_timeout": float("nan")},
    ]
    for kwargs in wrong:
        with pytest.raises(UsageError, match="out of range"):
            replay(tape, [sys.executable, "-c", "pass"], **kwargs)  # type: ignore[arg-type]


def test_probe_oversize_is_bounded() -> None:
    """--oversize builds a line in memory: more than 256 MiB is refused."""
    result = run("probe", "--oversize", str(10**12), "--", sys.executable, "-c", "pass")
    assert_clean_run(result, codes=[2])
    assert "--oversize" in result.stderr


@pytest.mark.parametrize(
    ("schema", "check"),
    [
        ({"type": "integer", "minimum": 1e20}, lambda v: v == 2**53),
        ({"type": "number", "exclusiveMinimum": 1.7e308}, lambda v: v == 2**53),
        ({"type": "integer", "maximum": -1e300}, lambda v: v == -(2**53)),
        ({"type": "string", "minLength": 10**15}, lambda v: len(v) == 1 << 16),
        ({"type": "array", "minItems": 10**12, "items": {"type": "string"}}, lambda v: v == []),
        ({"type": "string", "default": "x" * (1 << 17)}, lambda v: len(v) < 1 << 17),
        ({"const": DEEP}, lambda v: v == "mcptape-probe"),
    ],
    ids=[
        "min-1e20",
        "excl-min-huge",
        "max-neg-1e300",
        "minLength-1e15",
        "minItems-1e12",
        "big-default",
        "deep-const",
    ],
)
def test_schema_bounds_are_clamped(schema: dict[str, Any], check: Any) -> None:
    """A server's schema cannot make probe build a huge or unencodable argument."""
    arguments = minimal_arguments({"type": "object", "required": ["v"], "properties": {"v": schema}})
    value = arguments["v"]
    assert check(value), value if not isinstance(value, str) else len(value)
    assert len(orjson.dumps(arguments)) < 1 << 17

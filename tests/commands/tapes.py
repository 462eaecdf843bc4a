"""Hostile transcripts written line by line (the writer would refuse most of them), and the checks
every reading command's output must pass."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mcptape.cli import main
from mcptape.jsonsafe import dumps

HEADER: dict[str, Any] = {
    "mcptape": 1,
    "started": "2026-12-01T10:00:00.000000Z",
    "command": ["server"],
    "cwd": "/srv",
    "recorder": {"name": "mcptape", "version": "0.1.0"},
}
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
ALLOWED_RAW = frozenset("\n\t")  # what a reading command may print raw: its own line breaks and tabs


def line(t: float, ch: str, data: str) -> str:
    """One byte-channel event."""
    return json.dumps({"t": t, "ch": ch, "data": data}, ensure_ascii=False)


def record(**fields: Any) -> str:
    """Any record, as given."""
    return dumps(fields)


def message(**fields: Any) -> str:
    """A JSON-RPC message line (with its newline)."""
    return dumps({"jsonrpc": "2.0", **fields}) + "\n"


def write(path: Path, lines: Iterable[str], header: dict[str, Any] | None = None) -> Path:
    """A transcript of the given record lines (strings, written as they are) after a header."""
    head = dumps(HEADER if header is None else header)
    path.write_text("\n".join([head, *lines]) + "\n", encoding="utf-8", errors="surrogatepass")
    return path


def session(
    path: Path, result: Any, *, request: dict[str, Any] | None = None, extra: Iterable[str] = ()
) -> Path:
    """A small complete session: a tools/call request, its response carrying `result`, exit 0."""
    params = {"name": "echo", "arguments": {}} if request is None else request
    return write(
        path,
        [
            line(0.1, "in", message(id=1, method="tools/call", params=params)),
            line(0.2, "out", message(id=1, result=result)),
            *extra,
            record(t=0.3, ch="exit", code=0, signal=None),
        ],
    )


def unsafe_chars(text: str) -> list[str]:
    """The characters of `text` a terminal or a reader would be misled by (see textsafe)."""
    distinct = set(text)  # each character looked up once, not at each of its places in the text
    return sorted(
        c for c in distinct if c not in ALLOWED_RAW and unicodedata.category(c) in UNSAFE_CATEGORIES
    )


@dataclass(frozen=True)
class Result:
    """What one in-process run of the CLI did."""

    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    """`mcptape ARGS` in-process through the real entry point (errors become exit codes as there)."""
    runner = CliRunner()
    code = 0
    exception: BaseException | None = None
    with runner.isolation(env=env) as (out, err, _):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception as exc:
            exception = exc
            code = -1
        stdout = out.getvalue().decode("utf-8", "replace")
        stderr = err.getvalue().decode("utf-8", "replace")
    return Result(code, stdout, stderr, exception)


def assert_clean_run(result: Result, *, codes: Iterable[int] = (0, 1, 2)) -> None:
    """An expected exit code, no traceback, and nothing unsafe on stdout or stderr."""
    detail = f"exit {result.exit_code}\nstdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
    assert result.exception is None, f"{type(result.exception).__name__}: {result.exception}\n{detail}"
    assert result.exit_code in set(codes), detail
    assert "Traceback" not in result.stderr, detail
    assert unsafe_chars(result.stdout) == [], detail
    assert unsafe_chars(result.stderr) == [], detail

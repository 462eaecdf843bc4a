"""The one table of output formats, and the one way a command takes them.

A format is one row of `FORMATS` (mitmproxy's `addons/export.py` and harlequin's `export.py` are
the model): a name mapped to its writer (`"module:function"`, a pure function of what the row
accepts to bytes, imported only when it writes: a command's start pays for no XML or protobuf),
the suffix of its file, what it accepts and one line of help.

* A row that accepts a REPORT (what `check`, `replay`, `probe`, `probe --client` and `tools diff`
  found, as a `ci.report.Report`) is an option of every such command, added by `report_options`:
  `--NAME FILE` ("Also write ... to FILE"), or, for a row written to stdout, one more choice of
  `--format` (`github`). The command gets one `Outputs` value instead of those options.
* A row that accepts SESSIONS (transcripts, as `export.session.Session`) is a choice of
  `mcptape export --format` (`commands/export.py`).

A new format is one writer function and one row here (docs/architecture.md, "A new output
format"). Files are written whole or not at all (`share.outputs.write_file`), never over an input.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import click

from mcptape.errors import OutputError, UsageError

if TYPE_CHECKING:
    from mcptape.commands.ci.report import Report

REPORT = "report"  # a `ci.report.Report`: what a command found
SESSIONS = "sessions"  # a `list[export.session.Session]`: transcripts read through the check core
TEXT, JSON = "text", "json"  # what stdout gets by default, and as --json: the command's own


class Format(NamedTuple):
    """One output format: its writer, the suffix of its file, what it accepts, one line of help."""

    writer: str  # "module:function": a pure function of what the row accepts, to bytes
    suffix: str
    accepts: str  # REPORT or SESSIONS
    summary: str
    stdout: bool = False  # a REPORT row written to stdout (`--format NAME`), not to a file

    def write(self, value: Any) -> bytes:
        """The format's bytes for `value` (a `Report` or a list of sessions, as the row accepts)."""
        module, _, name = self.writer.partition(":")
        data: bytes = getattr(importlib.import_module(module), name)(value)
        return data


FORMATS: dict[str, Format] = {
    "junit": Format("mcptape.commands.ci.writers:junit", ".xml", REPORT, "JUnit XML"),
    "sarif": Format("mcptape.commands.ci.writers:sarif", ".sarif", REPORT, "SARIF 2.1.0"),
    "github": Format(
        "mcptape.commands.ci.writers:github", ".txt", REPORT, "GitHub workflow annotations", stdout=True
    ),
    "otlp": Format(
        "mcptape.export.otlp:sessions_json",
        ".otlp.json",
        SESSIONS,
        "OpenTelemetry traces (OTLP JSON; --endpoint sends protobuf)",
    ),
    "har": Format(
        "mcptape.export.har:har_bytes",
        ".har",
        SESSIONS,
        "HTTP Archive 1.2, for devtools and HAR viewers (stdio on pseudo URLs)",
    ),
    "html": Format(
        "mcptape.export.html:html_bytes", ".html", SESSIONS, "one self-contained HTML report (no script)"
    ),
}


def named(accepts: str, *, stdout: bool | None = None) -> list[str]:
    """The names of the rows that accept `accepts` (only those written to stdout, or to a file)."""
    return [
        name
        for name, row in FORMATS.items()
        if row.accepts == accepts and (stdout is None or row.stdout == stdout)
    ]


@dataclass(frozen=True)
class Outputs:
    """What a command that reports writes: stdout's `mode` (`text`, `json`, or a REPORT row written to
    stdout, e.g. `github`) and the files asked for (`{"junit": "out.xml"}`)."""

    mode: str = TEXT
    files: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def given(cls, as_json: bool, output_format: str, files: Mapping[str, str | None]) -> Outputs:
        """The options as given: `--json` is `--format json`, and refused beside a report on stdout."""
        if as_json and output_format not in (TEXT, JSON):
            raise UsageError(
                f"--json and --format {output_format} both choose what stdout gets", hint="keep one"
            )
        chosen = {name: path for name, path in files.items() if path}
        return cls(JSON if as_json else output_format, chosen)

    @property
    def json(self) -> bool:
        """stdout gets the command's JSON."""
        return self.mode == JSON

    @property
    def report_on_stdout(self) -> bool:
        """stdout gets a report format (`--format github`), not the command's text or JSON."""
        return self.mode not in (TEXT, JSON)

    @property
    def report(self) -> bool:
        """Some output needs the command's `Report` (a file, or a report format on stdout)."""
        return bool(self.files) or self.report_on_stdout

    def check(self, inputs: Iterable[str] = ()) -> None:
        """Refuse, before any work, a file that cannot be written (see `check_destinations`)."""
        check_destinations(self.files, inputs)

    def write(self, report: Report) -> None:
        """Write each file asked for, whole or not at all, then the report format stdout gets."""
        from mcptape.share.outputs import write_file

        for name, path in self.files.items():
            write_file(Path(path), FORMATS[name].write(report))
        if self.report_on_stdout:
            from mcptape.commands.output import write

            write(FORMATS[self.mode].write(report).decode("utf-8"))


def check_destinations(outputs: Mapping[str, str | None], inputs: Iterable[str] = ()) -> None:
    """Refuse, before any work, an output that cannot be written: a directory, a folder that does
    not exist, an input transcript under any name (`--sarif session.jsonl` would destroy it), two
    options naming one file. `outputs` maps an option's name (without `--`) to its path."""
    from mcptape.share.outputs import refuse_input

    given = [(option, path) for option, path in outputs.items() if path]
    for option, path in given:
        target = Path(path)
        if target.is_dir():
            raise OutputError(f"cannot write {path}: it is a directory", hint="name a file in it")
        parent = target.absolute().parent
        if not parent.is_dir():
            raise OutputError(
                f"cannot write {path}: directory {parent} does not exist",
                hint=f"create it, or choose another --{option}",
            )
        refuse_input([Path(p) for p in inputs], target, hint=f"choose another file for --{option}")
    seen: dict[str, str] = {}
    for option, path in given:
        first = seen.setdefault(os.path.abspath(path), option)
        if first != option:
            raise OutputError(f"--{first} and --{option} name the same file", hint="give each its own file")


Command = TypeVar("Command", bound=Callable[..., Any])


def report_options(
    *, json_help: str, format_help: str, each: Mapping[str, str]
) -> Callable[[Command], Command]:
    """`--json`, `--format text|json|<REPORT rows for stdout>` and `--NAME FILE` for each REPORT row
    written to a file; the command is called with one `outputs: Outputs` instead of them. `each`
    says per row what the file holds for this command (`{"junit": "a test case per finding"}`)."""

    def decorate(command: Command) -> Command:
        @functools.wraps(command)
        def wrapper(*args: Any, as_json: bool, output_format: str, **kwargs: Any) -> Any:
            files = {name: kwargs.pop(f"{name}_file") for name in named(REPORT, stdout=False)}
            return command(*args, outputs=Outputs.given(as_json, output_format, files), **kwargs)

        options = [
            click.option("--json", "as_json", is_flag=True, help=json_help),
            click.option(
                "--format",
                "output_format",
                type=click.Choice([TEXT, JSON, *named(REPORT, stdout=True)]),
                default=TEXT,
                show_default=True,
                help=format_help,
            ),
            *(
                click.option(f"--{name}", f"{name}_file", metavar="FILE", help=_file_help(name, each))
                for name in named(REPORT, stdout=False)
            ),
        ]
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper  # type: ignore[return-value]

    return decorate


def _file_help(name: str, each: Mapping[str, str]) -> str:
    what = f" ({each[name]})" if name in each else ""
    return f"Also write {FORMATS[name].summary} to FILE{what}."

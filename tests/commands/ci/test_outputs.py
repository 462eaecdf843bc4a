"""The one table of output formats: every row names a writer that exists, every command that
reports takes every report format through the one decorator, and a new row is a new option."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mcptape.commands.check import check_command
from mcptape.commands.ci.report import Report, Result, Where
from mcptape.commands.export import export_command
from mcptape.commands.outputs import FORMATS, REPORT, SESSIONS, Format, Outputs, named, report_options
from mcptape.commands.probe import probe_command
from mcptape.commands.replay import replay_command
from mcptape.commands.tools import diff_command
from mcptape.errors import OutputError, UsageError

REPORTING = [check_command, replay_command, probe_command, diff_command]


def test_every_row_names_a_writer_that_exists() -> None:
    """A row's "module:function" imports, and the function is what the row accepts to bytes."""
    for name, row in FORMATS.items():
        module, _, function = row.writer.partition(":")
        assert callable(getattr(__import__(module, fromlist=[function]), function)), name
        assert row.accepts in (REPORT, SESSIONS) and row.suffix.startswith("."), name


@pytest.mark.parametrize("command", REPORTING, ids=lambda c: c.name)
def test_every_reporting_command_takes_every_report_format(command: click.Command) -> None:
    """check, replay, probe and tools diff each have --NAME FILE for a file row and --format NAME for
    a stdout row, read from the table."""
    options = {opt: param for param in command.params for opt in param.opts}
    for name in named(REPORT, stdout=False):
        assert f"--{name}" in options, name
    choices = options["--format"].type
    assert isinstance(choices, click.Choice)
    assert list(choices.choices) == ["text", "json", *named(REPORT, stdout=True)]


def test_export_offers_the_rows_that_accept_sessions() -> None:
    """`mcptape export --format` is the rows of SESSIONS, in the table's order."""
    [option] = [p for p in export_command.params if "--format" in p.opts]
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == named(SESSIONS) == ["otlp", "har", "html"]


@pytest.mark.parametrize("command", REPORTING, ids=lambda c: c.name)
def test_json_beside_a_report_on_stdout_is_one_usage_error(command: click.Command) -> None:
    """`--json --format github` is refused the same way by every command, before any work."""
    args = {"diff": ["a.json", "b.json"], "probe": ["--", "srv"]}.get(command.name or "", ["t.jsonl"])
    refused = CliRunner().invoke(command, ["--json", "--format", "github", *args]).exception
    assert isinstance(refused, UsageError) and refused.exit_code == 2
    assert str(refused).startswith("--json and --format github both choose what stdout gets")


def test_two_options_naming_one_file_are_refused(tmp_path: Path) -> None:
    """--junit and --sarif on one path: one Error line naming both options, nothing run."""
    same = str(tmp_path / "out")
    refused = CliRunner().invoke(check_command, ["missing.jsonl", "--junit", same, "--sarif", same]).exception
    assert isinstance(refused, OutputError) and refused.exit_code == 2
    assert str(refused).startswith("--junit and --sarif name the same file")


def _lines(report: Report) -> bytes:
    return "".join(f"{r.rule} {r.where.line if r.where else ''}\n" for r in report.results).encode()


def test_a_new_row_is_an_option_of_every_report_command_and_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recipe of docs/architecture.md: one writer function and one row give `--NAME FILE` to a
    command built with `report_options`, and `Outputs.write` writes the file."""
    monkeypatch.setitem(FORMATS, "lines", Format(f"{__name__}:_lines", ".txt", REPORT, "rule lines"))
    seen: list[Outputs] = []

    @click.command()
    @report_options(json_help="json", format_help="stdout", each={"lines": "a line per result"})
    def command(outputs: Outputs) -> None:
        seen.append(outputs)
        outputs.check()
        outputs.write(Report("demo", results=[Result("r", "error", "t", "m", Where("f.jsonl", 3))]))

    shown = CliRunner().invoke(command, ["--help"]).output
    assert "Also write rule lines to FILE (a line per" in shown
    result = CliRunner().invoke(command, ["--lines", str(tmp_path / "out.txt")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out.txt").read_text() == "r 3\n"
    assert seen[0].files == {"lines": str(tmp_path / "out.txt")} and seen[0].mode == "text"

"""The click command line: a thin shell over the packages. Each command lives in the command layer
(`mcptape.commands`) and is imported only when it runs, so `mcptape record` never pays for textual
or the analysis code."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from mcptape.version import __version__

# command name -> "module:attribute" of its click command
COMMANDS: dict[str, str] = {
    "record": "mcptape.commands.record:record_command",
    "check": "mcptape.commands.check:check_command",
    "replay": "mcptape.commands.replay:replay_command",
    "diff": "mcptape.commands.diff:diff_command",
    "view": "mcptape.commands.view:view_command",
    "probe": "mcptape.commands.probe:probe_command",
    "redact": "mcptape.commands.share:redact_command",
    "report": "mcptape.commands.share:report_command",
    "demo": "mcptape.commands.demo:demo_command",
    "serve": "mcptape.commands.serve:serve_command",
    "tools": "mcptape.commands.tools:tools_command",
    "wrap": "mcptape.commands.wrap:wrap_command",
    "unwrap": "mcptape.commands.wrap:unwrap_command",
    "export": "mcptape.commands.export:export_command",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, target in COMMANDS.items() if _available(target)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None or not _available(target):
            return super().get_command(ctx, cmd_name)  # commands added with add_command
        module_name, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command


def _available(target: str) -> bool:
    return importlib.util.find_spec(target.partition(":")[0]) is not None


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="""\b
Examples:
  mcptape record -o session.jsonl -- python -m my_server   # in an MCP client's config
  mcptape check session.jsonl                               # what broke, and where
  mcptape view session.jsonl                                # inspect it in the terminal
  mcptape demo                                              # all of it on a bundled server

Exit codes: 0 clean/same, 1 findings or differences, 2 usage error or unreadable input,
130 interrupted, 141 stdout closed early (e.g. piped into head).""",
)
@click.version_option(__version__, prog_name="mcptape")
def cli() -> None:
    """Record, check, replay, serve and inspect the raw traffic of MCP sessions, stdio or HTTP."""


def main(args: list[str] | None = None, prog_name: str = "mcptape", **extra: Any) -> None:
    """Run the CLI; an `MCPTapeError` becomes one `Error:` line on stderr and its exit code."""
    from mcptape.errors import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_INTERRUPTED, MCPTapeError

    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:  # Python found the fd closed at start-up (`>&-`, `2>&-`)
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - what is written there is dropped
    stdout = sys.stdout
    try:
        returned = cli.main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
    except SystemExit:
        # Click met EPIPE on stdout (the reader closed the pipe): it wrapped stdout to silence
        # the last flush and exits 1, which would read as "findings". Say 141, like a SIGPIPE death.
        if sys.stdout is not stdout:
            raise SystemExit(EXIT_BROKEN_PIPE) from None
        raise
    except MCPTapeError as exc:
        _exit_with(exc.show, exc.exit_code)
    except click.exceptions.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except click.exceptions.NoArgsIsHelpError as exc:
        _exit_with(exc.format_message(), exc.exit_code)  # a bare `mcptape`: the help, as click shows it
    except click.UsageError as exc:
        # One line, like every other mcptape error; the usage is one --help away.
        command = exc.ctx.command_path if exc.ctx is not None else prog_name
        _exit_with(f"Error: {exc.format_message()} (see '{command} --help')", exc.exit_code)
    except click.ClickException as exc:
        _exit_with(f"Error: {exc.format_message()}", exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _exit_with("Error: interrupted (what was already written is kept)", EXIT_INTERRUPTED)
    except OSError as exc:
        # An I/O failure no command turned into an MCPTapeError (e.g. --help into a full disk):
        # still one line and exit 2, never a traceback. (A closed pipe never gets here: click
        # exits on EPIPE, handled above.)
        where = f"{exc.filename}: " if exc.filename else ""
        _exit_with(f"Error: {where}{exc.strerror or exc}", EXIT_ERROR)
    if isinstance(returned, int) and returned:
        raise SystemExit(returned)  # a command's ctx.exit(n): click returns n when not standalone


def _exit_with(message: str | Callable[[], None], code: int) -> NoReturn:
    """Show `message` on stderr (or call it), then exit with `code`. Showing is best-effort: a
    stderr that cannot be written (a full disk) loses the line, never the exit code."""
    try:
        if callable(message):
            message()
        else:
            from mcptape.textsafe import escape_controls

            # the message may quote what the user typed; the help text keeps its newlines
            click.echo("\n".join(escape_controls(line) for line in message.split("\n")), err=True)
    except OSError:
        pass
    raise SystemExit(code) from None

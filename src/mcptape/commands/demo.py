"""`mcptape demo`: the README's main job on the bundled server, start to finish."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mcptape.commands.options import Renamed
from mcptape.demo.client import run_session


@click.command(
    "demo",
    epilog="""\b
Examples:
  mcptape demo                       # then browse the buggy session in the viewer (q quits)
  mcptape demo --no-view -o /tmp/d   # text only, transcripts in /tmp/d

Exit codes: 0 when the demo ran (its findings are the point), 2 when it could not.""",
)
@click.option(
    "-o",
    "--output",
    "output_dir",
    cls=Renamed,
    old=("--output-dir",),  # every other command says --output
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-transcripts"),
    show_default=True,
    help="Where to write the demo's transcripts.",
)
@click.option(
    "--no-view", is_flag=True, help="Do not open the viewer at the end (implied when not on a terminal)."
)
def demo_command(output_dir: Path, no_view: bool) -> None:
    """Record, check and inspect two sessions with the bundled demo server.

    Runs the official MCP SDK client against the bundled server through `mcptape record`, once
    against a clean build and once against a buggy build (noise on stdout, an action taken before
    its authorisation check), checks both, replays the clean session against a changed build,
    and opens the viewer on the buggy one.
    """
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from mcptape.errors import OutputError

        raise OutputError(
            f"cannot create {output_dir}: {exc.strerror or exc}", hint="choose another -o DIR"
        ) from None
    tapes = {}
    for name, buggy in (("clean", False), ("buggy", True)):
        path = output_dir / f"demo-{name}.jsonl"
        click.echo(f"== recording the {name} build through mcptape record -> {path}")
        for line in run_session(path, buggy):
            click.echo(f"   client saw: {line}")
        tapes[name] = path
    from mcptape.check.analyze import analyze_file
    from mcptape.check.report import render_text

    click.echo("")
    for name in ("clean", "buggy"):
        header, analysis = analyze_file(str(tapes[name]))
        click.echo(f"== mcptape check {tapes[name]}")
        if analysis.clean:
            click.echo("   clean: every stdout byte is protocol, nothing executed after a reject")
        else:
            click.echo(render_text(analysis, header, str(tapes[name])))
    from mcptape.demo.client import server_command
    from mcptape.replay.api import replay

    replayed = output_dir / "demo-replay.jsonl"
    click.echo(f"== mcptape replay {tapes['clean']} -- <a new build whose deploy message changed>")
    result = replay(  # the demo's own server, whose "deploy" only reaches the executor tap: no data
        tapes["clean"],
        server_command(changed=True),
        output=replayed,
        config=False,
        overwrite=True,
        allow_mutating=True,
    )
    click.echo(result.render(), nl=False)
    click.echo("")
    click.echo(f"Transcripts: {tapes['clean']}, {tapes['buggy']} and the replay {replayed}")
    if no_view or not (sys.stdin.isatty() and sys.stdout.isatty()):
        click.echo(f"Next: mcptape view {tapes['buggy']}")
        return
    click.echo(f"== mcptape view {tapes['buggy']}   (q quits)")
    from mcptape.commands.view import view_command

    click.get_current_context().invoke(
        view_command, transcript=tapes["buggy"], other=None, follow=False, keymap=None
    )

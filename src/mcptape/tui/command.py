"""`mcptape view FILE [OTHER]`: open the viewer (bad input fails before the app starts)."""

from __future__ import annotations

from pathlib import Path

import click

from mcptape.errors import UsageError


@click.command("view")
@click.argument("transcript", type=click.Path(dir_okay=True, path_type=Path))
@click.argument("other", required=False, type=click.Path(dir_okay=True, path_type=Path))
@click.option("--follow", "-f", is_flag=True, help="Keep reading a transcript that is still being written.")
@click.option(
    "--keymap",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TOML file rebinding keys by binding id (default: $XDG_CONFIG_HOME/mcptape/keymap.toml).",
)
def view_command(transcript: Path, other: Path | None, follow: bool, keymap: Path | None) -> None:
    """Inspect a transcript in the terminal: lands on the first non-protocol line.

    \b
    Keys: ] / [ next / previous finding, / search raw bytes, p request<->response,
    c channel filter, m method filter, f findings filter, e stderr pane, x hex, ? help, q quit.
    An unreadable, empty or foreign file exits 2 with one Error: line before the viewer starts.
    """
    from mcptape.transcript.index import TranscriptIndex

    if other is not None:
        raise UsageError(
            "the diff viewer (mcptape view OLD NEW) is not available in this build",
            hint="compare two sessions with: mcptape diff OLD NEW",
        )
    index = TranscriptIndex(transcript)  # validates the header: one clear error, exit 2, no textual yet
    try:
        from mcptape.tui.app import ViewerApp
        from mcptape.tui.bindings import load_keymap

        keys = load_keymap(keymap)
        app = ViewerApp(index, follow=follow)
        if keys:
            app.set_keymap(keys)
        app.run()
    finally:
        index.close()

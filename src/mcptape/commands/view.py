"""`mcptape view FILE [OTHER]`: open the viewer, or the diff viewer with two transcripts.

Bad input (missing, empty, foreign, header-truncated, future-version files, a bad keymap) fails
with one `Error:` line and exit 2 before the app starts; so does a stdin or stderr that is not a
terminal (the app would wait for keys that never come, drawing escape sequences into a file).
`view_file` and `view_diff` are what other commands call (`mcptape demo`, `mcptape replay --view`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from mcptape.diff.sessions import Diff


def view_file(
    path: Path, *, follow: bool = False, keymap: Path | None = None, folder: Path | None = None
) -> None:
    """Open the viewer on one transcript (blocks until the user quits). With `folder` (`view
    --follow DIR/`), a newer session appearing there replaces the one shown."""
    from mcptape.transcript.index import TranscriptIndex

    newer = _new_sessions(folder) if folder is not None else None
    while True:
        index = TranscriptIndex(path)  # validates the header: one clear error, exit 2, no textual yet
        try:
            from mcptape.tui.app import ViewerApp
            from mcptape.tui.bindings import load_keymap

            keys = load_keymap(keymap)
            _require_terminal(f"mcptape check {path}")
            app = ViewerApp(index, follow=follow, newer=newer)
            if keys:
                app.set_keymap(keys)
            app.run()
        finally:
            index.close()
        if app.switch_to is None:
            return
        path = app.switch_to


def _new_sessions(folder: Path) -> Callable[[], Path | None]:
    """A function giving the newest `*.jsonl` that appeared in `folder` since it was last asked
    (None: none), so two recordings written side by side do not take the viewer back and forth."""
    known = set(_transcripts(folder))

    def newer() -> Path | None:
        now = _transcripts(folder)
        fresh = [p for p in now if p not in known]
        known.update(now)
        if not fresh:
            return None
        return max(fresh, key=lambda p: (_mtime(p), p.name))

    return newer


def _transcripts(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.glob("*.jsonl") if p.is_file()]
    except OSError:
        return []


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def view_diff(
    diff: Diff,
    old_name: str,
    new_name: str,
    *,
    keys: dict[str, str] | None = None,
    paths: tuple[Path, Path] | None = None,
) -> None:
    """Open the diff viewer on a diff replay computed (blocks until the user quits).

    `paths`: the two transcripts; two HTTP ones are listed by exchange (status, headers, session).

    `keys` is a keymap (`bindings.load_keymap`); without one the user's default keymap file applies
    (a broken one is a note on stderr).
    Off a terminal it says so on stderr and returns: the caller's report and exit code stand.
    """
    if not on_terminal():
        sys.stderr.write("note: the diff viewer needs a terminal (stdin and stderr); not opened\n")
        return
    from mcptape.tui.bindings import load_keymap
    from mcptape.tui.diff_app import DiffApp

    if keys is None:  # replay --view: a broken keymap file must not change replay's exit code
        from mcptape.errors import MCPTapeError

        try:
            keys = load_keymap(None)
        except MCPTapeError as exc:
            sys.stderr.write(f"note: {exc}; the diff viewer uses its default keys\n")
            keys = {}
    app = DiffApp(diff, old_name, new_name, paths=paths)
    if keys:
        app.set_keymap(keys)
    app.run()


def newest_in(folder: Path) -> Path:
    """The most recently modified `*.jsonl` directly in `folder` (where `record -o DIR/` or
    $MCPTAPE_DIR put one file per session): `view --follow ~/tapes/` follows the live one."""
    from mcptape.errors import UsageError

    candidates = [p for p in folder.glob("*.jsonl") if p.is_file()]
    if not candidates:
        raise UsageError(
            f"no *.jsonl transcript in directory {folder}", hint="record one with mcptape record -o DIR/"
        )
    return max(candidates, key=lambda p: (p.stat().st_mtime_ns, p.name))


def on_terminal() -> bool:
    """Whether the viewer can run: keys come from stdin, Textual draws the screen on stderr."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _require_terminal(instead: str) -> None:
    if not on_terminal():
        from mcptape.errors import UsageError

        raise UsageError(
            "mcptape view needs a terminal: stdin and stderr must be a tty",
            hint=f"for a text report: {instead}",
        )


@click.command(
    "view",
    epilog="""\b
Examples:
  mcptape view session.jsonl                  # opens on the worst finding (errors first)
  mcptape view --follow session.jsonl         # a recording still in progress
  mcptape view --follow ~/tapes/              # the newest session of a folder, and each newer one
  mcptape view old.jsonl new.jsonl            # the diff viewer

Exit codes: 0 after q; 2 for an unreadable transcript, a bad keymap, or no terminal.""",
)
@click.argument("transcript", type=click.Path(path_type=Path))
@click.argument("other", required=False, type=click.Path(path_type=Path))
@click.option("--follow", "-f", is_flag=True, help="Keep reading a transcript that is still being written.")
@click.option(
    "--keymap",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="TOML file rebinding keys by binding id (default: $XDG_CONFIG_HOME/mcptape/keymap.toml).",
)
@click.option(
    "--ignore", multiple=True, metavar="RULE", help="With OLD NEW: an ignore rule, as for mcptape diff."
)
@click.option(
    "--no-config", is_flag=True, help="With OLD NEW: do not read [tool.mcptape] from pyproject.toml."
)
def view_command(
    transcript: Path,
    other: Path | None,
    follow: bool,
    keymap: Path | None,
    ignore: tuple[str, ...],
    no_config: bool,
) -> None:
    """Inspect a transcript in the terminal; it opens on the worst finding (errors first).

    With two transcripts (OLD NEW), show them side by side, aligned by request id, on the first
    differing pair.

    \b
    Keys: ] / [ next / previous finding, / search raw bytes, n / N next / previous match,
    p request<->response, c channel filter, m method filter, t tool filter, f findings filter,
    e stderr pane, x hex, d detail pane, ? every key and its binding id, q quit.
    An unreadable, empty or foreign file exits 2 with one Error: line before the viewer starts.
    """
    if other is None:
        if transcript.is_dir():
            folder = transcript if follow else None  # --follow DIR/: the newest session, as new ones come
            view_file(newest_in(transcript), follow=follow, keymap=keymap, folder=folder)
            return
        view_file(transcript, follow=follow, keymap=keymap)
        return
    from mcptape.errors import UsageError

    if follow:
        raise UsageError("--follow works with one transcript, not with OLD NEW")
    from mcptape.replay.api import diff_files
    from mcptape.tui.bindings import load_keymap

    diff = diff_files(transcript, other, ignore=ignore, config=not no_config)
    keys = load_keymap(keymap)
    _require_terminal(f"mcptape diff {transcript} {other}")
    view_diff(diff, transcript.name, other.name, keys=keys, paths=(transcript, other))

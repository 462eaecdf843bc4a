"""`mcptape wrap` / `mcptape unwrap`: put `mcptape record` in front of the servers of an MCP client's
config, and take it out again exactly.

The decisions are pure (`mcptape.clientconfig`); this module finds the file, shows the change as a
unified diff, writes a backup next to the file, writes the new text (a temporary file renamed over
it, its mode kept) and keeps the wrap records (the original bytes of each entry) under
`$XDG_STATE_HOME/mcptape/wrap/`, so `unwrap` restores them byte for byte.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from mcptape.clientconfig import clients, records
from mcptape.clientconfig.plan import Outcome
from mcptape.clientconfig.transform import ConfigError, Wrapped
from mcptape.errors import OutputError, UsageError
from mcptape.textsafe import escape_controls

BACKUP_SUFFIX = ".mcptape-backup"


def _place() -> clients.Place:
    return clients.Place(Path.cwd(), Path.home(), sys.platform, os.environ)


def find_config(client: str | None, targets: tuple[str, ...]) -> tuple[Path, str | None, tuple[str, ...]]:
    """The config file, its client's name (None: unknown) and the server names, from the command
    line: `--client NAME [SERVER...]`, `FILE [SERVER...]`, or `[SERVER...]` (the one client config
    found from here)."""
    place = _place()
    if client is not None:
        found = clients.find(client, place, lambda p: Path(p).is_file())
        if found is None:
            where = ", ".join(str(p) for p in clients.candidates(client, place)[:3])
            raise UsageError(
                f"no {clients.CLIENTS[client].label} config found (looked at {where})",
                hint="give the file's path instead",
            )
        return Path(found), client, targets
    if targets and _looks_like_file(targets[0]):
        path = Path(targets[0]).expanduser()
        if not path.is_file():
            raise UsageError(f"no such config file: {path}", hint="give an existing file or --client NAME")
        return path, clients.guess_client(path), targets[1:]
    found_all = [
        (name, Path(found))
        for name in clients.CLIENTS
        if (found := clients.find(name, place, lambda p: Path(p).is_file())) is not None
    ]
    if not found_all:
        raise UsageError(
            "no MCP client config found here or in your home directory",
            hint="give its path, or --client " + "|".join(clients.CLIENTS),
        )
    if len(found_all) > 1:
        listed = ", ".join(f"{name} ({path})" for name, path in found_all)
        raise UsageError(
            f"several client configs found: {listed}", hint="choose one with --client NAME or its path"
        )
    name, path = found_all[0]
    return path, name, targets


def _looks_like_file(target: str) -> bool:
    return target.endswith((".json", ".jsonc")) or os.sep in target or "/" in target or Path(target).is_file()


def launcher(explicit: str | None) -> list[str]:
    """mcptape's own command line for a client to run: the full path of this `mcptape` script
    (clients start servers with a small PATH), else `python -m mcptape` with this interpreter."""
    if explicit:
        return [os.path.abspath(os.path.expanduser(explicit))]
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name in ("mcptape", "mcptape.exe") and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    found = shutil.which("mcptape")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "mcptape"]


def records_path(config: Path) -> Path:
    """Where the wrap records of `config` are kept (one small JSON file per config file)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    digest = hashlib.sha256(str(config.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(base) / "mcptape" / "wrap" / f"{digest}.json"


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text", hint="nothing was changed") from None


def _load_records(path: Path) -> dict[str, Wrapped]:
    where = records_path(path)
    if not where.exists():
        return {}
    try:
        return records.load(where.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{where}: the wrap records file is not UTF-8", hint="nothing was changed") from None
    except (OSError, ConfigError) as exc:
        raise UsageError(f"{where}: {exc}", hint="nothing was changed") from None


def _write_atomic(path: Path, text: str, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # only the records' folder can be missing
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}", hint="nothing was changed") from None


def show_diff(path: Path, old: str, new: str, label: str) -> None:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), f"{path} ({label})"
    )
    for line in lines:
        click.echo(escape_controls(line.rstrip("\r\n")))


def apply(
    path: Path, old: str, outcome: Outcome, kept: dict[str, Wrapped], *, dry_run: bool, verb: str
) -> None:
    """Show the diff and the per-entry lines; unless `dry_run`, write the backup, the file and
    the records `kept` (the records file goes away when none is left)."""
    if outcome.text != old:
        show_diff(path, old, outcome.text, verb)
    for line in outcome.lines:
        click.echo(escape_controls(f"mcptape {verb}: {line}"))  # names and urls from the config
    if outcome.text == old and not outcome.changed:
        click.echo(escape_controls(f"mcptape {verb}: {path} unchanged"))
        return
    if dry_run:
        click.echo(f"mcptape {verb}: dry run: nothing written")
        return
    mode = path.stat().st_mode & 0o7777
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if outcome.text != old:
        _write_atomic(backup, old, mode)
        _write_atomic(path.resolve(), outcome.text, mode)  # a symlinked config (dotfiles) stays a link
        click.echo(escape_controls(f"mcptape {verb}: wrote {path} (the previous version is in {backup})"))
    where = records_path(path)
    if kept:
        _write_atomic(where, records.dump(str(path.resolve()), kept), 0o600)
    else:
        where.unlink(missing_ok=True)


_EPILOG_WRAP = """\b
Clients: claude-desktop, claude-code (.mcp.json), vscode (.vscode/mcp.json), cursor (.cursor/mcp.json).

\b
Examples:
  mcptape wrap --client claude-desktop -o ~/tapes/        # every stdio server of Claude Desktop
  mcptape wrap .vscode/mcp.json time --dry-run            # show the change to one server only
  mcptape wrap --client claude-code remote --listen 127.0.0.1:8765   # an HTTP server, via a proxy
  mcptape unwrap --client claude-desktop                  # put back every wrapped entry exactly

Restart the client (or reload its servers) after wrapping."""


@click.command("wrap", epilog=_EPILOG_WRAP)
@click.argument("targets", nargs=-1, metavar="[FILE] [SERVER]...")
@click.option("--client", type=click.Choice(list(clients.CLIENTS)), help="Find this client's config file.")
@click.option(
    "-o",
    "--output",
    "output",
    metavar="DIR/",
    help="Where the recordings go, one file per session (default: $MCPTAPE_DIR, else ~/mcptape-tapes/).",
)
@click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")
@click.option(
    "--listen",
    metavar="HOST:PORT",
    help="For one HTTP server: point its url at a `mcptape record --http-upstream` proxy on HOST:PORT.",
)
@click.option(
    "--mcptape",
    "mcptape_path",
    metavar="PATH",
    help="The mcptape command the client runs (default: this one).",
)
def wrap_command(
    targets: tuple[str, ...],
    client: str | None,
    output: str | None,
    dry_run: bool,
    listen: str | None,
    mcptape_path: str | None,
) -> None:
    """Record an MCP client's servers: put `mcptape record -o DIR/ --` in front of each chosen
    server's command in the client's config (all its stdio servers when none is named).

    The server's env and everything else in the file are kept byte for byte (JSONC comments too);
    the change is shown as a diff, a backup is written next to the file, and `mcptape unwrap`
    restores the original entries exactly.
    """
    from mcptape.clientconfig import plan

    path, client_name, names = find_config(client, targets)
    out_dir = os.path.abspath(
        os.path.expanduser(output or os.environ.get("MCPTAPE_DIR") or "~/mcptape-tapes")
    )
    out_dir = out_dir.rstrip(os.sep) + os.sep
    if listen is not None and (":" not in listen or not listen.rpartition(":")[2].isdigit()):
        raise UsageError(f"--listen {listen}: not HOST:PORT", hint="e.g. --listen 127.0.0.1:8765")
    old = _read_text(path)
    key = clients.CLIENTS[client_name].key if client_name else None
    try:
        outcome = plan.wrap(
            old, client_key=key, names=names, launcher=launcher(mcptape_path), out_dir=out_dir, listen=listen
        )
    except ConfigError as exc:
        raise UsageError(f"{path}: {exc}", hint="nothing was changed") from None
    kept = {**_load_records(path), **outcome.changed}
    apply(path, old, outcome, kept, dry_run=dry_run, verb="wrap")
    for proxy in outcome.proxies:
        import shlex

        click.echo(escape_controls(f"mcptape wrap: before starting the client, run: {shlex.join(proxy)}"))


@click.command(
    "unwrap",
    epilog="""\b
Examples:
  mcptape unwrap --client claude-desktop     # every entry wrap changed, back as it was
  mcptape unwrap .mcp.json time --dry-run    # show what unwrapping one server would change""",
)
@click.argument("targets", nargs=-1, metavar="[FILE] [SERVER]...")
@click.option("--client", type=click.Choice(list(clients.CLIENTS)), help="Find this client's config file.")
@click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")
def unwrap_command(targets: tuple[str, ...], client: str | None, dry_run: bool) -> None:
    """Undo `mcptape wrap`: put back each wrapped entry's original bytes (all when none is named).

    An entry edited since it was wrapped keeps those edits; only what wrap inserted is taken out.
    """
    from mcptape.clientconfig import plan

    path, client_name, names = find_config(client, targets)
    old = _read_text(path)
    known = _load_records(path)
    if not known and not names:
        raise UsageError(f"{path}: mcptape wrap has no record of changing this file", hint="nothing to undo")
    key = clients.CLIENTS[client_name].key if client_name else None
    try:
        outcome = plan.unwrap(old, client_key=key, names=names, records=known)
    except ConfigError as exc:
        raise UsageError(f"{path}: {exc}", hint="nothing was changed") from None
    kept = {name: record for name, record in known.items() if name not in outcome.changed}
    apply(path, old, outcome, kept, dry_run=dry_run, verb="unwrap")

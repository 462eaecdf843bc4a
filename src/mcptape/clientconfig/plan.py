"""What `wrap` and `unwrap` do to one config's text: pure, from old text to new text and records.

The command layer (`mcptape.commands.wrap`) finds the file, reads it, shows the diff, writes the
backup, the new text and the records; everything it decides is decided here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mcptape.clientconfig import jsonc
from mcptape.clientconfig.transform import (
    ConfigError,
    Edit,
    Entry,
    Wrapped,
    entries,
    http_proxy_url,
    is_wrapped,
    server_table,
    table_key,
    unwrap_edits,
    wrap_http,
    wrap_stdio,
)


@dataclass
class Outcome:
    """The new text, the records of entries now wrapped (or unwrapped), and a line per entry."""

    text: str
    changed: dict[str, Wrapped] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    proxies: list[list[str]] = field(default_factory=list)


def read(text: str) -> jsonc.Document:
    """Parse a config, JSON or JSONC; a text that is neither is a `ConfigError` saying where."""
    try:
        return jsonc.parse(text)
    except jsonc.JSONCError as exc:
        raise ConfigError(f"not JSON (nor JSON with comments): {exc}") from None


def _chosen(found: list[Entry], names: Sequence[str], key: str) -> list[Entry]:
    if not names:
        return found
    by_name = {entry.name: entry for entry in found}
    missing = [name for name in names if name not in by_name]
    if missing:
        known = ", ".join(by_name) or "none"
        raise ConfigError(f'no server named {", ".join(missing)} under "{key}" (servers: {known})')
    return [by_name[name] for name in dict.fromkeys(names)]


def wrap(
    text: str,
    *,
    client_key: str | None,
    names: Sequence[str],
    launcher: list[str],
    out_dir: str,
    listen: str | None = None,
) -> Outcome:
    """Wrap the chosen servers (all when `names` is empty) of the config `text`.

    A stdio server runs through `LAUNCHER record -o OUT_DIR --`; an HTTP server's url points at
    `listen`, where the user runs the `mcptape record --http-upstream` proxy the outcome names.
    Servers named explicitly that cannot be wrapped are errors; others are skipped with a line.
    """
    doc = read(text)
    key = table_key(doc, client_key)
    table = server_table(doc, key)
    chosen = _chosen(entries(doc, table), names, key)
    explicit = bool(names)
    http = [e for e in chosen if e.kind == "http" and not is_wrapped(e, text)]
    if listen is not None and len(http) > 1:
        raise ConfigError(
            f"--listen serves one HTTP server, and {len(http)} are chosen ({', '.join(e.name for e in http)})"
        )
    record_args = ["-o", out_dir]
    edits: list[Edit] = []
    outcome = Outcome(text)
    wrapped_now: list[Entry] = []
    for entry in chosen:
        reason = _cannot_wrap(entry, text, listen)
        if reason is not None:
            if explicit and entry.kind != "stdio":
                raise ConfigError(f'server "{entry.name}": {reason}')
            outcome.lines.append(f"{entry.name}: not wrapped: {reason}")
            continue
        edits.extend(_wrap_one(doc, entry, outcome, launcher, out_dir, listen))
        wrapped_now.append(entry)
    if wrapped_now:
        outcome.text = jsonc.splice(text, edits)
        _say_what_changed(outcome, doc, key, wrapped_now, launcher, record_args)
    return outcome


def _wrap_one(
    doc: jsonc.Document, entry: Entry, outcome: Outcome, launcher: list[str], out_dir: str, listen: str | None
) -> list[Edit]:
    """The edits that wrap one server; its line (and, for HTTP, the proxy to run) go to `outcome`."""
    if entry.kind == "stdio":
        outcome.lines.append(f"{entry.name}: wrapped (stdio): recording to {out_dir}")
        return wrap_stdio(doc, entry, launcher, ["-o", out_dir])
    assert listen is not None
    url = entry.node.get("url") or entry.node.get("serverUrl")
    assert url is not None
    proxy = [*launcher, "record", "--http-upstream", url.scalar, "--listen", listen, "-o", out_dir]
    outcome.proxies.append(proxy)
    new_url = http_proxy_url(url.scalar, listen)
    outcome.lines.append(f"{entry.name}: wrapped (HTTP): the client now connects to {new_url}")
    return wrap_http(entry, listen)


def _say_what_changed(
    outcome: Outcome,
    doc: jsonc.Document,
    key: str,
    wrapped_now: list[Entry],
    launcher: list[str],
    record_args: list[str],
) -> None:
    """Each wrapped entry's record (old and new text, for `unwrap` and the diff shown)."""
    new_doc = read(outcome.text)
    new_table = server_table(new_doc, key)
    for entry in wrapped_now:
        new_node = new_table.get(entry.name)
        assert new_node is not None
        changed = _record(doc, entry, new_doc.text[new_node.start : new_node.end], launcher, record_args)
        outcome.changed[entry.name] = changed
        if entry.kind == "http":
            value = new_node.value(new_doc.text)
            changed.new_url = value.get("url") or value.get("serverUrl")
            changed.proxy = outcome.proxies[-1]


def _cannot_wrap(entry: Entry, text: str, listen: str | None) -> str | None:
    if is_wrapped(entry, text):
        return "already runs through mcptape record"
    if entry.kind == "stdio":
        return None
    if entry.kind == "http":
        url = entry.node.get("url") or entry.node.get("serverUrl")
        if url is not None and "${" in str(url.scalar):
            return "its url holds a ${...} variable that only the client expands: point it at a proxy by hand"
        if listen is None:
            return (
                "an HTTP server, which the client does not start: name it and add --listen 127.0.0.1:PORT "
                "to send it through a recording proxy (mcptape record --http-upstream)"
            )
        return None
    if entry.kind == "sse":
        return "the older HTTP+SSE transport, which mcptape record does not record (only Streamable HTTP)"
    return "neither a stdio command nor an HTTP url"


def _record(
    doc: jsonc.Document, entry: Entry, wrapped: str, launcher: list[str], record_args: list[str]
) -> Wrapped:
    text = doc.text
    node = entry.node
    original = text[node.start : node.end]
    if entry.kind == "http":
        url = node.get("url") or node.get("serverUrl")
        assert url is not None
        return Wrapped("http", original, wrapped, url=text[url.start : url.end])
    command = node.get("command")
    args = node.get("args")
    assert command is not None
    prefix = [*launcher[1:], "record", *record_args, "--", command.scalar]
    return Wrapped(
        "stdio",
        original,
        wrapped,
        command=text[command.start : command.end],
        args=None if args is None else text[args.start : args.end],
        prefix=prefix,
        launcher=launcher[0],
    )


def unwrap(
    text: str, *, client_key: str | None, names: Sequence[str], records: Mapping[str, Wrapped]
) -> Outcome:
    """Undo wrap on the chosen servers (all that have a record when `names` is empty).

    `Outcome.changed` holds the records that are done with (unwrapped, or whose entry is gone).
    """
    doc = read(text)
    key = table_key(doc, client_key)
    table = server_table(doc, key)
    by_name = {entry.name: entry for entry in entries(doc, table)}
    outcome = Outcome(text)
    wanted = list(dict.fromkeys(names)) if names else list(records)
    unknown = [name for name in wanted if name not in records]
    if unknown:
        looks = [n for n in unknown if n in by_name and is_wrapped(by_name[n], text)]
        hint = (
            " (it looks wrapped: its own command follows '--' in its args; edit it by hand)" if looks else ""
        )
        raise ConfigError(f"no record of wrapping {', '.join(unknown)} in this file{hint}")
    edits: list[Edit] = []
    for name in wanted:
        record = records[name]
        entry = by_name.get(name)
        if entry is None:
            outcome.lines.append(f"{name}: no longer in the file: nothing to undo")
            outcome.changed[name] = record
            continue
        entry_edits, exact = unwrap_edits(doc, entry, record)
        edits.extend(entry_edits)
        outcome.changed[name] = record
        outcome.lines.append(
            f"{name}: restored exactly as it was"
            if exact
            else f"{name}: edited since wrap: took out what wrap put in, kept the other changes"
        )
    outcome.text = jsonc.splice(text, edits)
    read(outcome.text)  # what unwrap writes must parse: a bug here must not reach the user's file
    return outcome

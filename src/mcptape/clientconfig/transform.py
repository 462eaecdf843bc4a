"""Wrap and unwrap one server entry of a client config, as splices into the config's text.

Only the bytes that must change are touched: a stdio entry's `command` value, the items put in
front of its `args` (or an `args` member added right after `command`), an HTTP entry's `url`.
Everything else — `env`, other entries, comments, indentation, key order — keeps its bytes.
What was there before is kept in a `Wrapped` record, so `unwrap` puts back the exact bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcptape.clientconfig.jsonc import Document, Member, Node

Edit = tuple[int, int, str]

HTTP_TYPES = frozenset({"http", "streamable-http", "streamableHttp"})


class ConfigError(ValueError):
    """A config (or one entry of it) that wrap cannot change safely; the message says why."""


@dataclass(frozen=True)
class Entry:
    """One server of the config: its name, its member in the table, and its kind."""

    name: str
    member: Member
    kind: str  # "stdio" | "http" | "sse" | "other"

    @property
    def node(self) -> Node:
        return self.member.value


@dataclass
class Wrapped:
    """What wrap changed in one entry, enough to undo it byte for byte.

    `original` and `wrapped` are the entry's text before and after; `command`, `args` and `url` the
    original values' text (None where the entry had none); `prefix` the values wrap put in front
    of the arguments; `proxy` the `mcptape record --http-upstream` command an HTTP entry needs.
    """

    kind: str
    original: str
    wrapped: str
    command: str | None = None
    args: str | None = None
    prefix: list[str] | None = None
    launcher: str | None = None
    url: str | None = None
    new_url: str | None = None
    proxy: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Wrapped:
        if not isinstance(data, dict) or not isinstance(data.get("original"), str):
            raise ConfigError("not a wrap record")
        strings = ("command", "args", "launcher", "url", "new_url")
        if not (
            isinstance(data.get("kind"), str)
            and isinstance(data.get("wrapped"), str)
            and all(data.get(k) is None or isinstance(data.get(k), str) for k in strings)
            and all(_strings_or_none(data.get(k)) for k in ("prefix", "proxy"))
        ):
            raise ConfigError("not a wrap record")
        return cls(
            data["kind"],
            data["original"],
            data["wrapped"],
            command=data.get("command"),
            args=data.get("args"),
            prefix=data.get("prefix"),
            launcher=data.get("launcher"),
            url=data.get("url"),
            new_url=data.get("new_url"),
            proxy=data.get("proxy"),
        )


def _strings_or_none(value: object) -> bool:
    return value is None or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def server_table(doc: Document, key: str) -> Node:
    """The object holding the servers (`mcpServers`, or `servers` for VS Code)."""
    if doc.root.kind != "object":
        raise ConfigError("the file's top level is not a JSON object")
    table = doc.root.get(key)
    if table is None:
        raise ConfigError(f'no "{key}" object in the file: it lists no MCP servers')
    if table.kind != "object":
        raise ConfigError(f'"{key}" is not a JSON object')
    return table


def table_key(doc: Document, client_key: str | None) -> str:
    """The key servers live under: the client's, else whichever of the two the file has."""
    if client_key is not None:
        return client_key
    if doc.root.kind == "object" and doc.root.get("mcpServers") is None and doc.root.get("servers"):
        return "servers"
    return "mcpServers"


def entries(doc: Document, table: Node) -> list[Entry]:
    """Every server entry of `table`, each with its kind."""
    found = []
    for member in table.members:
        found.append(Entry(member.key, member, _kind(member.value, doc.text)))
    return found


def _kind(node: Node, text: str) -> str:
    if node.kind != "object":
        return "other"
    command = node.get("command")
    url = node.get("url") or node.get("serverUrl")
    kind = node.get("type")
    type_name = kind.scalar if kind is not None and kind.kind == "string" else None
    if command is not None and command.kind == "string" and type_name in (None, "stdio"):
        return "stdio"
    if url is not None and url.kind == "string":
        if type_name == "sse":
            return "sse"
        if type_name is None or type_name in HTTP_TYPES:
            return "http"
    return "other"


def is_wrapped(entry: Entry, text: str) -> bool:
    """Whether the entry already runs through `mcptape record` (or an HTTP entry points at it)."""
    if entry.kind != "stdio":
        return False
    value = entry.node.value(text)
    command = str(value.get("command", ""))
    args = value.get("args")
    if type(args) is not list:  # "args": {...}, true, "x": not an already wrapped entry's list
        args = []
    base = command.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if base in ("mcptape", "mcptape.exe"):
        return bool(args) and args[0] == "record"
    return args[:3] == ["-m", "mcptape", "record"]


def wrap_stdio(doc: Document, entry: Entry, launcher: list[str], record_args: list[str]) -> list[Edit]:
    """Edits that run the entry's command through `launcher record RECORD_ARGS -- COMMAND ARGS`.

    `launcher` is mcptape's own command line (its full path, or `python -m mcptape`).
    """
    text = doc.text
    node = entry.node
    command = node.member("command")
    assert command is not None and command.value.kind == "string"
    args = node.member("args")
    if args is not None and args.value.kind != "array":
        raise ConfigError(f'server "{entry.name}": its "args" is not a list')
    if args is not None and any(item.kind != "string" for item in args.value.items):
        raise ConfigError(f'server "{entry.name}": its "args" holds values that are not strings')
    prefix = [*launcher[1:], "record", *record_args, "--", command.value.scalar]
    edits: list[Edit] = [(command.value.start, command.value.end, _dump(launcher[0]))]
    quoted = ", ".join(_dump(p) for p in prefix)
    newline = "\r\n" if "\r\n" in text else "\n"
    if args is None:
        indent = _indent_of(text, command.key_start)
        edits.append((command.value.end, command.value.end, f',{newline}{indent}"args": [{quoted}]'))
        return edits
    array = args.value
    after_bracket = array.start + 1
    if not array.items:
        edits.append((after_bracket, after_bracket, quoted))
        return edits
    first = array.items[0]
    gap = text[after_bracket : first.start]
    if "\n" in gap:  # one item a line: the new ones go on a line of their own, indented alike
        indent = gap[gap.rfind("\n") + 1 :]
        if indent.strip():  # a comment before the first item: keep it where it is
            edits.append((first.start, first.start, f"{quoted}, "))
        else:
            edits.append((after_bracket, after_bracket, f"{newline}{indent}{quoted},"))
    else:
        edits.append((first.start, first.start, f"{quoted}, "))
    return edits


def http_proxy_url(url: str, listen: str) -> str:
    """The URL a client uses to reach `url` through a proxy listening on `listen` (HOST:PORT)."""
    parts = urlsplit(url)
    return urlunsplit(("http", listen, parts.path or "/", parts.query, ""))


def wrap_http(entry: Entry, listen: str) -> list[Edit]:
    """Edits that point the entry's `url` at `mcptape record --http-upstream` on `listen`."""
    url = entry.node.get("url") or entry.node.get("serverUrl")
    assert url is not None and url.kind == "string"
    return [(url.start, url.end, _dump(http_proxy_url(url.scalar, listen)))]


def unwrap_edits(doc: Document, entry: Entry, record: Wrapped) -> tuple[list[Edit], bool]:
    """Edits that undo wrap on `entry`, and whether they restore its exact original bytes.

    An entry that still has the bytes wrap wrote gets its original bytes back. One edited since
    (an `env` added, say) keeps those edits: only what wrap inserted is taken out again.
    """
    text = doc.text
    node = entry.node
    if text[node.start : node.end] == record.wrapped:
        return [(node.start, node.end, record.original)], True
    if record.kind == "http":
        url = node.get("url") or node.get("serverUrl")
        if url is None or url.kind != "string" or url.scalar != record.new_url or record.url is None:
            raise ConfigError(f'server "{entry.name}": its url is no longer the one wrap set')
        return [(url.start, url.end, record.url)], False
    command = node.member("command")
    args = node.member("args")
    prefix = record.prefix or []
    if (
        command is None
        or command.value.kind != "string"
        or command.value.scalar != record.launcher
        or args is None
        or args.value.kind != "array"
        or [item.scalar for item in args.value.items[: len(prefix)]] != prefix
        or record.command is None
    ):
        raise ConfigError(f'server "{entry.name}": its command and args are no longer the ones wrap set')
    edits: list[Edit] = [(command.value.start, command.value.end, record.command)]
    items = args.value.items
    if record.args is None and len(items) == len(prefix):
        edits.append(_remove_member(node, args))
    elif len(items) > len(prefix):
        edits.append((items[0].start, items[len(prefix)].start, ""))
    else:
        edits.append((items[0].start, items[-1].end, ""))
    return edits, False


def _remove_member(node: Node, member: Member) -> Edit:
    index = node.members.index(member)
    if index > 0:
        return (node.members[index - 1].value.end, member.value.end, "")
    if len(node.members) > 1:
        return (member.key_start, node.members[1].key_start, "")
    return (member.key_start, member.value.end, "")


def _indent_of(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    return before if not before.strip() else " " * len(before)


def _dump(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)

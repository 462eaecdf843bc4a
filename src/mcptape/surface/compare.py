"""Two surfaces compared: every change, with its severity (see docs/tools.md for the table).

* breaking: a definition removed (or renamed), a required property or argument added, a property
  removed, a type changed or narrowed, an enum value removed, `additionalProperties` turned false,
  an output field removed or its type changed, an annotation loosened toward danger, a way of
  calling dropped (`execution.taskSupport`), a capability withdrawn, a resource's MIME type changed;
* suspicious: a description or title changed (of a tool, a parameter, a prompt, an argument, a
  resource, the server's instructions), named with what its new words address to the model
  (`addressing.gained_flags`); a change this module cannot model ("could not compare");
* compatible: a definition added, an optional property added, an enum or type widened, serverInfo
  or other annotations changed.

Pure: two `Surface`s in, a list of `Change`s out, in a stable order (kind, name, path).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcptape.check.schema import compile_schema, default_dialect
from mcptape.jsonsafe import equal
from mcptape.surface.addressing import flags, gained_flags, words_diff
from mcptape.surface.members import (
    Pair,
    judge_annotations,
    judge_execution,
    judge_others,
    judge_prompt,
    judge_resource,
    value_text,
)
from mcptape.surface.model import (
    KINDS,
    PROMPTS,
    RESOURCES,
    TOOLS,
    Change,
    Definition,
    Kind,
    Severity,
    Surface,
    canonical,
)
from mcptape.surface.schemadiff import compare_schemas, pointer, walk_texts
from mcptape.textsafe import escape_controls

BREAKING, SUSPICIOUS, COMPATIBLE = Severity.BREAKING, Severity.SUSPICIOUS, Severity.COMPATIBLE
SERVER = "server"
TEXT_MEMBERS = ("title", "description")
SCHEMAS = {"inputSchema": False, "outputSchema": True}  # member -> is an output


@dataclass
class Diff:
    """The changes between a base surface and a new one, and what could not be compared."""

    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def compare(base: Surface, new: Surface) -> Diff:
    """Every change from `base` to `new` (kinds listed by only one side are noted, not compared)."""
    diff = Diff()
    _server(base, new, diff)
    tools = frozenset(base.tools) | frozenset(new.tools)  # names another tool's text may steer to
    for kind in KINDS:
        if kind.member not in base.listed or kind.member not in new.listed:
            if kind.member in base.listed or kind.member in new.listed:
                side = "base" if kind.member in base.listed else "new"
                diff.notes.append(f"{kind.member}: only the {side} side lists them: not compared")
            continue
        dialects = (default_dialect(base.protocol_version), default_dialect(new.protocol_version))
        _kind(kind, base.of_kind(kind), new.of_kind(kind), tools, diff, dialects)
    diff.changes.sort(key=lambda c: (_order(c.kind), c.name, c.path))
    return diff


def _order(kind: str) -> int:
    return 0 if kind == SERVER else 1 + [k.noun for k in KINDS].index(kind)


def _kind(
    kind: Kind,
    old: dict[str, Definition],
    new: dict[str, Definition],
    tools: frozenset[str],
    diff: Diff,
    dialects: tuple[str, str],
) -> None:
    removed = sorted(set(old) - set(new))
    added = sorted(set(new) - set(old))
    renamed: dict[str, str] = {}  # removed name -> the added name of the same definition
    twins: dict[str, list[str]] = {}
    for name in added:
        twins.setdefault(_but_name(kind, new[name]), []).append(name)
    for name in removed:
        candidates = twins.get(_but_name(kind, old[name]))
        if candidates:
            renamed[name] = candidates.pop(0)
    for name in removed:
        detail = f"{kind.noun} {escape_controls(name)} removed"
        if name in renamed:
            detail += f" (renamed to {escape_controls(renamed[name])}: the same definition otherwise)"
        diff.changes.append(Change(kind.noun, name, BREAKING, "", detail, before=old[name].sha256))
    former = {new_name: old_name for old_name, new_name in renamed.items()}
    for name in added:
        definition = new[name]
        detail = f"{kind.noun} {escape_controls(name)} added"
        found = _flags_of(definition, tools)
        if name in former:
            detail += f" (the new name of {escape_controls(former[name])})"
        if found:
            detail += "; its text addresses the model: " + ", ".join(found)
        diff.changes.append(
            Change(kind.noun, name, COMPATIBLE, "", detail, flags=found, after=definition.sha256)
        )
    for name in sorted(set(old) & set(new)):
        if old[name].sha256 == new[name].sha256:
            continue
        pair = Pair(kind.noun, name, old[name], new[name], tools, diff.changes, dialects)
        if kind is TOOLS:
            _tool(pair)
        elif kind is PROMPTS:
            judge_prompt(pair)
        else:
            judge_resource(pair, kind is RESOURCES)


def _but_name(kind: Kind, definition: Definition) -> str:
    """A definition's canonical text without its name and title (what a rename keeps)."""
    return canonical({k: v for k, v in definition.value.items() if k not in (kind.key, "title")})


def _flags_of(definition: Definition, tools: frozenset[str]) -> tuple[str, ...]:
    texts = [v for k, v in definition.value.items() if k in TEXT_MEMBERS and type(v) is str]
    texts.extend(walk_texts(definition.value.get("inputSchema")))
    return flags("\n".join(texts), tools, exclude=definition.name)


def _tool(pair: Pair) -> None:
    old, new = pair.old.value, pair.new.value
    before = len(pair.out)
    texts = []
    for member, output in SCHEMAS.items():
        a, b = old.get(member), new.get(member)
        if canonical(a) == canonical(b):
            continue
        where = pointer(member)
        if a is None:
            pair.add(COMPATIBLE if output else BREAKING, where, f"{member} added")
            continue
        if b is None:
            pair.add(BREAKING if output else COMPATIBLE, where, f"{member} removed")
            continue
        problem = _unjudged(a, pair.dialects[0], "old") or _unjudged(b, pair.dialects[1], "new")
        if problem is not None:
            pair.add(SUSPICIOUS, where, f"could not compare: the {problem}")
            continue
        found, changed_texts = compare_schemas(a, b, where, output=output)
        for item in found:
            pair.add(item.severity, item.path, item.detail)
        texts.extend(changed_texts)
    judge_annotations(pair, old.get("annotations"), new.get("annotations"))
    judge_execution(pair, old.get("execution"), new.get("execution"))
    interface_changed = any(c.severity is BREAKING or c.severity is COMPATIBLE for c in pair.out[before:])
    for member in TEXT_MEMBERS:
        if not equal(old.get(member), new.get(member)):  # any depth
            pair.text(
                pointer(member), f"the tool's {member}", old.get(member), new.get(member), interface_changed
            )
    for text in texts:
        what = f"the {text.path.rsplit('/', 1)[-1]} of {_parameter(text.path)}"
        pair.text(text.path, what, text.old, text.new, interface_changed)
    judge_others(pair, old, new, {"name", *TEXT_MEMBERS, *SCHEMAS, "annotations", "execution"})


def _unjudged(schema: Any, dialect: str, side: str) -> str | None:
    """Why the check core's validator (jsonschema, bounded) cannot take this schema, if it cannot:
    invalid against its metaschema, an unknown dialect, too deep or too large."""
    problem = compile_schema(schema, dialect).problem
    return None if problem is None else f"{side} schema cannot be judged ({problem})"


def _parameter(path: str) -> str:
    parts = path.split("/")
    names = [parts[i + 1] for i, p in enumerate(parts[:-2]) if p == "properties"]
    return "parameter " + ".".join(names) if names else "the schema"


def _server(base: Surface, new: Surface, diff: Diff) -> None:
    def add(severity: Severity, path: str, detail: str, **extra: Any) -> None:
        diff.changes.append(Change(SERVER, "", severity, path, detail, **extra))

    if not equal(base.instructions, new.instructions):  # any depth
        a = base.instructions if type(base.instructions) is str else ""
        b = new.instructions if type(new.instructions) is str else ""
        found = gained_flags(a, b, frozenset(new.tools))
        verb = "added" if base.instructions is None else "removed" if new.instructions is None else "changed"
        detail = f"the server's instructions {verb}"
        if found:
            detail += "; the new text addresses the model: " + ", ".join(found)
        add(SUSPICIOUS, "/instructions", detail, flags=found, words=words_diff(a, b))
    if canonical(base.server_info) != canonical(new.server_info):
        add(
            COMPATIBLE,
            "/serverInfo",
            f"serverInfo {value_text(base.server_info)} -> {value_text(new.server_info)}",
        )
    ca: dict[str, Any] = base.capabilities if type(base.capabilities) is dict else {}
    cb: dict[str, Any] = new.capabilities if type(new.capabilities) is dict else {}
    for name in sorted(set(ca) | set(cb)):
        if canonical(ca.get(name)) == canonical(cb.get(name)):
            continue
        where = pointer("capabilities", name)
        if name not in cb:
            add(BREAKING, where, f"capability {escape_controls(name)} withdrawn")
        elif name not in ca:
            add(COMPATIBLE, where, f"capability {escape_controls(name)} added")
        else:
            add(
                COMPATIBLE,
                where,
                f"capability {escape_controls(name)} {value_text(ca[name])} -> {value_text(cb[name])}",
            )
    if base.protocol_version != new.protocol_version and base.protocol_version and new.protocol_version:
        add(
            COMPATIBLE,
            "/protocolVersion",
            f"protocol version {value_text(base.protocol_version)} -> {value_text(new.protocol_version)}",
        )

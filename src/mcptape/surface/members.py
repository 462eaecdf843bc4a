"""The rules of each member of a definition, below its schemas: annotations, `execution`, a
prompt's arguments, a resource's MIME type, the members mcptape does not model; and `Pair`, one
definition in both surfaces with the changes found in it (see `compare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcptape.check.schema import DRAFT_2020_12
from mcptape.surface.addressing import gained_flags, words_diff
from mcptape.surface.model import Change, Definition, Severity, canonical
from mcptape.surface.schemadiff import pointer
from mcptape.textsafe import escape_controls

BREAKING, SUSPICIOUS, COMPATIBLE = Severity.BREAKING, Severity.SUSPICIOUS, Severity.COMPATIBLE
# annotation -> (its default when absent, the value that is the dangerous one)
DANGER = {
    "readOnlyHint": (False, False),
    "destructiveHint": (True, True),
    "idempotentHint": (False, False),
    "openWorldHint": (True, True),
}
TEXT_MEMBERS = ("title", "description")
RESOURCE_TEXT = ("name", "title", "description")
QUIET = frozenset({"size", "icons", "_meta", "annotations"})  # a resource's members that come and go


@dataclass
class Pair:
    """One definition in both surfaces, and where its changes go."""

    kind: str
    name: str
    old: Definition
    new: Definition
    tools: frozenset[str]  # every tool name of both surfaces (`other tool` flags)
    out: list[Change]
    dialects: tuple[str, str] = (DRAFT_2020_12, DRAFT_2020_12)  # of a schema without $schema

    def add(self, severity: Severity, path: str, detail: str, **extra: Any) -> None:
        self.out.append(
            Change(
                self.kind,
                self.name,
                severity,
                path,
                detail,
                before=self.old.sha256,
                after=self.new.sha256,
                **extra,
            )
        )

    def text(self, path: str, what: str, old: Any, new: Any, interface_changed: bool) -> None:
        """A description or title that changed: suspicious, with what its new words address."""
        a = old if type(old) is str else canonical(old) if old is not None else ""
        b = new if type(new) is str else canonical(new) if new is not None else ""
        found = gained_flags(a, b, self.tools, exclude=self.name)
        where = "with an interface change" if interface_changed else "the interface unchanged"
        verb = "added" if old is None else "removed" if new is None else "changed"
        if a != b and a.split() == b.split():
            where += ", only its whitespace"  # a layout change: still text the model reads
        detail = f"{what} {verb} ({where})"
        if found:
            detail += "; the new text addresses the model: " + ", ".join(found)
        self.add(SUSPICIOUS, path, detail, flags=found, words=words_diff(a, b))


def judge_annotations(pair: Pair, old: Any, new: Any) -> None:
    a = old if type(old) is dict else {}
    b = new if type(new) is dict else {}
    if canonical(a) == canonical(b):
        return
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if canonical(x) == canonical(y):
            continue
        where = pointer("annotations", name)
        if name in DANGER:
            default, danger = DANGER[name]
            was = x if type(x) is bool else default
            now = y if type(y) is bool else default
            shown = f"{name} {value_text(x)} -> {value_text(y)}"
            if was == now:
                pair.add(COMPATIBLE, where, f"{shown} (the same claim: {default} is the default)")
            elif now == danger:
                pair.add(BREAKING, where, f"{shown}: the claim loosened toward danger")
            else:
                pair.add(COMPATIBLE, where, f"{shown}: the claim tightened")
        elif name == "title":
            pair.text(where, "the annotations' title", x, y, False)
        else:
            pair.add(
                COMPATIBLE, where, f"annotation {escape_controls(name)} {value_text(x)} -> {value_text(y)}"
            )


def judge_execution(pair: Pair, old: Any, new: Any) -> None:
    """`execution.taskSupport` (2025-11-25): how a tool may be called. A way of calling it that
    worked and no longer does is breaking; a new way is compatible."""
    if canonical(old) == canonical(new):
        return
    a, b = _task_support(old), _task_support(new)
    if a is None or b is None:
        pair.add(
            SUSPICIOUS, "/execution", f"could not compare: execution {value_text(old)} -> {value_text(new)}"
        )
        return
    lost, gained = MODES[a] - MODES[b], MODES[b] - MODES[a]
    shown = f"taskSupport {a} -> {b}"
    if lost:
        pair.add(
            BREAKING,
            "/execution/taskSupport",
            f"{shown}: a {' and '.join(sorted(lost))} call no longer works",
        )
    elif gained:
        pair.add(
            COMPATIBLE, "/execution/taskSupport", f"{shown}: a {' and '.join(sorted(gained))} call now works"
        )
    rest_a = {k: v for k, v in (old or {}).items() if k != "taskSupport"} if type(old) is dict else {}
    rest_b = {k: v for k, v in (new or {}).items() if k != "taskSupport"} if type(new) is dict else {}
    if canonical(rest_a) != canonical(rest_b):
        pair.add(
            SUSPICIOUS,
            "/execution",
            f"could not compare: execution {value_text(rest_a)} -> {value_text(rest_b)}",
        )


MODES = {
    "forbidden": frozenset({"plain"}),
    "optional": frozenset({"plain", "task"}),
    "required": frozenset({"task"}),
}


def _task_support(execution: Any) -> str | None:
    """The tool's taskSupport ("forbidden" when absent, as the spec defaults it), None if odd."""
    if execution is None:
        return "forbidden"
    if type(execution) is not dict:
        return None
    mode = execution.get("taskSupport", "forbidden")
    return mode if mode in MODES else None


def value_text(value: Any) -> str:
    if value is None:
        return "(absent)"
    text = canonical(value)
    return escape_controls(text if len(text) <= 40 else text[:37] + "...")


def judge_others(
    pair: Pair,
    old: dict[str, Any],
    new: dict[str, Any],
    known: set[str],
    quiet: frozenset[str] = frozenset({"icons", "_meta"}),
) -> None:
    for member in sorted((set(old) | set(new)) - known):
        a, b = old.get(member), new.get(member)
        if canonical(a) == canonical(b):
            continue
        where = pointer(member)
        if member in quiet:
            pair.add(COMPATIBLE, where, f"{escape_controls(member)} changed")
        else:
            pair.add(
                SUSPICIOUS,
                where,
                f"could not compare: {escape_controls(member)} {value_text(a)} -> {value_text(b)}",
            )


def judge_prompt(pair: Pair) -> None:
    old, new = pair.old.value, pair.new.value
    before = len(pair.out)
    a, b = _arguments(old.get("arguments")), _arguments(new.get("arguments"))
    if a is None or b is None:
        if canonical(old.get("arguments")) != canonical(new.get("arguments")):
            pair.add(SUSPICIOUS, "/arguments", "could not compare: arguments is not a list of named objects")
    else:
        for name in sorted(set(a) - set(b)):
            pair.add(BREAKING, pointer("arguments", name), f"argument {escape_controls(name)} removed")
        for name in sorted(set(b) - set(a)):
            required = b[name].get("required") is True
            pair.add(
                BREAKING if required else COMPATIBLE,
                pointer("arguments", name),
                f"{'required' if required else 'optional'} argument {escape_controls(name)} added",
            )
        for name in sorted(set(a) & set(b)):
            was, now = a[name].get("required") is True, b[name].get("required") is True
            if now and not was:
                pair.add(
                    BREAKING, pointer("arguments", name), f"argument {escape_controls(name)} now required"
                )
            elif was and not now:
                pair.add(
                    COMPATIBLE,
                    pointer("arguments", name),
                    f"argument {escape_controls(name)} no longer required",
                )
    changed = any(c.severity is not SUSPICIOUS for c in pair.out[before:])
    for member in TEXT_MEMBERS:
        if old.get(member) != new.get(member):
            pair.text(pointer(member), f"the prompt's {member}", old.get(member), new.get(member), changed)
    if a is not None and b is not None:
        for name in sorted(set(a) & set(b)):
            for member in TEXT_MEMBERS:
                if a[name].get(member) != b[name].get(member):
                    what = f"the {member} of argument {escape_controls(name)}"
                    pair.text(
                        pointer("arguments", name, member),
                        what,
                        a[name].get(member),
                        b[name].get(member),
                        changed,
                    )
    judge_others(pair, old, new, {"name", "arguments", *TEXT_MEMBERS})


def _arguments(value: Any) -> dict[str, dict[str, Any]] | None:
    if value is None:
        return {}
    if type(value) is not list:
        return None
    found: dict[str, dict[str, Any]] = {}
    for item in value:
        if type(item) is not dict or type(item.get("name")) is not str:
            return None
        found[item["name"]] = item
    return found


def judge_resource(pair: Pair, listed_resource: bool) -> None:
    old, new = pair.old.value, pair.new.value
    if old.get("mimeType") != new.get("mimeType"):
        detail = f"mimeType {value_text(old.get('mimeType'))} -> {value_text(new.get('mimeType'))}"
        pair.add(BREAKING, "/mimeType", detail)
    for member in RESOURCE_TEXT:
        if old.get(member) != new.get(member):
            pair.text(pointer(member), f"the {pair.kind}'s {member}", old.get(member), new.get(member), False)
    key = "uri" if listed_resource else "uriTemplate"
    judge_others(pair, old, new, {key, "mimeType", *RESOURCE_TEXT}, QUIET)

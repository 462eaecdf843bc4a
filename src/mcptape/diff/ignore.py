"""Ignore rules: which parts of a message the diff must not compare, and where they come from.

A rule is `[SCOPE:]PATH`:

    tools/call:result.content[*].text                     the whole text of every tools/call result
    tools/call:result.content[*].text|json.timestamp      one member of the JSON document in that text
    notifications/message:params.data                     a notification's member
    *:result._meta                                        any method (same as no scope)
    exec:pid                                              a member of every executor (`exec`) line
    http:headers                                          a member of every HTTP sink (`http`) line

    tools/call[get_current_time]:result.content[*].text   only the calls of that tool
    tools/call[echo]:result.content[*].text|uuid|time      only the UUIDs and times inside that text

    notifications/message:count=0..2                       unsolicited log messages without a logger
                                                           may come 0 to 2 times a session
    notifications/resources/updated[file:///a]:count=1..3  ... and that resource's updates 1 to 3 times

SCOPE is the method a message belongs to (a response belongs to the method of the request it
answers), `*`, `exec` or `http`, optionally narrowed by `[TARGET]`: the tool or prompt `name`, or
the resource `uri`, of the request (for a notification: its `logger`, `progressToken` or `uri`).
PATH starts at the message object: `result`, `error`, `params`. Steps: `.name` (a member),
`["a.b"]` (a member whose name has dots or brackets), `[3]` (an array element), `[*]` or `.*` (any
element or member), `|json` (parse this string as JSON and go on inside it). A rule hides the whole
value it reaches, everything under it included, unless it ends in shapes (`|uuid`, `|time`, ...,
see `mcptape.diff.shapes`): then it hides nothing whole, and every string at or under PATH is
compared with those shapes replaced by a typed placeholder.

`count=LOW..HIGH` is a rule of its own kind, for the notifications no request caused (see
`mcptape.diff.sessions`: they are compared by content, as a multiset, never by position): it says
how many of them one stream may send in a session. While both sessions are within the range, a
notification of that stream that has no equal on the other side is not a difference (the rule
hid it, and says so); outside it, it is. Without `[TARGET]` it counts the notifications of the
method that have no stream (no `logger`, `progressToken` or `uri`); it never hides anything
inside a message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcptape.diff.shapes import NAMES as SHAPE_NAMES
from mcptape.diff.shapes import mask
from mcptape.errors import UsageError

ANY = "*"
EXECUTOR_SCOPES = ("exec", "http")


class JsonStep:
    """The `|json` step: the string at this point holds a JSON document."""

    _instance: JsonStep | None = None

    def __new__(cls) -> JsonStep:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "JSON"


JSON = JsonStep()
Step = str | int | JsonStep
Path = tuple[Step, ...]
Pattern = tuple[str | int | JsonStep, ...]  # "*" matches any key, -1 any index

_KEY = re.compile(r"[A-Za-z0-9_$@\-/]+|\*")


@dataclass(frozen=True)
class Rule:
    """One ignore rule: its text (as the user wrote it), scope (and target), path pattern, the
    shapes it masks (none: it hides the whole value), and its origin."""

    text: str
    scope: str
    pattern: Pattern
    origin: str = "--ignore"
    target: str | None = None  # `tools/call[NAME]`: only the messages of that tool, prompt or resource
    shapes: tuple[str, ...] = ()  # `|uuid|time`: mask these inside strings instead of hiding
    counts: tuple[int, int] | None = None  # `count=LOW..HIGH`: how many unsolicited notifications

    def counts_for(self, scope: str, stream: str | None) -> bool:
        """Is this a `count=` rule for the unsolicited notifications of `scope`'s `stream` (None:
        those without a stream)?"""
        return self.counts is not None and self.scope == scope and self.target == stream

    def allows(self, old: int, new: int) -> bool:
        """Are both sessions' counts within this `count=` rule's range?"""
        assert self.counts is not None
        low, high = self.counts
        return low <= old <= high and low <= new <= high

    def applies_to(self, scope: str, target: str | None = None) -> bool:
        """`*` covers every method; executor lines only take rules scoped `exec` or `http`; a rule
        with a target only applies to the messages of that target."""
        if self.target is not None and self.target != target:
            return False
        if scope in EXECUTOR_SCOPES:
            return self.scope == scope
        return self.scope == ANY or self.scope == scope

    def matches(self, path: Path) -> bool:
        """True when this rule reaches `path` exactly (so it hides `path` and all under it)."""
        pattern = self.pattern
        return (
            not self.shapes and self.counts is None and len(path) == len(pattern) and _prefix(pattern, path)
        )

    def masks_at(self, path: Path) -> bool:
        """True when this rule masks its shapes in the strings at `path` (at or under its PATH)."""
        return bool(self.shapes) and len(path) >= len(self.pattern) and _prefix(self.pattern, path)

    def same_masked(self, old: str, new: str) -> bool:
        """Are the two strings equal once this rule's shapes are replaced by placeholders?"""
        return mask(old, self.shapes) == mask(new, self.shapes)

    def enters_json(self, path: Path) -> bool:
        """True when this rule goes on inside a JSON document embedded at `path`."""
        pattern = self.pattern
        n = len(path)
        return len(pattern) > n and pattern[n] is JSON and _prefix(pattern, path)


def target_of(params: Any) -> str | None:
    """What a rule's `METHOD[TARGET]` names for a request: its tool or prompt `name`, or its
    resource `uri` (from the request's `params`)."""
    if type(params) is not dict:
        return None
    for name in ("name", "uri"):
        value = params.get(name)
        if type(value) is str:
            return value
    return None


def _prefix(pattern: Pattern, path: Path) -> bool:
    for want, got in zip(pattern, path, strict=False):
        if want is JSON or got is JSON:
            if want is not got:
                return False
        elif want == ANY:
            if not isinstance(got, str):
                return False
        elif want == -1:
            if not isinstance(got, int):
                return False
        elif want != got:
            return False
    return True


_COUNT = re.compile(r"count=(\d{1,9})\.\.(\d{1,9})")
_SCOPE = re.compile(r"(?P<scope>[^\[\]:\"'\s|]+)(?:\[(?P<target>[^\]]*)\])?:(?P<path>.*)", re.DOTALL)


def parse_rule(text: str, origin: str = "--ignore") -> Rule:
    """Parse `[SCOPE[TARGET]:]PATH[|SHAPE...]`, or raise UsageError naming what is wrong."""
    raw = text.strip()
    scope, target, rest = ANY, None, raw
    m = _SCOPE.fullmatch(raw)
    if m is not None:
        scope, target, rest = m["scope"], m["target"], m["path"]
    try:
        if target == "":
            raise ValueError("the [TARGET] after the method is empty")
        count = _COUNT.fullmatch(rest.strip())
        if count is not None:
            return _count_rule(raw, scope, target, origin, int(count[1]), int(count[2]))
        rest, shapes = split_shapes(rest)
        pattern = parse_path(rest)
    except ValueError as exc:
        raise UsageError(
            f"ignore rule {text!r} ({origin}): {exc}",
            hint='write it as METHOD[TOOL]:PATH, e.g. "tools/call[get_time]:result.content[*].text|time"',
        ) from None
    return Rule(raw, scope or ANY, pattern, origin, target, shapes)


def _count_rule(raw: str, scope: str, target: str | None, origin: str, low: int, high: int) -> Rule:
    if scope in (ANY, *EXECUTOR_SCOPES):
        raise ValueError("count= names a notification method, e.g. notifications/message:count=0..2")
    if low > high:
        raise ValueError(f"count={low}..{high}: the range is empty")
    return Rule(raw, scope, (), origin, target, (), (low, high))


def count_rule_text(scope: str, target: str | None, low: int, high: int) -> str:
    """The text of a `count=` rule (what the learner proposes)."""
    head = scope if target is None else f"{scope}[{target}]"
    return f"{head}:count={low}..{high}"


def split_shapes(text: str) -> tuple[str, tuple[str, ...]]:
    """`result.text|uuid|time` -> (`result.text`, ("uuid", "time")); `|json` stays in the path."""
    shapes: list[str] = []
    rest = text
    while "|" in rest:
        head, _, name = rest.rpartition("|")
        if name == "json" or not name.isalpha():
            break  # `|json`, or `|json.member...`: a step of the path
        if name not in SHAPE_NAMES:
            known = ", ".join(f"|{n}" for n in SHAPE_NAMES)
            raise ValueError(f"unknown shape |{name} (known: |json, {known})")
        shapes.insert(0, name)
        rest = head
    return rest, tuple(dict.fromkeys(shapes))


def rule_text(scope: str, target: str | None, path: Path, shapes: tuple[str, ...] = ()) -> str:
    """The text of a rule in the syntax `parse_rule` reads (what the learner proposes)."""
    head = scope if target is None else f"{scope}[{target}]"
    return f"{head}:{render_pattern(path)}" + "".join(f"|{name}" for name in shapes)


def render_pattern(pattern: Pattern) -> str:
    """A path pattern in rule syntax: -1 is `[*]`, "*" is `.*` (render_path for everything else)."""
    out: list[str] = []
    for step in pattern:
        if step == -1 and isinstance(step, int):
            out.append("[*]")
        elif step == ANY:
            out.append(".*" if out else "*")
        else:
            out.append(render_path((step,)) if not out else _continue(render_path((step,))))
    return "".join(out)


def _continue(rendered: str) -> str:
    """A first step rendered alone (`name`) as a later one (`.name`)."""
    return rendered if rendered.startswith(("[", "|")) else f".{rendered}"


def parse_path(text: str) -> Pattern:
    """`result.content[*].text|json.ts` -> ("result", "content", -1, "text", JSON, "ts")."""
    steps: list[str | int | JsonStep] = []
    i = 0
    n = len(text)
    if not text:
        raise ValueError("empty path")
    expect_key = True
    while i < n:
        c = text[i]
        if text.startswith("|json", i):
            steps.append(JSON)
            i += 5
            expect_key = False
            continue
        if c == ".":
            if expect_key:
                raise ValueError(f"a member name is missing at column {i + 1}")
            i += 1
            expect_key = True
            if i >= n:
                raise ValueError("path ends with '.'")
            continue
        if c == "[" and text[i + 1 : i + 2] in ("'", '"'):  # a quoted name may hold ] " \\ . |
            name, i = _quoted(text, i + 1)
            steps.append(name)
            expect_key = False
            continue
        if c == "[":
            end = text.find("]", i)
            if end < 0:
                raise ValueError(f"unclosed '[' at column {i + 1}")
            inner = text[i + 1 : end]
            if inner == "*":
                steps.append(-1)
            elif inner.isdigit():
                steps.append(int(inner))
            elif len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "\"'":
                steps.append(inner[1:-1])
            else:
                raise ValueError(f"[{inner}] is not an index, [*] or a quoted name")
            i = end + 1
            expect_key = False
            continue
        if not expect_key:
            raise ValueError(f"expected '.', '[' or '|json' at column {i + 1}")
        m = _KEY.match(text, i)
        if m is None:
            raise ValueError(f"unexpected {c!r} at column {i + 1}")
        steps.append(m.group())
        i = m.end()
        expect_key = False
    return tuple(steps)


def render_path(path: Path) -> str:
    """("result", "content", 0, "text", JSON, "ts") -> `result.content[0].text|json.ts`."""
    out: list[str] = []
    for step in path:
        if step is JSON:
            out.append("|json")
        elif isinstance(step, int):
            out.append(f"[{step}]")
        elif isinstance(step, str) and _KEY.fullmatch(step) and step != ANY:
            out.append(f".{step}" if out else step)
        else:
            out.append(f"[{_quote(str(step))}]")
    return "".join(out)


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The name quoted at `text[start]` (`\\"`, `\\'` and `\\\\` unescaped, any other backslash kept, as
    rules written before `_quote` escaped backslashes have it) and the index after its `]`."""
    quote, out, i = text[start], [], start + 1
    while i < len(text) and text[i] != quote:
        if text[i] == "\\" and text[i + 1 : i + 2] in (quote, "\\"):
            i += 1
        out.append(text[i])
        i += 1
    if text[i + 1 : i + 2] != "]":
        raise ValueError(f"unclosed quoted name at column {start}")
    return "".join(out), i + 2


def parse_rules(texts: Any, origin: str) -> list[Rule]:
    """Rules from a list of strings (the config's `ignore`), or UsageError."""
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise UsageError(f"{origin}: ignore must be a list of strings")
    return [parse_rule(t, origin) for t in texts]


# Volatile members of executor lines that change on every run (a process id, a local port).
BUILTIN = (
    Rule("http:peer_port", "http", ("peer_port",), "built-in"),
    Rule("exec:pid", "exec", ("pid",), "built-in"),
    Rule("exec:ppid", "exec", ("ppid",), "built-in"),
)


def masked_by(rules: Sequence[Rule], path: Path, old: Any, new: Any) -> list[Rule]:
    """The shape rules that make two different strings at `path` equal (one rule alone when one
    suffices, else every shape rule there, together); empty when they do not."""
    if type(old) is not str or type(new) is not str or old == new:
        return []
    here = [rule for rule in rules if rule.masks_at(path)]
    for rule in here:
        if rule.same_masked(old, new):
            return [rule]
    if len(here) > 1:
        shapes = [name for rule in here for name in rule.shapes]
        if mask(old, shapes) == mask(new, shapes):
            return here
    return []

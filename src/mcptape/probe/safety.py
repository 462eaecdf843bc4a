"""Which tools the probe may name: a release gate must not change the user's data, even on the
tolerant servers it exists to find.

A hard input is harmless only if it is harmless on a server that tolerates the fault under test:
one that strips an unknown key, decodes string params, replaces invalid UTF-8, reads a truncated
line or writes `undefined` for a missing argument runs whatever tool the frame names. So, without
`--allow-mutating`, **no frame the probe sends names a tool that is not marked
`readOnlyHint: true`**, whatever its arguments (a missing required argument is no guard), in any
case family: the valid call and every hard input built from it, the per-tool inputs, the base
checks, the MRTR rounds, the corpus frames. Such a tool is not tested, and the report says so.

`Reach` enforces it where every byte leaves: the driver hands it each frame before writing it; a
frame naming a forbidden tool is refused (`UnsafeFrame`, a bug if it ever fires: the builders
leave such frames out first, with the same test, `Reach.forbidden_in`). It also records, per
case, which tools each frame named: the report's per-tool reach table is what was actually sent.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from typing import Any

import orjson

from mcptape.check.hints import mutation_risk
from mcptape.errors import MCPTapeError, UsageError
from mcptape.textsafe import escape_text

NOT_TESTED = "not tested, it would write if the server tolerates it; --allow-mutating on a scratch copy"


class UnsafeFrame(MCPTapeError):
    """The probe was about to send a frame naming a tool it may not call (a bug: never sent)."""


def callable_tools(
    tools: Iterable[dict[str, Any]], allow_mutating: bool
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The listed tools the probe may name (read-only ones, or all with `allow_mutating`), in the
    server's order, and those it leaves alone, each with the reason."""
    allowed: list[dict[str, Any]] = []
    skipped: list[tuple[str, str]] = []
    for entry in tools:
        name = entry.get("name")
        if not isinstance(name, str):
            continue
        if any("\ud800" <= c <= "\udfff" for c in name):
            skipped.append((name, "its name holds a lone surrogate, which no request can carry"))
            continue
        risk = mutation_risk(entry)
        if risk is None or allow_mutating:
            allowed.append(entry)
        else:
            skipped.append((name, risk))
    return allowed, skipped


def refuse_named_tool(tool: str, tools: Iterable[dict[str, Any]], allow_mutating: bool) -> None:
    """`--tool NAME` of a tool that may change data needs `--allow-mutating` too."""
    if allow_mutating:
        return
    risk = next((mutation_risk(t) for t in tools if t.get("name") == tool), None)
    if risk is not None:
        raise UsageError(
            f"--tool {escape_text(tool)}: it may change data ({risk}), and the probe would call it",
            hint="add --allow-mutating and point the server at a scratch copy of its data",
        )


def _forms(name: str) -> list[bytes]:
    """How `name` appears as a whole JSON string in a frame: plain, and JSON-encoded once more
    (params sent as a string)."""
    try:
        once = orjson.dumps(name)[1:-1]
    except orjson.JSONEncodeError:  # a lone surrogate: its \\uXXXX escape, as a frame holds it
        once = json.dumps(name, ensure_ascii=False).encode("utf-8", "backslashreplace")[1:-1]
    twice = orjson.dumps(once.decode())[1:-1]
    return list(dict.fromkeys([once, twice]))


def _pattern(names: Iterable[str]) -> re.Pattern[bytes] | None:
    """A quote, one of the names (as a JSON string body), any backslashes, a quote."""
    bodies = sorted({form for name in names for form in _forms(name)}, key=len, reverse=True)
    if not bodies:
        return None
    return re.compile(rb'"(' + b"|".join(re.escape(b) for b in bodies) + rb')\\*"')


class Reach:
    """The run's record of which tools each frame named, and the guard that refuses a frame naming
    a tool the probe may not call. One per run, shared by every server process (thread-safe)."""

    def __init__(self, allow_mutating: bool) -> None:
        self.allow_mutating = allow_mutating
        self._lock = threading.Lock()
        self.risks: dict[str, str | None] = {}  # every tool listed, in order: why it may change data
        self.by_case: dict[str, list[str]] = {}  # case id -> the tools its frames named, in order
        self._all: re.Pattern[bytes] | None = None
        self._forbidden: re.Pattern[bytes] | None = None
        self._form: dict[bytes, str] = {}

    def learn(self, tools: Iterable[Any]) -> None:
        """Take the names and annotations of a `tools/list` answer (any process's)."""
        with self._lock:
            before = len(self.risks)
            changed = False
            for entry in tools:
                name = entry.get("name") if isinstance(entry, dict) else None
                if not isinstance(name, str):
                    continue
                risk = mutation_risk(entry)
                if name not in self.risks or (risk is not None and self.risks[name] is None):
                    self.risks[name] = risk  # listed twice, or again: any "may change data" wins
                    changed = True
                    for form in _forms(name):
                        self._form.setdefault(form, name)
            if changed or len(self.risks) != before:
                self._all = _pattern(self.risks)
                self._forbidden = _pattern(self.forbidden)

    @property
    def forbidden(self) -> dict[str, str]:
        """The tools no frame may name, each with the reason (none with --allow-mutating)."""
        if self.allow_mutating:
            return {}
        return {name: risk for name, risk in self.risks.items() if risk is not None}

    def forbidden_in(self, data: bytes) -> list[str]:
        """The forbidden tools `data` names (as a whole JSON string), in order, each once."""
        pattern = self._forbidden
        return self._names(pattern, data) if pattern is not None else []

    def _names(self, pattern: re.Pattern[bytes], data: bytes) -> list[str]:
        return list(dict.fromkeys(self._form[m.group(1)] for m in pattern.finditer(data)))

    def sent(self, case: str, data: bytes) -> None:
        """Record the tools a frame of `case` names; refuse it (`UnsafeFrame`) if one is forbidden."""
        bad = self.forbidden_in(data)
        if bad:
            raise UnsafeFrame(
                f"mcptape probe refused to send a frame of {case} that names {escape_text(bad[0])} "
                f"({self.forbidden[bad[0]]}) without --allow-mutating",
                hint="this is a bug in mcptape probe: please report it with the command line",
            )
        pattern = self._all
        if pattern is None:
            return
        named = self._names(pattern, data)
        if named:
            with self._lock:
                tools = self.by_case.setdefault(case, [])
                tools.extend(n for n in named if n not in tools)

    def share(self, case: str, cases: Iterable[str]) -> None:
        """What `case`'s frames named is each of `cases`'s (their one process, sent under `case`)."""
        named = self.by_case.pop(case, [])
        for other in cases:
            tools = self.by_case.setdefault(other, [])
            tools.extend(n for n in named if n not in tools)

    def table(self, order: dict[str, int] | None = None) -> list[dict[str, Any]]:
        """Per listed tool: the cases whose frames named it (in `order`, the report's, else as
        sent), whether any could have run it (each such frame carries its name, so a server that
        tolerates the fault runs it), and why a tool no frame named was not tested."""
        rows = []
        rank = order or {}
        for name, risk in self.risks.items():
            cases = [case for case, tools in self.by_case.items() if name in tools]
            cases.sort(key=lambda case: rank.get(case, len(rank)))
            why = None
            if not cases:
                why = NOT_TESTED if name in self.forbidden else "no frame named it"
            rows.append(
                {
                    "tool": name,
                    "may_change_data": risk,
                    "cases": cases,
                    "could_run": bool(cases),
                    "not_tested": why,
                }
            )
        return rows

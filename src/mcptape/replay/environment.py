"""The environment a replayed server starts with, and what differs from the recorded one.

A transcript's header records its server's variable names, and the values of LANG, LANGUAGE,
LC_* and TZ (`transcript.envnames`). A replay starts the new server with the recorded names only:

    --env NAME=VALUE      the value given (a name the recording did not have is added)
    a recorded value      LANG, LANGUAGE, LC_*, TZ as recorded
    the replayer's value  any other recorded name, when this process has it
    (none of these)       left unset, and said: an invented value would be one the recorded
                          server never saw

and nothing else of the replayer's environment: a variable the recorded server did not have
(a CI runner's, a virtualenv's) never reaches the new one. `--inherit-env` keeps the replayer's
whole environment (the behaviour before names were recorded), `--env` still applied; a transcript
without a recorded environment is replayed that way too. mcptape's own variables (the executor
tap, the HTTP sink's proxies, the stubs' PATH) are set on top, as at record time.

`explain` says which differing messages show a variable that differs: its name in a changed
value (a tool that dumps its environment), or the value it had on one side.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcptape.diff.compare import MISSING
from mcptape.diff.sessions import Diff
from mcptape.errors import UsageError
from mcptape.jsonsafe import dumps
from mcptape.replay.titles import pair_title
from mcptape.textsafe import escape_text
from mcptape.transcript.envnames import recorded_env

RECORDED, INHERITED, UNRECORDED = "recorded", "inherited", "unrecorded"
SHOWN_NAMES = 8
MIN_VALUE = 3  # a shorter value ("C", "1") is found everywhere: it explains nothing


@dataclass(frozen=True)
class Environment:
    """The new server's environment (`env`, before mcptape's own variables) and how it was made:
    `mode` is `recorded` (the recorded names), `inherited` (--inherit-env) or `unrecorded` (the
    transcript records none: the replayer's). The other members name what differs from the
    recording: names set by --env, recorded names left unset, recorded values that differ here,
    and (inherited) names the recording did not have."""

    mode: str
    env: dict[str, str] = field(repr=False)
    recorded: tuple[str, ...] = ()
    recorded_values: dict[str, str] = field(default_factory=dict)
    given: tuple[str, ...] = ()
    unset: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()  # LANG, LC_*, TZ: recorded with a value, another one here
    extra: tuple[str, ...] = ()  # inherited: names here the recording did not have

    @property
    def differs(self) -> bool:
        return bool(self.given or self.unset or self.changed or self.extra)

    def differing(self) -> list[str]:
        """Every name whose value may differ from the recorded server's."""
        return list(dict.fromkeys([*self.given, *self.unset, *self.changed, *self.extra]))


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """`--env NAME=VALUE` items as a mapping (the last one of a name wins); UsageError for a bad one."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or "\0" in item:
            raise UsageError(
                f"--env {escape_text(item)!r} is not NAME=VALUE", hint="e.g. --env TZ=UTC (repeatable)"
            )
        out[name] = value
    return out


def environment_for(
    extra: Mapping[str, Any],
    given: Mapping[str, str],
    *,
    inherit: bool = False,
    here: Mapping[str, str] | None = None,
) -> Environment:
    """The new server's environment for a transcript whose header's extra members are `extra`
    (`here` is the replayer's environment, default this process's). UsageError for a header whose
    `env` member is not one mcptape writes."""
    base = dict(os.environ if here is None else here)
    try:
        recorded = recorded_env(extra)
    except ValueError as exc:
        raise UsageError(
            f"the transcript's header has an env member mcptape did not write: {exc}",
            hint="fix or remove the header's env member (--inherit-env replays without it)",
        ) from None
    given_names = tuple(sorted(given))
    if recorded is None:
        return Environment(UNRECORDED, {**base, **given}, given=given_names)
    values = recorded.values
    if inherit:
        env = {**base, **given}
        names = set(recorded.names)
        return Environment(
            INHERITED,
            env,
            recorded.names,
            values,
            given=given_names,
            unset=tuple(n for n in recorded.names if n not in env),
            changed=_changed(values, env, given),
            extra=tuple(sorted(n for n in base if n not in names and n not in given)),
        )
    env = {}
    unset = []
    for name in recorded.names:
        if name in values:
            env[name] = values[name]
        elif name in base:
            env[name] = base[name]
        else:
            unset.append(name)
    env.update(given)
    return Environment(
        RECORDED,
        env,
        recorded.names,
        values,
        given=given_names,
        unset=tuple(n for n in unset if n not in given),
        changed=_changed(values, env, given),
    )


def _changed(values: Mapping[str, str], env: Mapping[str, str], given: Mapping[str, str]) -> tuple[str, ...]:
    """Recorded values (LANG, LC_*, TZ) that this replay does not give as recorded (--env aside)."""
    return tuple(n for n, v in values.items() if n not in given and env.get(n) != v)


def explain(diff: Diff, environment: Environment) -> list[tuple[str, list[str]]]:
    """The differing messages a differing variable may explain: (title, names), in diff order.
    A name explains a message when a changed value names it, or holds the value it has on one side
    (the recorded value on the old side, this replay's on the new one)."""
    names = environment.differing()
    if not names:
        return []
    patterns = {n: re.compile(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])") for n in names}
    found = []
    for pair in diff.differing:
        olds = [_text(c.old) for c in pair.changes]
        news = [_text(c.new) for c in pair.changes]
        wheres = [c.where for c in pair.changes]
        hits = []
        for name in names:
            if any(patterns[name].search(t) for t in (*olds, *news, *wheres)):
                hits.append(name)
                continue
            old_value = environment.recorded_values.get(name)
            new_value = environment.env.get(name)
            if _holds(olds, old_value) or (new_value != old_value and _holds(news, new_value)):
                hits.append(name)
        if hits:
            found.append((pair_title(pair), hits))
    return found


def _holds(texts: list[str], value: str | None) -> bool:
    return value is not None and len(value) >= MIN_VALUE and any(value in t for t in texts)


def _text(value: Any) -> str:
    if value is None or value is MISSING:  # MISSING: the side where the member does not exist
        return ""
    return value if isinstance(value, str) else dumps(value)


def environment_lines(environment: Environment | None, diff: Diff) -> list[str]:
    """The report's notes: how the environment differed from the recorded one, and which differing
    messages that may explain (nothing when the recorded environment was reproduced)."""
    if environment is None:
        return []
    out = []
    if environment.unset:
        out.append(
            f"note: environment: {len(environment.unset)} recorded variable(s) have no value here and were "
            f"left unset: {_names(environment.unset)} (--env NAME=VALUE sets one)"
        )
    if environment.given:
        out.append(f"note: environment: set by --env: {_names(environment.given)}")
    if environment.changed:
        shown = ", ".join(
            f"{escape_text(n)} (recorded {escape_text(environment.recorded_values[n])!r}, "
            f"here {escape_text(environment.env.get(n, '(unset)'))!r})"
            for n in environment.changed[:SHOWN_NAMES]
        )
        out.append(f"note: environment: recorded values not reproduced: {shown}")
    if environment.extra:
        out.append(
            f"note: environment: --inherit-env passed {len(environment.extra)} variable(s) the recorded "
            f"server did not have: {_names(environment.extra)}"
        )
    for title, names in explain(diff, environment)[:SHOWN_NAMES]:
        out.append(
            f"note: {title} may differ because of the environment: it shows {_names(names)}, "
            "which differed from the recording's (see above)"
        )
    return out


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(escape_text(n) for n in names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    return shown + (f" and {more} more" if more > 0 else "")


def environment_json(environment: Environment | None, diff: Diff) -> dict[str, Any] | None:
    """The same as a JSON value (values are shown for LANG, LC_* and TZ only; never a given one)."""
    if environment is None:
        return None
    return {
        "mode": environment.mode,
        "recorded_names": len(environment.recorded),
        "given": list(environment.given),
        "unset": list(environment.unset),
        "changed": [
            {"name": n, "recorded": environment.recorded_values[n], "here": environment.env.get(n)}
            for n in environment.changed
        ],
        "extra": list(environment.extra),
        "explains": [{"title": title, "names": names} for title, names in explain(diff, environment)],
    }

"""Replay a recorded session against a new build, and diff two sessions.

    import mcptape
    mcptape.replay("session.jsonl", ["python", "-m", "my_server"]).assert_same()

`mcptape.replay` is this package, and calling it calls `replay` (`mcptape.replay.api.replay`).
Public API (see docs/replay.md):

    replay(path, command=None, *, output=None, ignore=(), pace=None, step_timeout=None,
           shutdown_timeout=2.0, stderr=None, env=None, cwd=None, config=True, ...,
           http_upstream=None, allow_remote=False) -> ReplayResult   (stdio or HTTP, as recorded)
    replay_with(path, command, settings) -> ReplayResult;  ReplaySettings.resolve(...) -> ReplaySettings
    diff_files(old, new, *, ignore=(), stderr=False, config=False) -> Diff
    diff_events(old_events, new_events, rules=(), *, stderr=False) -> Diff      (pure)
    parse_rule(text) -> Rule;  load_config(start=None) -> Config
    ReplayResult: .same .exit_code .diff .run .new .render() .to_json() .assert_same() .update()
    Diff: .pairs .differing .same .stdout_added/.stdout_removed .findings_added/.findings_removed
          .exit_old/.exit_new .hidden .unused_rules;  Pair: .kind .scope .key .old .new .request
          .changes (Change: .path .where .old .new .kind) .hidden (Hidden: .rule .path .old .new)
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from mcptape.lazy import lazy_attributes

if TYPE_CHECKING:
    from mcptape.diff.ignore import Rule, parse_rule
    from mcptape.diff.sessions import Diff, Pair, diff_events
    from mcptape.replay.api import ReplayResult, diff_files, replay, replay_with
    from mcptape.replay.config import Config, load_config
    from mcptape.replay.settings import ReplaySettings

__all__ = [
    "Config",
    "Diff",
    "Pair",
    "ReplayResult",
    "ReplaySettings",
    "Rule",
    "diff_events",
    "diff_files",
    "load_config",
    "parse_rule",
    "replay",
    "replay_with",
]

_WHERE = {
    "ReplayResult": "mcptape.replay.api",
    "diff_files": "mcptape.replay.api",
    "replay": "mcptape.replay.api",
    "replay_with": "mcptape.replay.api",
    "ReplaySettings": "mcptape.replay.settings",
    "Config": "mcptape.replay.config",
    "load_config": "mcptape.replay.config",
    "Diff": "mcptape.diff.sessions",
    "Pair": "mcptape.diff.sessions",
    "diff_events": "mcptape.diff.sessions",
    "Rule": "mcptape.diff.ignore",
    "parse_rule": "mcptape.diff.ignore",
}


__getattr__ = lazy_attributes(__name__, _WHERE)


class _CallableModule(types.ModuleType):
    """Lets `mcptape.replay(path, command)` work although `mcptape.replay` is this package."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from mcptape.replay.api import replay as _replay

        return _replay(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

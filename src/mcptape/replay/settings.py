"""`ReplaySettings`: every setting of a replay, resolved once from the options given, the project's
settings file (`[tool.mcptape]`, `replay.config`) and the defaults, in that order, and checked.

    settings = ReplaySettings.resolve(ignore=["tools/call:result._meta"], step_timeout=5)
    mcptape.replay.api.replay_with("s.jsonl", ["python", "-m", "my_server"], settings)

`mcptape replay`, `--learn`, the Python API (`mcptape.replay(...)`) and the pytest plugin build one
and hand it on; the stdio and HTTP drivers read it, never the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from mcptape.diff.ignore import Rule, parse_rule
from mcptape.errors import UsageError
from mcptape.limits import seconds_ok
from mcptape.replay.config import Config, load_config

CAUSAL, RECORDED = "causal", "recorded"
DEFAULT_STEP_TIMEOUT = 10.0
DEFAULT_SHUTDOWN_TIMEOUT = 2.0


@dataclass(frozen=True)
class ReplaySettings:
    """How to replay, whatever the transcript and the transport."""

    config: Config | None = None  # the settings file read (None: --no-config, or none given)
    rules: tuple[Rule, ...] = ()  # the configured ignore rules, then the given ones
    pace: str = CAUSAL
    step_timeout: float = DEFAULT_STEP_TIMEOUT
    shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT
    stderr: bool = False  # compare stderr lines
    stubs: tuple[str, ...] = ()  # commands replaced with recording stubs (besides the recorded ones)
    secrets: tuple[str, ...] = ()  # NAME=VALUE for a redacted transcript
    http_match: str | tuple[str, ...] | None = None  # the cassette's matching fields
    http_upstream: str | None = None  # where an HTTP transcript is replayed (None: the recorded URL)
    allow_remote: bool = False  # let http_upstream name a host that is not loopback
    keep_dir: str | os.PathLike[str] | None = None
    env: Mapping[str, str] | None = field(default=None, compare=False)  # the replayer's (None: os.environ)
    cwd: str | None = None  # where the server runs (None: the recorded folder for a recorded command)
    set_env: Mapping[str, str] = field(default_factory=dict, compare=False)  # --env NAME=VALUE
    inherit_env: bool = False  # the replayer's whole environment, not the recorded names
    allow_mutating: bool = False  # send tools/call of tools that may change data (replay.guard)

    @classmethod
    def resolve(
        cls,
        *,
        config: Config | bool = True,
        ignore: Iterable[str | Rule] = (),
        pace: str | None = None,
        step_timeout: float | None = None,
        shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
        stderr: bool | None = None,
        stubs: Sequence[str] = (),
        secrets: Sequence[str] = (),
        http_match: str | Sequence[str] | None = None,
        http_upstream: str | None = None,
        allow_remote: bool = False,
        keep_dir: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        set_env: Sequence[str] | Mapping[str, str] = (),
        inherit_env: bool = False,
        allow_mutating: bool | None = None,
    ) -> ReplaySettings:
        """The options given, else the settings file's (`config=True`: the nearest one; a `Config`;
        False: none), else the defaults. UsageError for a pace or a timeout out of range, or an
        `--env` item that is not NAME=VALUE. `env` is the environment the recorded names take their
        values from (default: this process's); `set_env` the variables given; `inherit_env` passes
        all of `env` (see `replay.environment`). `allow_mutating`: given, else the settings file's
        `allow-mutating`, else MCPTAPE_ALLOW_MUTATING in this process's environment (`replay.guard`).
        Long only by its keywords: one a setting, each resolved in a line or two."""
        from mcptape.replay.environment import parse_assignments
        from mcptape.replay.guard import allowed_by_env

        assigned = dict(set_env) if isinstance(set_env, Mapping) else parse_assignments(set_env)
        cfg = config_of(config)
        pace = pace or (cfg.pace if cfg is not None and cfg.pace else CAUSAL)
        if pace not in (CAUSAL, RECORDED):
            raise UsageError(f"unknown pace {pace!r}", hint="use causal or recorded")
        timeout = step_timeout or (
            cfg.step_timeout if cfg is not None and cfg.step_timeout else DEFAULT_STEP_TIMEOUT
        )
        for name, seconds in (("step timeout", timeout), ("shutdown timeout", shutdown_timeout)):
            if not seconds_ok(seconds, min_open=name == "step timeout"):  # a thread cannot wait 1e300 s
                raise UsageError(
                    f"the {name} {seconds!r} is out of range", hint="give seconds, at most 86400"
                )
        match = http_match if http_match is None or isinstance(http_match, str) else tuple(http_match)
        return cls(
            config=cfg,
            rules=tuple(rules_of(ignore, cfg)),
            pace=pace,
            step_timeout=timeout,
            shutdown_timeout=shutdown_timeout,
            stderr=stderr if stderr is not None else (cfg.stderr if cfg is not None else False),
            stubs=tuple(stubs),
            secrets=tuple(secrets),
            http_match=match,
            http_upstream=http_upstream,
            allow_remote=allow_remote,
            keep_dir=keep_dir,
            env=env,
            cwd=cwd,
            set_env=assigned,
            inherit_env=inherit_env,
            allow_mutating=_first_set(allow_mutating, cfg.allow_mutating if cfg is not None else None)
            or (allow_mutating is None and (cfg is None or cfg.allow_mutating is None) and allowed_by_env()),
        )


def _first_set(*values: bool | None) -> bool:
    """The first value given (not None), else False."""
    return next((v for v in values if v is not None), False)


def config_of(config: Config | bool) -> Config | None:
    """`True`: the nearest settings file's; a `Config` as it is; False: none."""
    return load_config() if config is True else (config if isinstance(config, Config) else None)


def rules_of(ignore: Iterable[str | Rule], config: Config | None) -> list[Rule]:
    """The configured rules, then the given ones (strings parsed as `--ignore` rules)."""
    rules = list(config.ignore) if config is not None else []
    for rule in ignore:
        rules.append(rule if isinstance(rule, Rule) else parse_rule(rule))
    return rules

"""Judge `tools/call` arguments against the inputSchema a server declared, with full JSON Schema.

The validator is the `jsonschema` library (the one the official Python SDK depends on), in the
dialect the schema names in `$schema`, else the revision's default: JSON Schema 2020-12 from
2025-11-25 on ("When a schema does not include a `$schema` field, it defaults to JSON Schema
2020-12"), draft-07 before (what the SDKs of those revisions generated). Formats are annotations,
as both dialects say by default: `"format": "email"` is not asserted.

A schema is compiled once and cached (by identity, then by content), and every violation of a call
is reported, up to a cap. A schema the checker cannot judge says so in `Compiled.problem` and
judges nothing, rather than risk a finding on a correct server:

* invalid against its dialect's metaschema (`{"type": 5}`), or an unknown `$schema`;
* a `$ref` that does not resolve inside the schema: network URIs are never fetched (2026-07-28:
  "Implementations MUST NOT automatically dereference `$ref` values that resolve to a network URI");
* hostile: deeper than `MAX_SCHEMA_DEPTH`, more than `MAX_SCHEMA_NODES` subschemas, or a validation
  that needs more than `MAX_STEPS` applicator steps (`$ref`, `anyOf`, `oneOf`, `allOf`, `not`,
  `if`) -- the spec's "maximum schema depth, a cap on the total number of subschemas, or a
  per-validation time budget" against a schema used "as a Denial-of-Service vector".

Two more bounds keep a hostile *value* from stalling the check: a `pattern` that can backtrack
catastrophically (a quantified group that holds a quantifier, `(a+)+`) or a string longer than
`MAX_PATTERN_INPUT` is not matched, and `uniqueItems` is not judged on arrays longer than
`MAX_UNIQUE_ITEMS`. A value nested too deep for the validator is reported as unjudged, not judged.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

import orjson

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"

MAX_SCHEMA_DEPTH = 48
MAX_SCHEMA_NODES = 20_000
MAX_STEPS = 20_000
MAX_PROBLEMS = 20
MAX_PATTERN_INPUT = 65_536
MAX_UNIQUE_ITEMS = 2_000
MAX_MESSAGE = 200
_CACHE_SIZE = 256

# Revisions whose schema dialect defaults to 2020-12 (the "JSON Schema Usage" section).
_MODERN_DIALECT = ("2025-11-25", "2026-07-28")


def default_dialect(protocol_version: str | None) -> str:
    """The dialect of a schema without `$schema` in a session of this protocol revision.

    2020-12 from 2025-11-25 on, and when the revision is unknown or later than the ones we know
    (revisions are dates, so they compare as strings); draft-07 for the earlier revisions.
    """
    if protocol_version is None or protocol_version >= _MODERN_DIALECT[0]:
        return DRAFT_2020_12
    return DRAFT_07


@dataclass(slots=True)
class Compiled:
    """A schema ready to judge values: its validator, or why it cannot judge (`problem`).

    A schema that once needed more than `MAX_STEPS` steps is hostile: it stops judging at once
    (its `validator` is dropped), so a transcript that calls it a thousand times stays fast.
    """

    validator: Any
    problem: str | None = None

    @property
    def judges(self) -> bool:
        return self.validator is not None

    def violations(self, value: Any, limit: int = MAX_PROBLEMS, path: str = "arguments") -> list[str]:
        """Every way `value` falls outside the schema (at most `limit`), one sentence each."""
        return [describe(error, path) for error in self.errors(value, limit)]

    def errors(self, value: Any, limit: int = MAX_PROBLEMS) -> list[Any]:
        """The validator's errors for `value` (at most `limit`): [] when it fits or cannot be judged."""
        if self.validator is None:
            return []
        _budget.steps = 0
        try:
            errors = list(islice(self.validator.iter_errors(value), limit))
        except _OverBudget:
            self._over_budget()
            return []
        except RecursionError:
            return []
        except Exception as exc:  # a $ref that does not resolve surfaces only while validating
            if _is_unresolvable(exc):
                return []
            raise
        return errors

    def _over_budget(self) -> None:
        self.validator = None
        self.problem = f"needs more than {MAX_STEPS} steps to judge a value (hostile or runaway schema)"

    def unjudged(self, value: Any) -> str | None:
        """Why judging `value` gave no answer (None when it did), for a caller that must know."""
        if self.validator is None:
            return self.problem
        _budget.steps = 0
        try:
            for _ in self.validator.iter_errors(value):
                pass
        except _OverBudget:
            self._over_budget()
            return self.problem
        except RecursionError:
            return "the value or the schema is nested too deep to judge"
        except Exception as exc:
            if _is_unresolvable(exc):
                return f"a $ref does not resolve inside the schema: {_short(str(exc))}"
            raise
        return None


def violations(
    value: Any, schema: Any, *, limit: int = MAX_PROBLEMS, dialect: str = DRAFT_2020_12
) -> list[str]:
    """Every way `value` falls outside `schema` (at most `limit`); [] when it fits or cannot be judged."""
    return compile_schema(schema, dialect).violations(value, limit)


def violation(value: Any, schema: Any, *, dialect: str = DRAFT_2020_12) -> str | None:
    """The first way `value` falls outside `schema`, as one sentence, or None."""
    found = compile_schema(schema, dialect).violations(value, 1)
    return found[0] if found else None


def schema_problem(schema: Any, dialect: str = DRAFT_2020_12) -> str | None:
    """Why `schema` cannot be used to judge arguments (invalid, hostile, unknown dialect), or None."""
    return compile_schema(schema, dialect).problem


_by_id: dict[tuple[int, str], tuple[Any, Compiled]] = {}
_by_content: dict[bytes, Compiled] = {}
_lock = threading.Lock()


def compile_schema(schema: Any, dialect: str = DRAFT_2020_12) -> Compiled:
    """The compiled form of `schema`, from the cache when this schema (or an equal one) was seen."""
    key = (id(schema), dialect)
    hit = _by_id.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    try:
        content = dialect.encode() + b"\0" + orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        content = None
    compiled = _by_content.get(content) if content is not None else None
    if compiled is None:
        compiled = _compile(schema, dialect)
    with _lock:
        if len(_by_id) >= _CACHE_SIZE:
            _by_id.clear()
        _by_id[key] = (schema, compiled)  # holding the schema keeps its id from being reused
        if content is not None:
            if len(_by_content) >= _CACHE_SIZE:
                _by_content.clear()
            _by_content[content] = compiled
    return compiled


def _compile(schema: Any, dialect: str) -> Compiled:
    if type(schema) is bool:
        schema_dialect = dialect
    elif type(schema) is not dict:
        return Compiled(None, f"not a JSON Schema (a JSON {_json_type(schema)}, not an object)")
    else:
        declared = schema.get("$schema", dialect)
        if type(declared) is not str:
            return Compiled(None, "$schema is not a string")
        schema_dialect = declared
    size = _measure(schema)
    if size is not None:
        return Compiled(None, size)
    classes = _validators()
    cls = classes.get(schema_dialect.rstrip("#")) or classes.get(schema_dialect)
    if cls is None:
        return Compiled(None, f"unsupported JSON Schema dialect {_short(schema_dialect)!r}")
    from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return Compiled(None, f"not a valid schema ({where or 'top level'}: {_short(exc.message)})")
    except RecursionError:
        return Compiled(None, "nested too deep to check")
    except OverflowError as exc:  # a "pattern" Python's re cannot compile: a{99999999999}
        return Compiled(None, f"not a valid schema ({_short(str(exc))})")
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    # The registry holds the metaschemas only and cannot retrieve: a remote $ref stays unresolved.
    return Compiled(cls(schema, registry=REGISTRY))


def _measure(schema: Any) -> str | None:
    """Why `schema` is too deep or too large to compile safely, walking it without recursion."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return f"nested deeper than {MAX_SCHEMA_DEPTH} levels"
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return f"more than {MAX_SCHEMA_NODES} nodes"
        if type(node) is dict:
            stack.extend((child, depth + 1) for child in node.values() if type(child) in (dict, list))
        elif type(node) is list:
            stack.extend((child, depth + 1) for child in node if type(child) in (dict, list))
    return None


class _OverBudget(Exception):
    pass


class _Budget(threading.local):
    steps = 0


_budget = _Budget()
_classes: dict[str, Any] = {}

# A group holding a quantifier, itself quantified: (a+)+, (x*y)*, (a|aa){2,} ...
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,)")


def _validators() -> dict[str, Any]:
    """The two dialects' validator classes, with bounded applicators, pattern and uniqueItems."""
    if _classes:
        return _classes
    from jsonschema import validators  # type: ignore[import-untyped]

    def bounded(keyword: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        def step(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
            _budget.steps += 1
            if _budget.steps > MAX_STEPS:
                raise _OverBudget
            yield from keyword(validator, value, instance, schema)

        return step

    plain = validators.Draft202012Validator.VALIDATORS
    plain_pattern, plain_unique = plain["pattern"], plain["uniqueItems"]

    def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if type(instance) is str and (
            len(instance) > MAX_PATTERN_INPUT or _NESTED_QUANTIFIER.search(str(patrn))
        ):
            return
        yield from plain_pattern(validator, patrn, instance, schema)

    def unique(validator: Any, unique_items: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if type(instance) is list and len(instance) > MAX_UNIQUE_ITEMS:
            return
        yield from plain_unique(validator, unique_items, instance, schema)

    applicators = ("$ref", "$dynamicRef", "anyOf", "oneOf", "allOf", "not", "if")
    for uri, base in (
        (DRAFT_2020_12, validators.Draft202012Validator),
        (DRAFT_07, validators.Draft7Validator),
        ("http://json-schema.org/draft-06/schema#", validators.Draft6Validator),
        ("http://json-schema.org/draft-04/schema#", validators.Draft4Validator),
        ("https://json-schema.org/draft/2019-09/schema", validators.Draft201909Validator),
    ):
        changed: dict[str, Any] = {"pattern": pattern, "uniqueItems": unique}
        for name in applicators:
            if name in base.VALIDATORS:
                changed[name] = bounded(base.VALIDATORS[name])
        cls = validators.extend(base, changed)
        _classes[uri.rstrip("#")] = cls
    return _classes


def _is_unresolvable(exc: Exception) -> bool:
    from referencing.exceptions import Unresolvable

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, Unresolvable):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def describe(error: Any, path: str = "arguments") -> str:
    """One validator error as a sentence: where (`arguments.days`) and what."""
    where = path + error.json_path[1:]
    return f"{where}: {_short(error.message)}"


def _short(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {str: "string", int: "number", float: "number", list: "array"}.get(type(value), "value")

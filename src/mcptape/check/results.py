"""The results (and MCP-defined errors) of a 2026-07-28 session against the revision's published
JSON Schema: `schema/2026-07-28/schema.json` of modelcontextprotocol/modelcontextprotocol, bundled
verbatim as `check/schemas/2026-07-28.json` (commit 271ecc9accafdd9b83a3c869fa67c22953b2af80).

The judge is the `jsonschema` library (the one check/schema.py uses for tool arguments), never a
hand-written field check: an image or audio block without `mimeType`, a `ttlMs` that is not an
integer, a `DiscoverResult` without `supportedVersions` are what the schema says they are. The
schema file is read once, and one validator is compiled per revision and result type, the first
time a session needs it (`_validator`): a session that never shows a `ReadResourceResult` never
builds its validator.

One fast path keeps `check` at the speed of its parses: a `tools/call` result whose content is
only plain text blocks (`{"type": "text", "text": "..."}`), `isError` a boolean or absent and no
`_meta` but one already judged valid, is valid by the schema's own definition of `CallToolResult`
(`plain_call`); every other result goes to the validator. tests/check/test_result_schema.py holds
the fast path against the validator on valid and damaged results.

What a dedicated rule reports already is left to it: a missing `resultType` (`missing-result-type`),
missing or invalid caching hints (`cache-hints`), an input request of a method MRTR does not allow
(`input-required-shape`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.model import At, RequestId
from mcptape.check.mrtr import Find
from mcptape.check.schema import describe

SCHEMAS = Path(__file__).with_name("schemas")
REVISION = "2026-07-28"

# The result type of each client request (server/* and the schema's `ServerResult` members).
RESULT_TYPES = {
    "server/discover": "DiscoverResult",
    "tools/call": "CallToolResult",
    "tools/list": "ListToolsResult",
    "prompts/get": "GetPromptResult",
    "prompts/list": "ListPromptsResult",
    "resources/read": "ReadResourceResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "completion/complete": "CompleteResult",
    "subscriptions/listen": "SubscriptionsListenResult",
}
INPUT_REQUIRED = "InputRequiredResult"
# The errors the revision defines a shape for (the whole JSON-RPC error response is judged).
ERROR_TYPES = {
    -32020: "HeaderMismatchError",
    -32021: "MissingRequiredClientCapabilityError",
    -32022: "UnsupportedProtocolVersionError",
}
MAX_REPORTED = 3
MEMO_BYTES = 4096  # values up to this size (serialised) keep their verdict in `_memo`
MEMO_SIZE = 1024
_memo: dict[tuple[str, str, str, bytes], list[str]] = {}
_LEFT = frozenset({"resultType", "ttlMs", "cacheScope"})  # missing-result-type, cache-hints
_REQUIRED_LEFT = frozenset(f"{name!r} is a required property" for name in _LEFT)


@cache
def _schema(revision: str) -> dict[str, Any]:
    """The revision's whole schema document, read once."""
    loaded: dict[str, Any] = orjson.loads((SCHEMAS / f"{revision}.json").read_bytes())
    return loaded


@cache
def _validator(revision: str, name: str) -> Any:
    """A validator of the revision's definition `name`, compiled the first time it is asked for."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    document = _schema(revision)
    root = {"$schema": document["$schema"], "$defs": document["$defs"], "$ref": f"#/$defs/{name}"}
    return Draft202012Validator(root)


def problems(value: Any, name: str, where: str = "result", revision: str = REVISION) -> list[str]:
    """How `value` breaks the revision's definition `name` (at most MAX_REPORTED sentences, each
    naming its place from `where`), leaving out what a dedicated rule reports; [] when it fits.

    A small value seen before (the same bytes once sorted) gets the verdict it got then: the
    validator takes about a millisecond a result, and sessions repeat their answers."""
    try:
        key = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return _problems(value, name, where, revision)
    if len(key) > MEMO_BYTES:
        return _problems(value, name, where, revision)
    memo_key = (revision, name, where, key)
    found = _memo.get(memo_key)
    if found is None:
        found = _problems(value, name, where, revision)
        if len(_memo) >= MEMO_SIZE:
            _memo.clear()
        _memo[memo_key] = found
    return list(found)


def _problems(value: Any, name: str, where: str, revision: str) -> list[str]:
    try:
        errors = list(_validator(revision, name).iter_errors(value))
    except RecursionError:
        return [f"{where}: nested too deep to judge against {name}"]
    found: list[str] = []
    for error in errors:
        for leaf in _leaves(error):
            if not _left_to_other_rules(leaf):
                found.append(describe(leaf, where))
        if len(found) >= MAX_REPORTED:
            break
    return found[:MAX_REPORTED]


def _leaves(error: Any) -> list[Any]:
    """The errors that say what is wrong: an `anyOf` of tagged definitions (a content block, an
    input request) is explained by the branch whose `type` or `method` constant the value has; an
    `anyOf` no branch of which claims the value stays as it is."""
    if error.validator != "anyOf" or not error.context:
        return [error]
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.schema_path[0], []).append(sub)
    for branch in by_branch.values():
        if not any(sub.validator == "const" and len(sub.relative_path) == 1 for sub in branch):
            return [leaf for sub in branch for leaf in _leaves(sub)]
    return [error]


def _left_to_other_rules(error: Any) -> bool:
    """An error a dedicated rule reports already (see the module's docstring)."""
    path = error.absolute_path
    if not path:
        return error.validator == "required" and error.message in _REQUIRED_LEFT
    if len(path) == 1 and path[0] in ("ttlMs", "cacheScope") and error.validator in ("minimum", "enum"):
        return True
    return path[0] == "inputRequests" and len(path) == 2 and error.validator == "anyOf"


def plain_call(result: dict[str, Any], meta: Any) -> bool:
    """True when `result` is a CallToolResult by the schema's definition, judged without the
    validator (`meta`: a `_meta` the validator accepted before: servers put the same `serverInfo` on
    every result); False means "ask the validator", not "invalid"."""
    content = result.get("content")
    if type(content) is not list or type(result.get("resultType")) is not str:
        return False
    for block in content:
        if type(block) is not dict or len(block) != 2 or block.get("type") != "text":
            return False
        if type(block.get("text")) is not str:
            return False
    error = result.get("isError", False)
    if error is not False and error is not True:
        return False
    return "_meta" not in result or (meta is not None and result["_meta"] == meta)


class ResultRules:
    """`result-schema` for one session: its results and MCP-defined errors against the schema."""

    def __init__(self, find: Find) -> None:
        self._find = find
        self.meta: Any = None  # a result `_meta` the validator accepted (see `plain_call`)

    def result(self, method: str, kind: Any, result: dict[str, Any], at: At, rid: RequestId) -> None:
        """A result of `kind` (its resultType) answering `method`."""
        if kind == "input_required":
            name = INPUT_REQUIRED
        elif method == "tools/call" and plain_call(result, self.meta):
            return
        else:
            found = RESULT_TYPES.get(method) if kind == "complete" else None
            if found is None:
                return  # a method or a result type the revision does not define: nothing to judge by
            name = found
        broken = problems(result, name)
        if broken:
            self._find(
                rules.RESULT_SCHEMA,
                at,
                f"the {method or 'request'} result breaks the 2026-07-28 schema ({name}): "
                + "; ".join(broken),
                rid,
            )
        elif name == "CallToolResult":
            meta = result.get("_meta")
            if type(meta) is dict:
                self.meta = meta

    def error(self, code: int, value: dict[str, Any], at: At, rid: RequestId) -> None:
        """An error response with a code the revision defines a shape for."""
        name = ERROR_TYPES[code]
        broken = problems(value, name, "response")
        if broken:
            self._find(
                rules.RESULT_SCHEMA,
                at,
                f"the {code} error breaks the 2026-07-28 schema ({name}): " + "; ".join(broken),
                rid,
            )

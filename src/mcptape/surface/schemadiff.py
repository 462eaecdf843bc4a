"""Two JSON Schemas compared for what they accept: narrowed, widened, or could not compare.

A tool's `inputSchema` is what a client may send: anything the old schema accepted and the new one
refuses breaks a client (a property removed, a required property added, a type narrowed, an enum
value removed, `additionalProperties` turned false, a bound tightened); accepting more is
compatible. An `outputSchema` is what a client reads: a field removed, a field no longer always
present, or a type changed or widened breaks it; less variety is compatible.

`$ref` is resolved with `referencing` (the library `jsonschema` resolves with: local references
only, a network URI is never fetched). Keywords whose effect this module does not model (`allOf`,
`not`, `if`, `patternProperties`, `prefixItems`, ... and `anyOf`/`oneOf` beyond a plain union of
types) are compared as whole values: when they differ the change is reported as "could not
compare", never ignored. Descriptions and titles inside a schema come back as text changes
(`Text`), judged by the caller. Depth is bounded (`MAX_DEPTH`): deeper is "could not compare".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from mcptape.surface.model import Severity, canonical
from mcptape.textsafe import escape_controls

BREAKING, COMPATIBLE, SUSPICIOUS = Severity.BREAKING, Severity.COMPATIBLE, Severity.SUSPICIOUS
MAX_DEPTH = 32
BASE_URI = "urn:mcptape:schema"
TEXT = ("description", "title")
ANNOTATIONS = frozenset({"examples", "default", "$comment", "deprecated", "readOnly", "writeOnly", "$schema"})
DEFINITIONS = frozenset({"$defs", "definitions", "$id", "$anchor", "$dynamicAnchor"})  # seen through $ref
LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")  # raising narrows
UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")  # lowering narrows
HANDLED = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "$ref",
        *LOWER,
        *UPPER,
    }
)
ALL_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


class Found(NamedTuple):
    """A change the comparison found: its severity, its JSON pointer, its words."""

    severity: Severity
    path: str
    detail: str


class Text(NamedTuple):
    """A description or title inside a schema that changed (the caller judges it)."""

    path: str
    old: str
    new: str


def _name(path: str) -> str:
    return escape_controls(path.rsplit("/", 1)[-1])


def _show(value: Any) -> str:
    text = canonical(value)
    return escape_controls(text if len(text) <= 60 else text[:57] + "...")


@dataclass
class Side:
    """One schema document: its root (to resolve `$ref` against) and its resolver."""

    root: Any

    def __post_init__(self) -> None:
        self.resolver = None
        if type(self.root) is dict:
            if type(self.root.get("$schema", "")) is str:  # the dialect it names, else 2020-12
                resource = Resource.from_contents(self.root, default_specification=DRAFT202012)
            else:  # a `$schema` that is not a string (5, a list, null) names no dialect
                resource = DRAFT202012.create_resource(self.root)
            self.resolver = Registry().with_resource(BASE_URI, resource).resolver(base_uri=BASE_URI)

    def resolve(self, schema: Any) -> tuple[Any, str | None]:
        """`schema` with its `$ref` followed (merged under its own keywords), or why it cannot be."""
        seen = 0
        while type(schema) is dict and type(schema.get("$ref")) is str:
            seen += 1
            if self.resolver is None or seen > MAX_DEPTH:
                return schema, f"$ref {_show(schema['$ref'])} loops or cannot be followed"
            try:
                target = self.resolver.lookup(schema["$ref"]).contents
            except (Unresolvable, Exception) as exc:  # a malformed pointer raises other errors too
                return (
                    schema,
                    f"$ref {_show(schema['$ref'])} does not resolve inside the schema ({type(exc).__name__})",
                )
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if type(target) is dict else target if not rest else schema
        return schema, None


class Comparison:
    """Compare `old` and `new` (the same definition's schema) as input or output."""

    def __init__(self, old: Any, new: Any, *, output: bool) -> None:
        self.old, self.new = Side(old), Side(new)
        self.output = output
        self.found: list[Found] = []
        self.texts: list[Text] = []
        self.following: set[tuple[str | None, str | None]] = set()  # the $ref pairs being compared
        self.same_definitions = _definitions(old) == _definitions(new)

    def run(self, path: str) -> None:
        self.compare(self.old.root, self.new.root, path, 0)

    def add(self, severity: Severity, path: str, detail: str) -> None:
        self.found.append(Found(severity, path, detail))

    def narrowed(self, path: str, detail: str) -> None:
        """`new` accepts less than `old` did: breaking for input, compatible for output."""
        self.add(COMPATIBLE if self.output else BREAKING, path, detail)

    def widened(self, path: str, detail: str) -> None:
        """`new` accepts more than `old` did: compatible for input, breaking for output."""
        self.add(BREAKING if self.output else COMPATIBLE, path, detail)

    def cannot(self, path: str, why: str) -> None:
        self.add(SUSPICIOUS, path, f"could not compare: {why}")

    def compare(self, old: Any, new: Any, path: str, depth: int) -> None:
        text = canonical(old)
        if text == canonical(new) and (self.same_definitions or '"$ref"' not in text):
            return
        if depth > MAX_DEPTH:
            self.cannot(path, f"nested deeper than {MAX_DEPTH} levels")
            return
        refs = (_ref(old), _ref(new))
        if refs in self.following:
            return  # a recursive schema met again: judged where it was first followed
        if refs != (None, None):
            self.following.add(refs)
        try:
            self._resolved(old, new, path, depth)
        finally:
            self.following.discard(refs)

    def _resolved(self, old: Any, new: Any, path: str, depth: int) -> None:
        old, why_old = self.old.resolve(old)
        new, why_new = self.new.resolve(new)
        if why_old or why_new:
            self.cannot(path, str(why_old or why_new))
            return
        if type(old) is bool or type(new) is bool or type(old) is not dict or type(new) is not dict:
            self._booleans(old, new, path)
            return
        for key in TEXT:
            a, b = old.get(key), new.get(key)
            if a != b and (type(a) in (str, type(None))) and type(b) in (str, type(None)):
                self.texts.append(Text(f"{path}/{key}", a or "", b or ""))
        self._types(old, new, path)
        self._values(old, new, path)
        self._bounds(old, new, path)
        if "properties" in old or "properties" in new or "required" in old or "required" in new:
            self._object(old, new, path, depth)
        if "additionalProperties" in old or "additionalProperties" in new:
            self._additional(
                old.get("additionalProperties", True), new.get("additionalProperties", True), path, depth
            )
        if "items" in old or "items" in new:
            a, b = old.get("items", True), new.get("items", True)
            if type(a) is list or type(b) is list:
                if canonical(a) != canonical(b):
                    self.cannot(f"{path}/items", "tuple items differ")
            else:
                self.compare(a, b, f"{path}/items", depth + 1)
        self._unmodelled(old, new, path)

    def _booleans(self, old: Any, new: Any, path: str) -> None:
        if old is True or old == {}:
            self.narrowed(path, "now restricted (it accepted anything)")
        elif new is True or new == {}:
            self.widened(path, "now accepts anything")
        elif new is False:
            self.narrowed(path, "now accepts nothing")
        elif old is False:
            self.widened(path, "accepted nothing before")
        else:
            self.cannot(path, "a schema that is not an object")

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        a, b = types_of(old), types_of(new)
        if a == b:
            return
        if a is None or b is None:
            if a is None and b is not None and not _composed(old):
                self.narrowed(f"{path}/type", f"type now {_types(b)} (any type before)")
            elif b is None and a is not None and not _composed(new):
                self.widened(f"{path}/type", f"type {_types(a)} no longer required (any type now)")
            return  # a composition: `_unmodelled` reports it
        lost, gained = _accepts(a) - _accepts(b), _accepts(b) - _accepts(a)
        what = f"type {_types(a)} -> {_types(b)}"
        if lost and gained:
            self.add(BREAKING, f"{path}/type", f"{what} (changed)")
        elif lost:
            self.narrowed(f"{path}/type", f"{what} (narrowed)")
        elif gained:
            self.widened(f"{path}/type", f"{what} (widened)")

    def _values(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        a, b = allowed_values(old), allowed_values(new)
        if a == b:
            return
        key = "enum" if "enum" in old or "enum" in new else "const"
        if a is None:
            self.narrowed(f"{path}/{key}", f"now limited to {len(b or {})} value(s)")
            return
        if b is None:
            self.widened(f"{path}/{key}", "no longer limited to listed values")
            return
        removed, added = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        if removed:
            self.narrowed(f"{path}/{key}", f"enum value(s) removed: {', '.join(map(_clip, removed))}")
        if added:
            self.widened(f"{path}/{key}", f"enum value(s) added: {', '.join(map(_clip, added))}")

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for keys, lower in ((LOWER, True), (UPPER, False)):
            for key in keys:
                a, b = old.get(key), new.get(key)
                if a == b:
                    continue
                where = f"{path}/{key}"
                if not all(type(v) in (int, float, type(None)) for v in (a, b)):
                    self.cannot(where, f"{key} is not a number")
                elif a is None:
                    self.narrowed(where, f"{key} {_show(b)} added")
                elif b is None:
                    self.widened(where, f"{key} {_show(a)} removed")
                elif (b > a) if lower else (b < a):
                    self.narrowed(where, f"{key} {_show(a)} -> {_show(b)} (tighter)")
                else:
                    self.widened(where, f"{key} {_show(a)} -> {_show(b)} (looser)")

    def _object(self, old: dict[str, Any], new: dict[str, Any], path: str, depth: int) -> None:
        a, b = old.get("properties", {}), new.get("properties", {})
        ra, rb = old.get("required", []), new.get("required", [])
        if type(a) is not dict or type(b) is not dict or type(ra) is not list or type(rb) is not list:
            if canonical([a, ra]) != canonical([b, rb]):
                self.cannot(path, "properties or required is not of the type JSON Schema gives it")
            return
        was, now = {r for r in ra if type(r) is str}, {r for r in rb if type(r) is str}
        field = "output field" if self.output else "property"
        for name in sorted(set(a) - set(b)):
            self.add(BREAKING, path + pointer("properties", name), f"{field} {_name(name)} removed")
        for name in sorted(set(b) - set(a)):
            where = path + pointer("properties", name)
            if self.output:
                self.add(COMPATIBLE, where, f"output field {_name(name)} added")
            elif name in now:
                self.add(BREAKING, where, f"required property {_name(name)} added")
            else:
                self.add(COMPATIBLE, where, f"optional property {_name(name)} added")
        for name in sorted(set(a) & set(b)):
            self.compare(a[name], b[name], path + pointer("properties", name), depth + 1)
            where = path + pointer("properties", name)
            if name in now and name not in was:
                self.narrowed(where, f"{field} {_name(name)} now required")
            elif name in was and name not in now:
                detail = "no longer always present" if self.output else "no longer required"
                self.widened(where, f"{field} {_name(name)} {detail}")
        for name in sorted((now - was) - set(a) - set(b)):
            self.narrowed(
                f"{path}/required", f"{_name(name)} now required (a property the schema does not describe)"
            )

    def _additional(self, old: Any, new: Any, path: str, depth: int) -> None:
        where = f"{path}/additionalProperties"
        if new is False and old is not False:
            self.narrowed(where, "additionalProperties turned false")
        elif old is False and new is not False:
            self.widened(where, "additionalProperties no longer false")
        elif type(old) is dict or type(new) is dict:
            self.compare(old, new, where, depth + 1)

    def _unmodelled(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for key in sorted(set(old) | set(new)):
            if key in HANDLED or key in TEXT or key in DEFINITIONS:
                continue
            a, b = old.get(key), new.get(key)
            if canonical(a) == canonical(b):
                continue
            if key in ANNOTATIONS:
                self.add(COMPATIBLE, f"{path}/{key}", f"{key} {_show(a)} -> {_show(b)} (an annotation)")
            elif key in ("anyOf", "oneOf") and types_of(old) is not None and types_of(new) is not None:
                continue  # a plain union of types: judged by `_types`
            else:
                self.cannot(f"{path}/{key}", f"{key} changed ({_show(a)} -> {_show(b)})")


def _ref(schema: Any) -> str | None:
    ref = schema.get("$ref") if type(schema) is dict else None
    return ref if type(ref) is str else None


def _definitions(root: Any) -> str:
    """The canonical text of what a `$ref` can reach besides the properties themselves."""
    return canonical({k: v for k, v in root.items() if k in DEFINITIONS}) if type(root) is dict else ""


def types_of(schema: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema accepts, when it says so plainly (`type`, or an `anyOf`/`oneOf` of
    branches that each give only a `type`), else None (any type, or not plain)."""
    if "type" in schema:
        value = schema["type"]
        listed = [value] if type(value) is str else value if type(value) is list else None
        if listed is None or not all(type(t) is str for t in listed):
            return None
        return frozenset(listed)
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if type(branches) is list and branches:
            found: set[str] = set()
            for branch in branches:
                if type(branch) is not dict or set(branch) - {"type", *TEXT} or "type" not in branch:
                    return None
                inner = types_of(branch)
                if inner is None:
                    return None
                found |= inner
            return frozenset(found)
    return None


def _composed(schema: dict[str, Any]) -> bool:
    return any(k in schema for k in ("anyOf", "oneOf", "allOf", "not", "if"))


def _accepts(types: frozenset[str]) -> frozenset[str]:
    """The types of values accepted: "number" accepts integers too."""
    return types | {"integer"} if "number" in types else types


def _types(types: frozenset[str]) -> str:
    return "|".join(sorted(escape_controls(t) for t in types))


def allowed_values(schema: dict[str, Any]) -> frozenset[str] | None:
    """The canonical texts of the values `enum`/`const` allow, or None when not limited."""
    if "const" in schema:
        return frozenset([canonical(schema["const"])])
    values = schema.get("enum")
    if type(values) is list:
        return frozenset(canonical(v) for v in values)
    return None


def _clip(text: str) -> str:
    return escape_controls(text if len(text) <= 40 else text[:37] + "...")


def compare_schemas(old: Any, new: Any, path: str, *, output: bool) -> tuple[list[Found], list[Text]]:
    """What changed between two schemas of one definition (`path`: the schema's JSON pointer)."""
    comparison = Comparison(old, new, output=output)
    comparison.run(path)
    return comparison.found, comparison.texts


def pointer(*parts: str) -> str:
    """A JSON pointer from member names (`~` and `/` escaped as RFC 6901 says)."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def walk_texts(schema: Any) -> Iterator[str]:
    """Every description and title inside a schema (for a new definition's flags)."""
    todo = [(schema, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_DEPTH:
            continue
        if type(node) is dict:
            for key, value in node.items():
                if key in TEXT and type(value) is str:
                    yield value
                elif type(value) in (dict, list):
                    todo.append((value, depth + 1))
        elif type(node) is list:
            todo.extend((item, depth + 1) for item in node)

"""The shape of one line around its string tokens (see `jsonscan`): how far an array or object
reaches, which tokens are member names, whether an object is a JSON Schema, a `Host` header pair.

Like `jsonscan`, this reads any text, JSON or not, by the raw positions of its string tokens and
brackets between them; the redactor uses it to find every value under a secret key.
"""

from __future__ import annotations

import re
from typing import Any

from mcptape.share.jsonscan import Decoded

COLON = re.compile(r"[ \t\r]*:[ \t\r]*")  # after a string token: it is a member name


class Scan:
    """The string tokens of one line, and how far a secret container already reached (a key
    inside it needs no second look: its value is replaced already)."""

    __slots__ = ("budget", "covered", "tokens")

    def __init__(self, tokens: list[re.Match[str]]) -> None:
        self.tokens = tokens
        self.covered = 0  # token index from which a secret key's value must still be looked at
        self.budget = 4 * len(tokens) + 1024  # tokens scanned for containers in this line

    def container(self, text: str, i: int, at: int) -> tuple[list[tuple[int, bool]], int]:
        """The tokens inside the array or object opening at `at` (after key token `i`), each with
        whether it is a member name, and the offset just past its closing bracket (or the end of
        the line). Past the line's scan budget (containers nested in one another many times over)
        the container is taken to run to the end of the line: more is replaced, never less."""
        members: list[tuple[int, bool]] = []
        depth = 0
        pos = at
        tokens = self.tokens
        for j in range(i + 1, len(tokens) + 1):
            stop = tokens[j].start() if j < len(tokens) else len(text)
            for bracket in BRACKET.finditer(text, pos, stop):
                depth += 1 if bracket.group() in "[{" else -1
                if depth <= 0:
                    return members, bracket.end()
            if j == len(tokens):
                break
            self.budget -= 1
            if self.budget < 0:
                members.extend(
                    (k, COLON.match(text, tokens[k].end()) is not None) for k in range(j, len(tokens))
                )
                return members, len(text)
            members.append((j, COLON.match(text, tokens[j].end()) is not None))
            pos = tokens[j].end()
        return members, len(text)


# The keywords of a JSON Schema object: an object under a secret key whose member names are all
# among them describes a secret (a tool's inputSchema), it does not hold one.
SCHEMA_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "title",
        "format",
        "pattern",
        "enum",
        "const",
        "default",
        "examples",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "properties",
        "required",
        "items",
        "prefixItems",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$id",
        "$schema",
        "$defs",
        "definitions",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentEncoding",
        "contentMediaType",
        "nullable",
        "x-sensitive",
        "sensitive",
        "secret",
    }
)
# A JSON string `"Host"` then `,` or `:`: the next string is an authority, `user:password@host`.
HOST_PAIR = re.compile(r'"(?i:host)"[ \t]*[,:][ \t]*')
USERINFO = re.compile(r"[^/\s:@]*:(?P<s>[^/\s@]+)@")
BRACKET = re.compile(r"[\[\]{}]")
GAP_NUMBER = re.compile(r"(?<![\w.+-])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def schema_keys(obj: dict[Any, Any]) -> bool:
    return bool(obj) and all(isinstance(k, str) and k in SCHEMA_KEYWORDS for k in obj)


def is_schema(text: str, at: int, tokens: list[re.Match[str]], members: list[tuple[int, bool]]) -> bool:
    """Is the object opening at `at`, whose tokens are `members`, a JSON Schema (every member name
    of its own level a schema keyword)?"""
    names = []
    level = 0
    pos = at + 1
    for j, is_key in members:
        gap = text[pos : tokens[j].start()]
        level += gap.count("[") + gap.count("{") - gap.count("]") - gap.count("}")
        if is_key and level == 0:
            names.append(key_text(tokens[j].group()))
        pos = tokens[j].end()
    return bool(names) and all(name in SCHEMA_KEYWORDS for name in names)


def in_string(replacement: str) -> str:
    """A replacement made inside JSON held in a string, written for the string around it."""
    return replacement.replace("\\", "\\\\").replace('"', '\\"')


def key_text(token: str) -> str:
    contents = token[1:-1]
    return Decoded(contents).text if "\\" in contents else contents

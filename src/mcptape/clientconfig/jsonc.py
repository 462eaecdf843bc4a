"""A JSON-with-comments reader that remembers where every value is in the text.

Client configs are edited by people: VS Code's `mcp.json` is JSONC (`//` and `/* */` comments,
trailing commas). `wrap` must change one server entry and leave every other byte alone, comments
included, so this reader returns a tree of spans (`Node.start`/`Node.end`, offsets into the text)
and the editor splices new text into the old. Plain JSON is JSONC without comments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class JSONCError(ValueError):
    """The text is not JSON (nor JSON with comments): `line`, `column` and what was expected."""

    def __init__(self, message: str, text: str, offset: int) -> None:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"line {line}, column {column}: {message}")
        self.offset = offset


@dataclass
class Member:
    """One `"key": value` of an object: the key's span (quotes included) and its value."""

    key: str
    key_start: int
    value: Node


@dataclass
class Node:
    """A value and its span `text[start:end]`; an object keeps its members, an array its items."""

    kind: str  # "object" | "array" | "string" | "number" | "literal"
    start: int
    end: int
    members: list[Member] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)
    scalar: Any = None

    def get(self, key: str) -> Node | None:
        """The value of the last member named `key` (what a JSON parser keeps), or None."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member.value
        return found

    def member(self, key: str) -> Member | None:
        found = None
        for member in self.members:
            if member.key == key:
                found = member
        return found

    def value(self, text: str) -> Any:
        """The plain Python value (comments dropped), as `json.loads` gives it."""
        if self.kind == "object":
            return {m.key: m.value.value(text) for m in self.members}
        if self.kind == "array":
            return [item.value(text) for item in self.items]
        return self.scalar


@dataclass
class Document:
    """A parsed config: its text, the root value, and whether it holds comments."""

    text: str
    root: Node
    comments: list[tuple[int, int]]


_LITERALS = {"true": True, "false": False, "null": None}
_NUMBER_CHARS = frozenset("+-0123456789.eE")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.comments: list[tuple[int, int]] = []

    def fail(self, message: str, offset: int | None = None) -> JSONCError:
        return JSONCError(message, self.text, self.pos if offset is None else offset)

    def skip(self) -> None:
        """Skip whitespace and comments, noting each comment's span."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                self.comments.append((self.pos, end))
                self.pos = end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("a /* comment is never closed")
                self.comments.append((self.pos, end + 2))
                self.pos = end + 2
            else:
                return

    def value(self, depth: int = 0) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("the text ends where a value was expected")
        char = self.text[self.pos]
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        if char == '"':
            return self.string()
        start = self.pos
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node("literal", start, self.pos, scalar=literal)
        while self.pos < len(self.text) and self.text[self.pos] in _NUMBER_CHARS:
            self.pos += 1
        if self.pos == start:
            raise self.fail(f"unexpected {self.text[start]!r} where a value was expected")
        try:
            number = json.loads(self.text[start : self.pos])
        except ValueError:
            raise self.fail(f"not a number: {self.text[start : self.pos]!r}", start) from None
        return Node("number", start, self.pos, scalar=number)

    def string(self) -> Node:
        start = self.pos
        text = self.text
        pos = start + 1
        while True:
            if pos >= len(text):
                raise self.fail("a string is never closed", start)
            char = text[pos]
            if char == "\\":
                pos += 2
            elif char == '"':
                break
            elif char == "\n":
                raise self.fail("a string runs past the end of its line", start)
            else:
                pos += 1
        self.pos = pos + 1
        try:
            scalar = json.loads(text[start : self.pos])
        except ValueError:
            raise self.fail("a string with a bad escape", start) from None
        return Node("string", start, self.pos, scalar=scalar)

    def object(self, depth: int) -> Node:
        node = Node("object", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                break
            if self.pos >= len(self.text) or self.text[self.pos] != '"':
                raise self.fail("expected a quoted key or }")
            key = self.string()
            self.skip()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.fail("expected : after a key")
            self.pos += 1
            node.members.append(Member(key.scalar, key.start, self.value(depth + 1)))
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1  # a trailing comma before } is JSONC's (VS Code accepts it)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                break
            raise self.fail("expected , or } after a member")
        self.pos += 1
        node.end = self.pos
        return node

    def array(self, depth: int) -> Node:
        node = Node("array", self.pos, self.pos)
        self.pos += 1
        while True:
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                break
            node.items.append(self.value(depth + 1))
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                break
            raise self.fail("expected , or ] after an item")
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str) -> Document:
    """Parse JSON or JSONC `text` (a leading BOM is kept out of the root's span)."""
    parser = _Parser(text)
    if text.startswith("\ufeff"):
        parser.pos = 1
    root = parser.value()
    parser.skip()
    if parser.pos != len(text):
        raise parser.fail("more text after the end of the JSON value")
    return Document(text, root, parser.comments)


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each `(start, end, replacement)` applied; the edits must not overlap."""
    out: list[str] = []
    last = 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < last:
            raise ValueError("overlapping edits")
        out.append(text[last:start])
        out.append(replacement)
        last = end
    out.append(text[last:])
    return "".join(out)

"""The values of a tool surface: what a server declares (its tools, prompts, resources and resource
templates, with its serverInfo, capabilities and instructions), each definition normalised and
hashed, and the changes between two surfaces."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from mcptape.jsonsafe import dumps


class Kind(NamedTuple):
    """One kind of definition a server lists: its list method, the result member holding the list,
    the member naming each definition, and the word a report uses."""

    member: str  # the lock's and the result's member: "tools"
    method: str  # "tools/list"
    key: str  # "name", "uri", "uriTemplate"
    noun: str  # "tool"


TOOLS = Kind("tools", "tools/list", "name", "tool")
PROMPTS = Kind("prompts", "prompts/list", "name", "prompt")
RESOURCES = Kind("resources", "resources/list", "uri", "resource")
TEMPLATES = Kind("resourceTemplates", "resources/templates/list", "uriTemplate", "resource template")
KINDS = (TOOLS, PROMPTS, RESOURCES, TEMPLATES)
KIND_OF_METHOD = {kind.method: kind for kind in KINDS}
KIND_OF_NOUN = {kind.noun: kind for kind in KINDS}


def canonical(value: Any) -> str:
    """The one text of a JSON value: keys sorted, no whitespace (any depth, see `jsonsafe`)."""
    return dumps(value, sort_keys=True)


def digest(value: Any) -> str:
    """The sha256 of a value's canonical text: equal for equal values, whatever their key order."""
    return hashlib.sha256(canonical(value).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Definition:
    """One declared definition: its kind, its name (or URI), the object the server sent, its hash,
    the transcript event that carried it (-1: from a lock or a live listing) and its file line."""

    kind: Kind
    name: str
    value: dict[str, Any]
    sha256: str
    event: int = -1
    line: int | None = None  # its line in its file: the transcript's answer, or its name in a lock

    @classmethod
    def of(
        cls, kind: Kind, name: str, value: dict[str, Any], event: int = -1, line: int | None = None
    ) -> Definition:
        if line is None and event >= 0:
            line = event + 2  # a transcript's event n is on line n + 2 (the header is line 1)
        return cls(kind, name, value, digest(value), event, line)


@dataclass
class Surface:
    """What one server declares. `listed` names the kinds it was asked for (a kind never listed is
    not compared: a transcript whose client never asked for prompts says nothing about them);
    `notes` say what could not be read (an item without a name, a listing cut short)."""

    server_info: Any = None
    capabilities: Any = None
    instructions: Any = None
    protocol_version: str | None = None
    definitions: dict[str, dict[str, Definition]] = field(
        default_factory=lambda: {k.member: {} for k in KINDS}
    )
    listed: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)

    def of_kind(self, kind: Kind) -> dict[str, Definition]:
        return self.definitions[kind.member]

    @property
    def tools(self) -> dict[str, Definition]:
        return self.definitions[TOOLS.member]


class Severity(StrEnum):
    """How a change to a surface reads for the clients and models that depend on it."""

    BREAKING = "breaking"  # a client that worked before may fail now
    SUSPICIOUS = "suspicious"  # the text the model reads changed while the interface did not
    COMPATIBLE = "compatible"  # nothing that worked before stops working


GATING = (Severity.BREAKING, Severity.SUSPICIOUS)  # what fails `tools diff` unless accepted


@dataclass(frozen=True)
class Change:
    """One change between two surfaces: which definition (`kind` and `name`; the server itself for
    serverInfo, capabilities and instructions), where in it (`path`, a JSON pointer), how severe,
    and what changed, in words (`detail`). `flags` name the text that addresses the model in a
    changed description (instructions, paths, secrets, hidden Unicode); `before`/`after` are the
    definitions' hashes, so an acceptance holds for this change only."""

    kind: str  # "tool", "prompt", "resource", "resource template", "server"
    name: str
    severity: Severity
    path: str
    detail: str
    flags: tuple[str, ...] = ()
    before: str | None = None
    after: str | None = None
    words: str = ""  # the changed words of a text (`[-old-]{+new+}`)

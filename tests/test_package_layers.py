"""The package graph is layered: no import cycle, no import from a layer above, no module past 400
lines (docs/architecture.md).

Imports are read from the source with `ast` (every import, those inside functions and under
TYPE_CHECKING too: a lazy import is still an arrow). A "unit" is a package directly under mcptape
(`check`, `replay`, ...) or a module there (`errors`, `harness`, ...).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import mcptape

PACKAGE = Path(mcptape.__file__).parent

# Bottom to top, as docs/architecture.md states it. A unit imports from itself and from the layers
# below its own; never from a sibling of its layer, never from above. `__init__` is the root
# package (`mcptape`): the public face, at the top.
LAYERS: list[list[str]] = [
    ["version", "textsafe", "jsonsafe", "limits", "lazy", "tap"],  # foundations: no mcptape import
    ["errors"],
    ["transcript"],  # the file format
    ["recorder", "check"],  # the tee; the analysis core
    ["share", "diff", "harness", "surface", "export"],  # redaction; diff; harness; surfaces; exports
    ["replay", "probe", "tui", "demo", "serve", "clientconfig"],  # what the commands run
    ["commands"],  # the command layer: the only place that wires packages together
    ["cli"],
    ["entry"],
    ["__main__", "__init__"],
]

# Import cycles still to be removed (issue 12), each inside one unit: replay's report and its result
# type (replay/api.py, replay/render.py). A new cycle fails the test; take an entry out when its
# cycle is gone.
KNOWN_CYCLES: list[set[str]] = []


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str) -> Iterator[str]:
    """The mcptape modules `name` imports (`from mcptape import tap` is the module mcptape.tap)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names]  # a module, or a name of `base`
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # `mcptape.check.model.Frame`: the module
                target = target.rpartition(".")[0]
            if target.startswith("mcptape") and target != name:
                yield target


@functools.cache
def graph() -> dict[str, list[str]]:
    """Each module's mcptape imports, read when a test asks (not at collection: each xdist worker
    collects this module, and reading every module's syntax tree costs about a second)."""
    return {name: sorted(set(imported(name))) for name in MODULES}


def unit(name: str) -> str:
    """`mcptape.check.model` -> `check`; `mcptape` -> `__init__`."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


LAYER_OF = {member: level for level, members in enumerate(LAYERS) for member in members}


def test_every_unit_has_a_layer() -> None:
    """A new package or top-level module is placed in LAYERS (and in docs/architecture.md)."""
    unplaced = sorted({unit(name) for name in MODULES} - LAYER_OF.keys())
    assert unplaced == [], "give each a layer in LAYERS here and in docs/architecture.md"
    assert sorted(LAYER_OF.keys() - {unit(name) for name in MODULES}) == []


def test_no_module_imports_from_its_own_layer_or_above() -> None:
    """Every import goes down a layer or more, or stays inside the importer's own unit."""
    wrong = [
        f"{name} -> {target}"
        for name, targets in graph().items()
        for target in targets
        if unit(target) != unit(name) and LAYER_OF[unit(target)] >= LAYER_OF[unit(name)]
    ]
    assert wrong == [], (
        "a package imports only from the layers below its own; the command layer (mcptape.commands) "
        "wires packages together; the version is mcptape.version, not the root package"
    )


def cycles(graph: dict[str, list[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycles_but_the_known_ones() -> None:
    """No set of modules imports itself round in a circle (the two known ones are being removed)."""
    new = [sorted(c) for c in cycles(graph()) if c not in KNOWN_CYCLES]
    assert new == [], "these modules import each other round in a circle: move what both need below them"


def test_the_checks_can_fail() -> None:
    """The cycle finder and the layer rule see a planted upward import and a planted circle."""
    planted = {**graph(), "mcptape.errors": [*graph()["mcptape.errors"], "mcptape.cli"]}
    assert {"mcptape.errors", "mcptape.cli"} <= set().union(*cycles(planted))
    assert LAYER_OF[unit("mcptape.cli")] > LAYER_OF[unit("mcptape.errors")]
    assert "mcptape.check.analyze" in graph()["mcptape.commands.check"]
    assert "mcptape.transcript.events" in graph()["mcptape.check.framing"]


MAX_LINES = 400
# Modules still to be split by concern (none left: the redactor was split into share/redact.py,
# structure.py and values.py). A new long module fails the test; take an entry out when its module
# is short again.
KNOWN_LONG: set[str] = set()


def test_no_module_is_over_400_lines() -> None:
    """Small modules, one noun each: none past 400 lines."""
    long = {
        name
        for name, path in MODULES.items()
        if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES and name not in KNOWN_LONG
    }
    assert long == set(), "split each by concern (one noun a module)"


MAX_FUNCTION_LINES = 60
ON_PURPOSE = ("Over 60 lines on purpose", "Long only by")  # what a long function's docstring says


def long_functions() -> list[str]:
    """Every function of src/mcptape over MAX_FUNCTION_LINES lines whose docstring (or, for a
    click command whose docstring is its --help, a comment on its first line) does not say why."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if (node.end_lineno or node.lineno) - node.lineno + 1 <= MAX_FUNCTION_LINES:
                continue
            said = (ast.get_docstring(node) or "") + lines[node.body[0].lineno - 2]
            if not any(reason in said for reason in ON_PURPOSE):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    return found


def test_no_function_is_over_60_lines_unless_its_docstring_says_why() -> None:
    """A function past 60 lines is split by meaning, or says why it is not (a hot loop whose
    locals a helper would cost a call per record, one keyword per public option)."""
    assert long_functions() == []

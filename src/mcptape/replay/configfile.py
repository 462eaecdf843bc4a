"""Add ignore rules to the project's settings file, keeping everything else of it as it was.

`mcptape replay --learn N --save` writes here (`add_learned`): the file is the one replay reads
(`config.find_config`), else a new `mcptape.toml` in the current directory. Learned rules go in the
`learned` table of the server they were learned from (`[[learned]]` in mcptape.toml,
`[[tool.mcptape.learned]]` in pyproject.toml): at the end of its `ignore` array, or in a new table
at the end of the file. `add_rules` adds to the top-level `ignore` (every server's). The edit is
textual (comments, order and formatting stay): new rules go at the end of an `ignore` array, or a
new `ignore` key goes after its table's header, or a new `[tool.mcptape]` table at the end of
pyproject.toml. The result is parsed again before it replaces the file (atomically, same mode); an
edit that would not read back as the old settings plus the new rules is refused, never written.
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcptape.errors import OutputError, UsageError
from mcptape.replay.config import OWN_FILE, find_config, is_own_file, read_toml, section_of
from mcptape.textsafe import escape_text, has_unsafe, is_unsafe

INDENT = "    "
_HEADER = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*mcptape[ \t]*\][ \t]*(?:#.*)?$", re.MULTILINE)
_ANY_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
_IGNORE_KEY = re.compile(r"^[ \t]*(?:ignore|\"ignore\"|'ignore')[ \t]*=[ \t]*", re.MULTILINE)
_LEARNED_OWN = re.compile(r"^[ \t]*\[\[[ \t]*learned[ \t]*\]\][ \t]*(?:#.*)?$", re.MULTILINE)
_LEARNED_PYPROJECT = re.compile(
    r"^[ \t]*\[\[[ \t]*tool[ \t]*\.[ \t]*mcptape[ \t]*\.[ \t]*learned[ \t]*\]\][ \t]*(?:#.*)?$", re.MULTILINE
)


def save_target(start: Path | None = None) -> Path:
    """The settings file `--save` writes: the one replay reads, else `./mcptape.toml`."""
    here = start or Path.cwd()
    return find_config(here) or here / OWN_FILE


def add_rules(path: Path, rules: Sequence[str]) -> list[str]:
    """Add `rules` (rule texts) to the `ignore` of the settings in `path`, creating the file if it
    is missing; return the rules added (those not there already)."""
    text = _read(path)
    data = tomllib.loads(text) if text else {}
    section = section_of(data, path) if text else None
    existing = list(section.get("ignore", [])) if section is not None else []
    if not isinstance(existing, list):
        existing = [existing]
    new = [r for r in dict.fromkeys(rules) if r not in existing]
    if not new:
        return []
    edited = _edit(text, path, section is not None and "ignore" in section, new)
    check = section_of(_parse(edited, path), path) or {}
    if list(check.get("ignore", [])) != [*existing, *new]:
        raise UsageError(
            f"cannot add the rules to {path} by itself (its ignore is written in a form it does not edit)",
            hint="add them to ignore by hand: " + ", ".join(toml_string(r) for r in new),
        )
    _write(path, edited)
    return new


def add_learned(path: Path, server: str | None, command: Sequence[str], rules: Sequence[str]) -> list[str]:
    """Add `rules` to the learned table of the server named `server` (its serverInfo name; None:
    the one whose recorded `command` this is), creating the table (and the file) when missing;
    return the rules added (not those already there, nor those of the top-level `ignore`)."""
    text = _read(path)
    section = (section_of(tomllib.loads(text), path) if text else None) or {}
    everyone = section.get("ignore", [])
    tables = section.get("learned", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise UsageError(f"{path}: learned must be tables", hint="fix the file, then --save again")
    index = next((i for i, t in enumerate(tables) if _same_scope(t, server, command)), None)
    existing = list(tables[index].get("ignore", [])) if index is not None else []
    new = [r for r in dict.fromkeys(rules) if r not in existing and r not in everyone]
    if not new:
        return []
    expected = copy.deepcopy(section)
    if index is None:
        table: dict[str, Any] = {"server": server} if server is not None else {"command": list(command)}
        expected.setdefault("learned", []).append({**table, "ignore": new})
        edited = _append_table(text, path, table, new)
    else:
        expected["learned"][index]["ignore"] = [*existing, *new]
        edited = _edit_table(text, path, index, len(tables), "ignore" in tables[index], new)
    if (section_of(_parse(edited, path), path) or {}) != expected:
        raise UsageError(
            f"cannot add the rules to {path} by itself (its learned tables are written in a form it "
            "does not edit)",
            hint="add them to that server's learned ignore by hand: "
            + ", ".join(toml_string(r) for r in new),
        )
    _write(path, edited)
    return new


def _same_scope(table: dict[str, Any], server: str | None, command: Sequence[str]) -> bool:
    if server is not None:
        return bool(table.get("server") == server)
    return table.get("server") is None and table.get("command") == list(command)


def _append_table(text: str, path: Path, table: dict[str, Any], new: Sequence[str]) -> str:
    """A new learned table at the end of the file."""
    header = "[[learned]]" if is_own_file(path) else "[[tool.mcptape.learned]]"
    if not text and is_own_file(path):
        text = "# mcptape settings (read by mcptape replay, mcptape diff and the pytest plugin)\n"
    sep = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
    if "server" in table:
        scope = f"server = {toml_string(table['server'])}\n"
    else:
        scope = "command = [" + ", ".join(toml_string(a) for a in table["command"]) + "]\n"
    return f"{text}{sep}{header}\n{scope}{_array_key(new)}"


def _edit_table(text: str, path: Path, index: int, count: int, has_ignore: bool, new: Sequence[str]) -> str:
    """Add to the ignore of the `index`-th learned table (of `count`, each under its own header)."""
    pattern = _LEARNED_OWN if is_own_file(path) else _LEARNED_PYPROJECT
    spans = _code_positions(text)
    headers = [m for m in pattern.finditer(text) if any(a <= m.start() < b for a, b in spans)]
    if len(headers) != count:
        return text  # refused by the read-back check
    start = headers[index].end() + 1 if headers[index].end() < len(text) else headers[index].end()
    end = _next_header(text, start)
    if not has_ignore:
        prefix = "" if text[start - 1 : start] == "\n" else "\n"
        return text[:start] + prefix + _array_key(new) + text[start:]
    key = _code_match(_IGNORE_KEY, text, start, end)
    if key is None or text[key.end() : key.end() + 1] != "[":
        return text
    return _append_items(text, key.end(), new)


def _edit(text: str, path: Path, has_ignore: bool, new: Sequence[str]) -> str:
    if is_own_file(path):
        start, end = 0, _next_header(text, 0)
        if not text:
            text = "# mcptape settings (read by mcptape replay, mcptape diff and the pytest plugin)\n"
            start = end = len(text)
    else:
        header = _code_match(_HEADER, text, 0)
        if header is None:
            if "mcptape" in (read_toml_text(text).get("tool") or {}):
                raise UsageError(
                    f"{path} defines tool.mcptape without a [tool.mcptape] header: cannot add to it",
                    hint="add the rules to its ignore by hand",
                )
            sep = "" if not text or text.endswith("\n\n") else "\n" if text.endswith("\n") else "\n\n"
            return f"{text}{sep}[tool.mcptape]\n{_array_key(new)}"
        start = header.end() + 1 if header.end() < len(text) else header.end()
        end = _next_header(text, start)
    if not has_ignore:
        prefix = "" if start == 0 or text[start - 1 : start] == "\n" else "\n"
        return text[:start] + prefix + _array_key(new) + text[start:]
    key = _code_match(_IGNORE_KEY, text, start, end)
    if key is None or text[key.end() : key.end() + 1] != "[":
        return text  # refused by the read-back check
    return _append_items(text, key.end(), new)


def _append_items(text: str, open_at: int, new: Sequence[str]) -> str:
    """Add items before the `]` that closes the array opening at `open_at`."""
    close, last = _array_end(text, open_at)
    item_line = text[text.rfind("\n", 0, last) + 1 :]
    indent = item_line[: len(item_line) - len(item_line.lstrip(" \t"))] or INDENT
    items = "".join(f"{indent}{toml_string(r)},\n" for r in new)
    if "\n" not in text[open_at:close]:  # one line: no comment inside, lay it out one item a line
        inner = text[open_at + 1 : close].strip().rstrip(",").strip()
        head = f"[\n{INDENT}{inner},\n" if inner else "[\n"
        return text[:open_at] + head + items + "]" + text[close + 1 :]
    line_start = text.rfind("\n", 0, close) + 1
    comma = "" if text[last] in "[," else ","
    if text[line_start:close].strip():  # `]` shares its line with an item
        return text[: last + 1] + comma + "\n" + items + text[close:]
    return text[: last + 1] + comma + text[last + 1 : line_start] + items + text[line_start:]


def _array_end(text: str, open_at: int) -> tuple[int, int]:
    """The index of the `]` closing the array at `open_at`, and of the last code character before it."""
    depth, i, last = 0, open_at, open_at
    while i < len(text):
        c = text[i]
        if c == "#":
            i = _line_end(text, i)
            continue
        if c in "\"'":
            i = _string_end(text, i)
            last = i - 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i, last
        if not c.isspace():
            last = i
        i += 1
    raise UsageError("the ignore array is not closed")


def _string_end(text: str, i: int) -> int:
    """The index just past the TOML string starting at `i` (basic, literal, or multi-line)."""
    quote = text[i]
    triple = text.startswith(quote * 3, i)
    j = i + (3 if triple else 1)
    while j < len(text):
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if triple and text.startswith(quote * 3, j):
            while text.startswith(quote * 4, j):  # up to two quotes may end the content
                j += 1
            return j + 3
        if not triple and text[j] == quote:
            return j + 1
        j += 1
    return j


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _code_positions(text: str) -> list[tuple[int, int]]:
    """The spans of `text` outside strings and comments, for matches that must be real TOML code."""
    spans, i, start = [], 0, 0
    while i < len(text):
        c = text[i]
        if c == "#" or c in "\"'":
            spans.append((start, i))
            i = _line_end(text, i) if c == "#" else _string_end(text, i)
            start = i
            continue
        i += 1
    spans.append((start, len(text)))
    return spans


def _code_match(
    pattern: re.Pattern[str], text: str, start: int, end: int | None = None
) -> re.Match[str] | None:
    spans = _code_positions(text)
    for m in pattern.finditer(text, start, len(text) if end is None else end):
        if any(a <= m.start() < b for a, b in spans):
            return m
    return None


def _next_header(text: str, start: int) -> int:
    m = _code_match(_ANY_HEADER, text, start)
    return len(text) if m is None else m.start()


def _array_key(rules: Sequence[str]) -> str:
    return "ignore = [\n" + "".join(f"{INDENT}{toml_string(r)},\n" for r in rules) + "]\n"


def toml_string(value: str) -> str:
    """A TOML string for `value`: a literal '...' when it can be one (rules are full of `"`). Every
    character textsafe calls unsafe (controls, bidi and other format characters) is written as an
    escape, so the file shows it; a lone surrogate, which TOML cannot hold, is a UsageError."""
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise UsageError(
            f"cannot write {escape_text(value)} in a TOML file: it holds a lone surrogate (not text)",
            hint="write the rule by hand with [*] in that member's place",
        )
    if "'" not in value and not has_unsafe(value):
        return f"'{value}'"
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif is_unsafe(c):
            out.append(f"\\u{ord(c):04X}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def read_toml_text(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _read(path: Path) -> str:
    if not path.exists():
        return ""
    read_toml(path)  # an unreadable or invalid file is an error before any edit
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"cannot add the rules to {path} by itself: the edit would not be valid TOML ({exc})",
            hint="add them to its ignore by hand",
        ) from None


def _write(path: Path, text: str) -> None:
    """Replace `path` atomically, keeping its mode (0644 for a new file)."""
    tmp = path.with_name(f".{path.name}.mcptape-save")
    try:
        mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None

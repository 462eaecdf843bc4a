"""The name of a new transcript in a folder: a template with the server's slug, the time and a
unique suffix, so a folder shared by several servers can be told apart at a glance.

    mcptape-{server}-{time}-{unique}.jsonl      the default
    mcptape-mcp-server-time-20261201-063344-9f3a1c.jsonl

Fields: `{server}` (a slug of the server command: `uvx mcp-server-time` -> `mcp-server-time`,
`npx -y @modelcontextprotocol/server-everything` -> `server-everything`, `python -m my_server` ->
`my_server`, `docker run -i --rm ghcr.io/acme/srv:1.2` -> `srv`), `{time}` (local,
`YYYYmmdd-HHMMSS`), `{date}` (`YYYYmmdd`), `{pid}` (the recorder's) and `{unique}` (6 random hex
digits). Builtins only: this runs before the server is spawned.
"""

from __future__ import annotations

import os
import time

DEFAULT_TEMPLATE = "mcptape-{server}-{time}-{unique}.jsonl"
FIELDS = ("server", "time", "date", "pid", "unique")
MAX_SLUG = 40

# `docker run` and `podman run`: their options that take a value.
_CONTAINER_OPTIONS = {"-e", "--env", "-v", "--volume", "--name", "-w", "--workdir", "--network", "-p", "-u"}
_CONTAINER_OPTIONS |= {"--env-file", "--mount", "--user", "--entrypoint", "--platform"}
# Commands that start the server named by a later argument, and their options that take a value.
_LAUNCHERS = {
    "uvx": {"--from", "--with", "-p", "--python"},
    "npx": {"-p", "--package"},
    "pnpx": set(),
    "bunx": set(),
    "node": {"-r", "--require", "--import"},
    "deno": {"--config", "-c"},
    "bun": set(),
    "uv": {"--with", "-p", "--python", "--directory", "--project", "--from"},
    "env": set(),
    "exec": set(),
    "sudo": {"-u"},
    "docker": _CONTAINER_OPTIONS,
    "podman": _CONTAINER_OPTIONS,
}
_SUBCOMMANDS = {"run", "tool", "x", "exec"}  # `uv tool run`, `docker run`, `deno run`, `bun x`
_GENERIC = {
    "index",
    "main",
    "server",
    "cli",
    "__main__",
    "app",
    "dist",
    "build",
    "bin",
    "src",
    "lib",
    "out",
    "stdio",
}


class TemplateError(ValueError):
    """A name template that cannot be used (an unknown field, a path separator, no text)."""


def check_template(template: str) -> None:
    """Raise TemplateError unless `template` is a file name with known `{fields}`."""
    if not template or "/" in template or template in (".", ".."):
        raise TemplateError(f"--name {template!r} must be a file name, not a path")
    for name in _fields(template):
        if name not in FIELDS:
            raise TemplateError(f"--name {template!r}: unknown field {{{name}}} (known: {', '.join(FIELDS)})")


def render_name(
    template: str | None,
    command: list[str] | None,
    *,
    now: float | None = None,
    pid: int | None = None,
    suffix: str | None = None,
) -> str:
    """The file name `template` (default DEFAULT_TEMPLATE) gives for `command` now."""
    stamp = time.localtime(now)
    values = {
        "server": server_slug(command or []),
        "time": time.strftime("%Y%m%d-%H%M%S", stamp),
        "date": time.strftime("%Y%m%d", stamp),
        "pid": str(os.getpid() if pid is None else pid),
        "unique": os.urandom(3).hex() if suffix is None else suffix,
    }
    out: list[str] = []
    rest = template or DEFAULT_TEMPLATE
    while True:
        start = rest.find("{")
        end = rest.find("}", start + 1)
        if start < 0 or end < 0:
            out.append(rest)
            break
        name = rest[start + 1 : end]
        out.append(rest[:start] + values.get(name, rest[start : end + 1]))
        rest = rest[end + 1 :]
    return "".join(out)


def has_unique(template: str | None) -> bool:
    return "{unique}" in (template or DEFAULT_TEMPLATE)


def with_unique(name: str, suffix: str | None = None) -> str:
    """`name` with a random suffix before its extension (a template without `{unique}` collided)."""
    tail = os.urandom(3).hex() if suffix is None else suffix
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-{tail}.{ext}" if dot and stem else f"{name}-{tail}"


def server_slug(command: list[str]) -> str:
    """A short, file-name-safe name for the server `command` runs (`server` when none is found)."""
    word = _server_word(command)
    return (_slug(word) if word else "") or "server"


def _server_word(command: list[str]) -> str | None:
    """The argument that names the server: past launchers (uvx, npx, python -m, docker run, ...),
    their subcommands and options, and `NAME=value` settings."""
    takes_value: set[str] = set()
    launched = True  # at the start, or right after a launcher
    i = 0
    while i < len(command):
        arg = command[i]
        launcher = _launcher(os.path.basename(arg)) if launched else None
        if launcher is not None:
            takes_value = _LAUNCHERS.get(launcher, set())
            i += 1
            continue
        if arg.startswith("-") and len(arg) > 1:
            name, eq, _ = arg.partition("=")
            if name == "-m" and i + 1 < len(command):
                return command[i + 1]  # python -m package
            i += 2 if name in takes_value and not eq else 1
            continue
        if launched and arg in _SUBCOMMANDS and i > 0:
            i += 1
            continue
        name, eq, _ = arg.partition("=")
        if eq and name.isidentifier():
            i += 1  # `env NAME=value server`
            continue
        return arg
    return command[0] if command else None


def _launcher(base: str) -> str | None:
    if base in _LAUNCHERS:
        return base
    if base.startswith("python") and all(c.isdigit() or c == "." for c in base[6:]):
        return "python"
    return None


def _slug(word: str) -> str:
    """`@scope/pkg@1.2` -> `pkg`; `ghcr.io/acme/srv:1.2` -> `srv`; `.../server-everything/dist/index.js`
    -> `server-everything`; then only letters, digits, `.`, `_` and `-` are kept."""
    if word.startswith("@") and "/" in word:
        word = word.split("/", 1)[1]
    parts = [p for p in word.replace("\\", "/").split("/") if p]
    while parts:
        name = parts[-1]
        for sep in ("@", ":"):
            if sep in name[1:]:
                name = name[: name.index(sep, 1)]
        stem, dot, ext = name.rpartition(".")
        if dot and stem and ext in ("js", "mjs", "cjs", "ts", "py", "exe", "sh", "jar"):
            name = stem
        if name.lower() not in _GENERIC or len(parts) == 1:
            break
        parts.pop()
    else:
        return ""
    cleaned = "".join(c if c.isalnum() or c in "._-" else "-" for c in name.lower())
    while "--" in cleaned:
        cleaned = cleaned.replace("--", "-")
    return cleaned.strip("-.")[:MAX_SLUG].strip("-.")


def _fields(template: str) -> list[str]:
    names = []
    rest = template
    while (start := rest.find("{")) >= 0:
        end = rest.find("}", start + 1)
        if end < 0:
            raise TemplateError(f"--name {template!r}: a '{{' is not closed")
        names.append(rest[start + 1 : end])
        rest = rest[end + 1 :]
    return names

"""The placeholder that stands for a secret, and how a user proves a real value matches it.

A secret `v` becomes `[redacted:D]` where `D` is the first 16 hex digits (64 bits) of
HMAC-SHA256(K, UTF-8 bytes of v). `K` is the redaction key:

* `MCPTAPE_REDACT_KEY` from the environment when set (its UTF-8 bytes; never written anywhere), or
* a random 128-bit salt, written in hex in the transcript header (`redacted.salt`).

Equal secrets give equal placeholders within a transcript (and across transcripts redacted with
the same key), so replay still pairs requests and responses. Whoever holds `K` and a candidate
value recomputes `D` and checks it; that is how `--secret NAME=VALUE` is verified before it is
substituted back. With a salt stored in the file, anyone holding the file can confirm a *guess*
of a low-entropy secret (a password); set `MCPTAPE_REDACT_KEY` when that matters.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

KEY_ENV = "MCPTAPE_REDACT_KEY"
DIGEST_CHARS = 16
SHORT = 6  # a value shorter than this is matched as a whole word only (share.finder's MIN_LEARNT)
PLACEHOLDER = re.compile(r"\[redacted:([0-9a-f]{16})\]")


def value_bytes(value: str) -> bytes:
    """The bytes a secret is hashed as: its UTF-8 encoding (undecodable bytes kept as they were)."""
    try:
        return value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass")


def digest(key: bytes, value: str) -> str:
    """The 16 hex digits that name `value` under `key`."""
    return hmac.new(key, value_bytes(value), hashlib.sha256).hexdigest()[:DIGEST_CHARS]


def placeholder(key: bytes, value: str) -> str:
    """`[redacted:<digest>]`: ASCII, no quote, backslash or `<>&`, so it is safe inside JSON strings."""
    return f"[redacted:{digest(key, value)}]"


def verify(key: bytes, marker: str, value: str) -> bool:
    """True when `value` is the secret that `marker` (a placeholder or its digest) stands for."""
    m = PLACEHOLDER.fullmatch(marker)
    wanted = m.group(1) if m else marker
    return hmac.compare_digest(wanted, digest(key, value))


@dataclass(frozen=True)
class Key:
    """The redaction key and how a reader of the transcript can find it again."""

    secret: bytes
    salt: str | None  # hex, written to the header; None when the key came from the environment

    def header_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hash": "hmac-sha256", "digest_chars": DIGEST_CHARS}
        if self.salt is not None:
            out["salt"] = self.salt
        else:
            out["key"] = f"${KEY_ENV}"
        return out


def choose_key(environ: Mapping[str, str] | None = None, previous: Mapping[str, Any] | None = None) -> Key:
    """`$MCPTAPE_REDACT_KEY` if set, else the salt of an already redacted input, else a new salt."""
    env = os.environ if environ is None else environ
    user = env.get(KEY_ENV)
    if user:
        return Key(user.encode("utf-8", "surrogateescape"), None)
    salt = previous.get("salt") if previous else None
    if isinstance(salt, str) and re.fullmatch(r"[0-9a-f]{32}", salt):
        return Key(bytes.fromhex(salt), salt)
    fresh = os.urandom(16)
    return Key(fresh, fresh.hex())


def key_from_header(redacted: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> bytes | None:
    """The key a redacted transcript was made with (from its header's `redacted`), or None if unknown."""
    salt = redacted.get("salt")
    if isinstance(salt, str) and re.fullmatch(r"[0-9a-f]{32}", salt):
        return bytes.fromhex(salt)
    env = os.environ if environ is None else environ
    user = env.get(KEY_ENV)
    return user.encode("utf-8", "surrogateescape") if user else None


@dataclass
class Unredactor:
    """Puts verified real values back in place of their placeholders (for replay `--secret`).

    Build it with `Unredactor.build(header_redacted, values)`; `values` are candidate secrets
    (`--secret NAME=VALUE` gives VALUE; NAME is only a label). A value is kept only if it hashes to
    a digest the transcript lists in `redacted.found`, or, when the list is absent, always (it then
    simply matches nothing). `unmatched` names the labels whose value matched no placeholder.
    """

    key: bytes
    by_digest: dict[str, str] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)
    _hider: tuple[re.Pattern[str], dict[str, str]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        redacted: Mapping[str, Any],
        values: Iterable[tuple[str, str]],
        environ: Mapping[str, str] | None = None,
    ) -> Unredactor:
        """Verify `(label, value)` pairs against the transcript; also take `env:NAME` values from `environ`.

        Raises ValueError when the key cannot be known (made with `$MCPTAPE_REDACT_KEY`, now unset).
        """
        env = os.environ if environ is None else environ
        key = key_from_header(redacted, env)
        if key is None:
            raise ValueError(f"this transcript was redacted with ${KEY_ENV}: set it to verify secrets")
        found: Mapping[str, Any] = redacted.get("found") or {}
        out = cls(key)
        pairs = list(values)
        for labels in found.values():
            for label in labels if isinstance(labels, list) else []:
                if isinstance(label, str) and label.startswith("env:") and label[4:] in env:
                    pairs.append((label[4:], env[label[4:]]))
        for label, value in pairs:
            d = digest(key, value)
            if found and d not in found:
                out.unmatched.append(label)
                continue
            out.by_digest[d] = value
        return out

    def hide(self, data: bytes) -> bytes:
        """The other way: `data` (what the new server said in a replay) with every verified value
        replaced by its placeholder, as the transcript has it, so a server that echoes the secret
        it was given answers what it answered when it was recorded. A value is found as it is and
        JSON-escaped (inside a string); one shorter than 6 characters as a whole word only."""
        if not self.by_digest:
            return data
        if self._hider is None:
            self._hider = _hider(self.by_digest)
        pattern, forms = self._hider
        text = data.decode("utf-8", "surrogateescape")
        if pattern.search(text) is None:
            return data
        structure = _structure(text)  # where a short value is a number or a name, not the secret
        hidden = pattern.sub(lambda m: m.group() if structure(m) else forms[m.group()], text)
        return data if hidden == text else hidden.encode("utf-8", "surrogateescape")

    def line(self, data: bytes) -> bytes:
        """`data` with every verified placeholder replaced by its value (JSON-escaped inside strings;
        outside a string, a value holding a newline is not put back, so lines stay lines)."""
        if not self.by_digest or b"[redacted:" not in data:
            return data
        from mcptape.share.jsonscan import string_spans

        text = data.decode("utf-8", "surrogateescape")
        inside = string_spans(text)
        parts: list[str] = []
        pos = 0
        for m in PLACEHOLDER.finditer(text):
            value = self.by_digest.get(m.group(1))
            if value is None:
                continue
            in_string = _within(inside, m.start())
            if not in_string and ("\n" in value or "\r" in value):
                continue  # a raw newline would split the line: leave the placeholder
            parts.append(text[pos : m.start()])
            parts.append(_json_escape(value) if in_string else value)
            pos = m.end()
        if not parts:
            return data
        parts.append(text[pos:])
        return "".join(parts).encode("utf-8", "surrogateescape")


def _hider(by_digest: Mapping[str, str]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex for every verified value (raw and JSON-escaped), and the placeholder of each form."""
    forms: dict[str, str] = {}
    for d, value in by_digest.items():
        for form in (value, _json_escape(value)):
            forms.setdefault(form, f"[redacted:{d}]")
    ordered = sorted(forms, key=len, reverse=True)
    # a short word may start right after an escape (`"ok\\npw1"`): `_structure` checks it is one
    start = r"(?:(?<![0-9A-Za-z_])|(?<=\\[bfnrt]))"
    words = [rf"{start}{re.escape(f)}(?![0-9A-Za-z_])" if len(f) < SHORT else re.escape(f) for f in ordered]
    return re.compile("|".join(words)), forms


def _structure(text: str) -> Callable[[re.Match[str]], bool]:
    """Whether a match of `hide` is a short value that stays: in a JSON line's structure (an id `1`
    is not the password `1`), as the redactor leaves it (`share.finder`), or after a letter that
    no escape's backslash comes before, or outside a string (`a\\npw1`: the word is `npw1`)."""
    from mcptape.share.jsonscan import json_text, string_spans

    lines: dict[int, tuple[bool, list[tuple[int, int]]]] = {}  # line start -> (is JSON, its strings)

    def check(m: re.Match[str]) -> bool:
        if len(m.group()) >= SHORT:
            return False
        start = text.rfind("\n", 0, m.start()) + 1
        if start not in lines:
            end = text.find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            lines[start] = (json_text(line), string_spans(line))
        valid, spans = lines[start]
        inside = _within(spans, m.start() - start)
        if m.start() > start and text[m.start() - 1] in "bfnrt":  # after `\n`: an escape, or `\\n`?
            return not inside or _backslashes(text, m.start() - 1) % 2 == 0
        return valid and not inside

    return check


def _backslashes(text: str, at: int) -> int:
    """How many backslashes come just before `text[at]`."""
    n = 0
    while at - n > 0 and text[at - n - 1] == "\\":
        n += 1
    return n


def _within(spans: list[tuple[int, int]], pos: int) -> bool:
    import bisect

    i = bisect.bisect_right(spans, (pos, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def _json_escape(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)[1:-1]

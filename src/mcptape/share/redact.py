"""The redaction engine: one whole line of a channel in, the same line with its secrets replaced out.

Pure (no I/O). A `Redactor` holds the rules, the key and what it has learnt so far: every value
found as a secret (under a secret key, in a token pattern, in a secret-looking environment
variable or command-line flag) is remembered and replaced wherever it appears again, even as bare
text (a server echoing a token back). `mcptape redact` runs it over the transcript twice, so an
echo *before* the value was recognised is caught as well; `record --redact` runs it once, live.

Only the secret itself is replaced, inside the raw bytes: everything else in the line stays
byte-identical, a JSON line stays one valid JSON line (placeholders are plain ASCII, JSON string
escapes are decoded before matching and whole escapes are replaced), a non-protocol line stays
non-protocol, and no newline is ever added or removed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mcptape.share.jsonscan import STRING, Decoded
from mcptape.share.placeholder import PLACEHOLDER, Key, placeholder
from mcptape.share.rules import (
    BUILTIN_IDS,
    KEY_TRIGGERS,
    KV_TAIL,
    NEEDS_PLAUSIBLE,
    PATTERN_TRIGGERS,
    TRIVIAL_VALUES,
    Rules,
    compile_builtin,
    key_name_before,
    plausible,
)

MIN_LEARNT = 6  # shorter values are replaced where found, but not searched for everywhere
_COLON = re.compile(r"[ \t\r]*:[ \t\r]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+(?=\S)")
_ALL_IDS = frozenset(BUILTIN_IDS)
_TRIGGER_WORDS = tuple((word, rule_id) for rule_id, words in PATTERN_TRIGGERS.items() for word in words)
_SQUASH = str.maketrans("", "", "-_. \t\"'")
_JSON_ESCAPED = re.compile(r'["\\/\x00-\x1f\x7f-\U0010ffff]')  # chars a JSON encoder may escape
_INVALID_JSON_MARK = "\\?"  # keeps a string that held an invalid escape invalid after redaction
_INVALID_UTF8_MARK = "\udcff"  # encodes back to the byte 0xff: an undecodable line stays undecodable


@dataclass(slots=True)
class _Hit:
    start: int  # in the segment's decoded text
    end: int
    label: str
    learn: bool
    value: str = ""


class Redactor:
    """Replaces secrets in lines, header fields and argv; remembers the secrets it has seen."""

    def __init__(self, rules: Rules, key: Key) -> None:
        self.rules = rules
        self.key = key
        self.replaced = 0
        self.found: dict[str, set[str]] = {}  # digest -> labels of the rules that found it
        self._learnt: dict[str, str] = {}  # value -> label
        self._literal: re.Pattern[str] | None = None
        self._dirty = False
        self._cache: dict[str, str] = {}
        self._user_kv = _user_key_pattern(rules.extra_keys)
        self._key_triggers = KEY_TRIGGERS + tuple(rules.extra_keys)
        self._regexes: dict[frozenset[str], re.Pattern[str] | None] = {}
        self._builtin: re.Pattern[str] | None = None  # the patterns this line can match
        self._use_literal = False
        self._escapable = False  # a seen value holds a character JSON may escape
        self._keys_seen: dict[str, bool] = {}
        self._triggers: dict[frozenset[str], re.Pattern[str]] = {}
        self._marks: list[int] | None = None

    # -- what it knows ---------------------------------------------------------------------
    def learn(self, value: str, label: str) -> None:
        """Replace `value` wherever it appears from now on (values shorter than 6 are not searched)."""
        if len(value) < MIN_LEARNT or value in self._learnt or PLACEHOLDER.fullmatch(value):
            return
        self._learnt[value] = label
        self._dirty = True

    def learn_environment(self, environ: Mapping[str, str]) -> list[str]:
        """Learn the values of secret-looking variables (`*_TOKEN`, `*_API_KEY`, ...); return their names."""
        names = []
        for name, value in environ.items():
            if self.rules.is_secret_key(name) and len(value) >= MIN_LEARNT:
                self.learn(value, f"env:{name}")
                names.append(name)
        return sorted(names)

    def placeholder(self, value: str, label: str) -> str:
        ph = self._cache.get(value)
        if ph is None:
            ph = placeholder(self.key.secret, value)
            self._cache[value] = ph
        self.found.setdefault(ph[10:-1], set()).add(label)
        self.replaced += 1
        return ph

    def header_info(self) -> dict[str, Any]:
        """The header's `redacted` object: how placeholders are made, which rules ran, what was found."""
        info: dict[str, Any] = {"version": 1, **self.key.header_fields(), **self.rules.describe()}
        info["found"] = {d: sorted(labels) for d, labels in sorted(self.found.items())}
        return info

    # -- lines -----------------------------------------------------------------------------
    def line(self, data: bytes) -> bytes:
        """One line of a byte channel (with or without its newline), redacted."""
        nl = data.endswith(b"\n")
        body = data[:-1] if nl else data
        text = body.decode("utf-8", "surrogateescape")
        out = self.text(text)
        if out is text:
            return data
        return out.encode("utf-8", "surrogateescape") + (b"\n" if nl else b"")

    @property
    def version(self) -> int:
        """Grows whenever a new secret value is learnt (a line redacted before may now redact more)."""
        return len(self._learnt)

    def block(self, data: bytes) -> bytes:
        """Several whole lines at once: one quick check for the whole block, then line by line."""
        if self._dirty:
            self._rebuild_literal()
        text = data.decode("utf-8", "surrogateescape")
        if not self._prepare(text):
            return data
        lines = text.split("\n")
        out = [self.text(line) for line in lines]
        if all(a is b for a, b in zip(out, lines, strict=True)):
            return data
        return "\n".join(out).encode("utf-8", "surrogateescape")

    def text(self, text: str) -> str:
        """Redact one line of text (no newline in it); returns `text` itself when nothing changed."""
        if self._dirty:
            self._rebuild_literal()
        if not self._prepare(text):
            return text
        edits: list[tuple[int, int, str]] = []  # raw start, raw end, replacement
        gaps: list[tuple[int, list[_Hit], str]] = []  # free text between strings: applied last
        tokens = list(STRING.finditer(text))
        forced: dict[int, str] = {}  # token index -> label: the whole contents are a secret
        pos = 0
        for i, m in enumerate(tokens):
            gap = text[pos : m.start()]
            if self._may_hit(pos, m.start()):
                gaps.append((pos, self._hits(gap), gap))
            if i not in forced and gap.rstrip(" \t").endswith((":", "=")):
                kv = KV_TAIL.search(gap)
                if kv is not None and self._secret_key(kv.group("k")):
                    forced[i] = f"key:{kv.group('k')}"
            pos = m.end()
            colon = _COLON.match(text, m.end())
            if colon is not None:
                name = _key_text(m.group())
                if self._secret_key(name):
                    self._mark_value(text, tokens, i, colon.end(), f"key:{name}", forced, edits)
            label = forced.get(i)
            if label is not None:
                self._whole(Decoded(m.group()[1:-1]), m.start() + 1, label, edits)
            elif self._may_hit(m.start() + 1, m.end() - 1):
                contents = Decoded(m.group()[1:-1])
                for hit in self._hits(contents.text):
                    self._edit(contents, m.start() + 1, hit.start, hit.end, hit.value, hit.label, edits)
        if self._may_hit(pos, len(text)):
            gaps.append((pos, self._hits(text[pos:]), text[pos:]))
        if any(hits for _, hits, _ in gaps):
            self._gap_edits(text, gaps, edits)
        if not edits:
            return text
        edits.sort()
        out: list[str] = []
        pos = 0
        for start, end, replacement in edits:
            if start < pos:  # overlapping edits: the first one already covers this text
                continue
            out.append(text[pos:start])
            out.append(replacement)
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _prepare(self, text: str) -> bool:
        """Pick the patterns this line can match (cheap substring tests); False when none can."""
        low = text.lower()
        hidden = "\\u" in text  # a \uXXXX escape could spell any trigger
        if hidden:
            ids = _ALL_IDS
        else:
            found = set()
            for word, rule_id in _TRIGGER_WORDS:
                if word in low:
                    found.add(rule_id)
            ids = frozenset(found)
        if ids not in self._regexes:
            self._regexes[ids] = compile_builtin(ids)
        self._builtin = self._regexes[ids]
        literal = False
        if self._literal is not None:
            if hidden or (self._escapable and "\\" in text):
                literal = True
            else:
                for value in self._learnt:
                    if value in text:
                        literal = True
                        break
        self._use_literal = literal
        self._marks = self._trigger_marks(text, low, ids, hidden)
        if ids or literal or self.rules.patterns or self._user_kv is not None:
            return True
        squashed = low.translate(_SQUASH)
        return any(word in squashed for word in self._key_triggers)

    def _trigger_marks(self, text: str, low: str, ids: frozenset[str], hidden: bool) -> list[int] | None:
        """Sorted offsets where a pattern's trigger word or a seen value starts: a stretch of text
        holding none of them cannot match and is skipped. None: every stretch must be searched."""
        if hidden or self.rules.patterns or self._user_kv is not None or len(low) != len(text):
            return None
        marks: list[int] = []
        if ids:
            rx = self._triggers.get(ids)
            if rx is None:
                words = sorted({w for w, rule_id in _TRIGGER_WORDS if rule_id in ids}, key=len, reverse=True)
                rx = self._triggers[ids] = re.compile("|".join(re.escape(w) for w in words))
            marks.extend(m.start() for m in rx.finditer(low))
        if self._use_literal and self._literal is not None:
            if self._escapable and "\\" in text:
                return None
            marks.extend(m.start() for m in self._literal.finditer(text))
            marks.sort()
        return marks

    def _may_hit(self, start: int, end: int) -> bool:
        """Can raw text `start..end` hold a secret (a trigger starts inside it)?"""
        marks = self._marks
        if marks is None:
            return True
        i = bisect.bisect_left(marks, start)
        return i < len(marks) and marks[i] < end

    def _mark_value(
        self,
        text: str,
        tokens: list[re.Match[str]],
        i: int,
        at: int,
        label: str,
        forced: dict[int, str],
        edits: list[tuple[int, int, str]],
    ) -> None:
        """The value after a secret key: a string, a number, or an array of strings."""
        if at >= len(text):
            return
        c = text[at]
        if c == '"' and i + 1 < len(tokens) and tokens[i + 1].start() == at:
            forced[i + 1] = label
        elif c == "[":
            depth = 0
            pos = at
            for j in range(i + 1, len(tokens)):
                gap = text[pos : tokens[j].start()]
                depth += gap.count("[") + gap.count("{") - gap.count("]") - gap.count("}")
                if depth <= 0:
                    break
                if depth == 1 and _COLON.match(text, tokens[j].end()) is None:
                    forced[j] = label
                pos = tokens[j].end()
        else:
            num = _NUMBER.match(text, at)
            if num is not None:
                value = num.group()
                ph = self.placeholder(value, label)
                self.learn(value, label)
                valid = _JSON_NUMBER.fullmatch(value) is not None
                edits.append((num.start(), num.end(), f'"{ph}"' if valid else ph))

    def _whole(self, contents: Decoded, offset: int, label: str, edits: list[tuple[int, int, str]]) -> None:
        """A string token that is entirely a secret (an authorization scheme word stays)."""
        value = contents.text
        start = 0
        if label.lower().replace("-", "").replace("_", "").endswith("authorization"):
            scheme = _SCHEME.match(value)
            if scheme is not None:
                start = scheme.end()
        secret = value[start:]
        if secret.lower() in TRIVIAL_VALUES or PLACEHOLDER.fullmatch(secret):
            return
        self.learn(secret, label)
        self._edit(contents, offset, start, len(value), secret, label, edits)

    def _hits(self, text: str) -> list[_Hit]:
        """Secrets in free text (a gap between strings, or a string's decoded contents), merged."""
        if not text:
            return []
        hits: list[_Hit] = []
        for m in self._builtin.finditer(text) if self._builtin is not None else ():
            group = next(g for g, v in m.groupdict().items() if v is not None and g[0] == "s")
            idx = int(group[1:])
            rule_id = BUILTIN_IDS[idx]
            value = m.group(group)
            if rule_id == "key-value":
                name = key_name_before(text, m.start(f"k{idx}"), m.end(f"k{idx}"))
                if not self._secret_key(name):
                    continue
            if value.lower() in TRIVIAL_VALUES or (rule_id in NEEDS_PLAUSIBLE and not plausible(value)):
                continue
            hits.append(_Hit(m.start(group), m.end(group), f"pattern:{rule_id}", True))
        if self._user_kv is not None:
            for m in self._user_kv.finditer(text):
                if m.group("s").lower() not in TRIVIAL_VALUES:
                    hits.append(_Hit(m.start("s"), m.end("s"), f"key:{m.group('k')}", True))
        for n, rx in enumerate(self.rules.patterns, 1):
            for m in rx.finditer(text):
                s, e = m.span(1) if rx.groups else m.span()
                if e > s:
                    hits.append(_Hit(s, e, f"user-pattern:{n}", True))
        if self._use_literal and self._literal is not None:
            for m in self._literal.finditer(text):
                hits.append(_Hit(m.start(), m.end(), self._learnt.get(m.group(), "seen"), False))
        if not hits:
            return []
        guarded = [m.span() for m in PLACEHOLDER.finditer(text)]
        hits.sort(key=lambda h: (h.start, -h.end))
        merged: list[_Hit] = []
        for hit in hits:
            if any(s < hit.end and hit.start < e for s, e in guarded):
                continue
            if merged and hit.start < merged[-1].end:
                last = merged[-1]
                merged[-1] = _Hit(last.start, max(last.end, hit.end), last.label, last.learn or hit.learn)
            else:
                merged.append(hit)
        out = []
        for hit in merged:
            hit.value = text[hit.start : hit.end]
            if hit.learn:
                self.learn(hit.value, hit.label)
            out.append(hit)
        return out

    def _gap_edits(
        self, text: str, gaps: list[tuple[int, list[_Hit], str]], edits: list[tuple[int, int, str]]
    ) -> None:
        """Secrets between strings. In a valid JSON line that text is structure: only a number equal
        to a secret is replaced (by a quoted placeholder); elsewhere the placeholder, which is
        never valid JSON, goes in as it is."""
        valid = _is_json(text)
        for offset, hits, _gap in gaps:
            for hit in hits:
                if valid:
                    num = _NUMBER.fullmatch(hit.value)
                    if num is not None:
                        ph = self.placeholder(hit.value, hit.label)
                        edits.append((offset + hit.start, offset + hit.end, f'"{ph}"'))
                    continue
                replacement = self.placeholder(hit.value, hit.label)
                if _has_undecodable(hit.value):
                    replacement += _INVALID_UTF8_MARK
                edits.append((offset + hit.start, offset + hit.end, replacement))

    def _edit(
        self,
        contents: Decoded,
        offset: int,
        start: int,
        end: int,
        value: str,
        label: str,
        edits: list[tuple[int, int, str]],
    ) -> None:
        """Replace decoded characters `start..end` of a string token's contents (whole escapes)."""
        rs, re_ = contents.raw_span(start, end)
        raw = contents.raw[rs:re_]
        replacement = self.placeholder(value, label)
        if contents.invalid and Decoded(raw).invalid:
            replacement += _INVALID_JSON_MARK
        if _has_undecodable(raw):
            replacement += _INVALID_UTF8_MARK
        edits.append((offset + rs, offset + re_, replacement))

    def _rebuild_literal(self) -> None:
        values = sorted(self._learnt, key=len, reverse=True)
        self._literal = re.compile("|".join(re.escape(v) for v in values)) if values else None
        self._escapable = any(_JSON_ESCAPED.search(v) for v in values)
        self._dirty = False

    def _secret_key(self, name: str) -> bool:
        known = self._keys_seen.get(name)
        if known is None:
            if len(self._keys_seen) > 4096:
                self._keys_seen.clear()
            known = self._keys_seen[name] = self.rules.is_secret_key(name)
        return known

    # -- structured values -----------------------------------------------------------------
    def argv(self, argv: Iterable[str]) -> list[str]:
        """A command line: `--token VALUE` hides VALUE; every argument is also free text."""
        args = list(argv)
        out = []
        secret_next: str | None = None
        for arg in args:
            if secret_next is not None and arg.lower() not in TRIVIAL_VALUES:
                self.learn(arg, f"argv:{secret_next}")
                out.append(self.placeholder(arg, f"argv:{secret_next}"))
                secret_next = None
                continue
            secret_next = None
            if arg.startswith("-") and "=" not in arg and self.rules.is_secret_key(arg):
                secret_next = arg
            out.append(self.text(arg))
        return out

    def value(self, obj: Any, key: str | None = None) -> Any:
        """A decoded JSON value (header fields, note fields): secret keys and free text redacted."""
        secret = key is not None and self.rules.is_secret_key(key)
        if isinstance(obj, dict):
            return {k: self.value(v, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.value(v, key if secret else None) for v in obj]
        if isinstance(obj, str):
            if secret and obj.lower() not in TRIVIAL_VALUES and not PLACEHOLDER.fullmatch(obj):
                self.learn(obj, f"key:{key}")
                return self.placeholder(obj, f"key:{key}")
            return self.text(obj)
        if secret and isinstance(obj, int | float) and not isinstance(obj, bool):
            return self.placeholder(str(obj), f"key:{key}")
        return obj


def _has_undecodable(text: str) -> bool:
    return any("\udc80" <= c <= "\udcff" for c in text)


def _is_json(text: str) -> bool:
    import orjson

    try:
        orjson.loads(text)
    except (orjson.JSONDecodeError, UnicodeEncodeError):
        return False
    return True


def _key_text(token: str) -> str:
    contents = token[1:-1]
    return Decoded(contents).text if "\\" in contents else contents


def _user_key_pattern(keys: frozenset[str]) -> re.Pattern[str] | None:
    """Free-text `NAME=value` / `NAME: value` for the user's `--redact-key` names."""
    if not keys:
        return None
    names = "|".join("[-_.]?".join(re.escape(c) for c in key) for key in sorted(keys, key=len, reverse=True))
    return re.compile(
        r"(?i)(?<![A-Za-z0-9_.-])(?P<k>[-]*(?:" + names + r"))[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<s>[^\s\"'&,;<>()\[\]{}]+)"
    )

"""Finding secrets in free text: the built-in patterns, the user's, and every value seen before.

A `Finder` knows what counts as a secret; `Redactor` decides where in a line to look and what to
put in its place. Cheap substring tests come first (`prepare`): a line holding no trigger word of
a pattern, no seen value and no secret-looking key name is left alone without running a regex,
and within a line only the stretches where a trigger starts are searched (`may_hit`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from mcptape.share.placeholder import PLACEHOLDER
from mcptape.share.rules import (
    BUILTIN_IDS,
    KEY_TRIGGERS,
    NEEDS_PLAUSIBLE,
    PATTERN_TRIGGERS,
    TRIVIAL_VALUES,
    Rules,
    compile_builtin,
    key_name_before,
    plausible,
)

MIN_LEARNT = 6  # shorter values are searched for as whole words only, and never in JSON structure
_ALL_IDS = frozenset(BUILTIN_IDS)
_TRIGGER_WORDS = tuple((word, rule_id) for rule_id, words in PATTERN_TRIGGERS.items() for word in words)
_JSON_ESCAPED = re.compile(r'["\\/\x00-\x1f\x7f-\U0010ffff]')  # chars a JSON encoder may escape
_WORD_START = r"(?<![0-9A-Za-z_])"
# In raw text, a word may also start right after an escape that decodes to a non-word character
# (`"ok\npw1"`): where a short value may start, for `may_hit` (its decoded string decides).
RAW_WORD_START = r"(?:(?<![0-9A-Za-z_])|(?<=\\[bfnrt]))"


@dataclass(slots=True)
class Hit:
    """A secret found in a stretch of text: its span there, the rule that found it, its value."""

    start: int
    end: int
    label: str
    learn: bool
    value: str = ""
    short: bool = False  # a seen value shorter than MIN_LEARNT: never replaced in a JSON line's structure


class Finder:
    """The rules, plus every secret value learnt so far (searched for everywhere after)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._learnt: dict[str, str] = {}  # value -> label
        self._short: dict[str, str] = {}  # a value shorter than MIN_LEARNT -> label (whole words only)
        self._literal: re.Pattern[str] | None = None
        self._marker: re.Pattern[str] | None = None  # `_literal` for raw text (see RAW_WORD_START)
        self._dirty = False
        self._user_kv = _user_key_pattern(rules.extra_keys)
        self._regexes: dict[frozenset[str], re.Pattern[str] | None] = {}
        self._builtin: re.Pattern[str] | None = None  # the patterns the current line can match
        self._use_literal = False
        self._escapable = False  # a seen value holds a character JSON may escape
        self._keys_seen: dict[str, bool] = {}
        self._triggers: dict[frozenset[str], re.Pattern[str]] = {}
        self._marks: list[int] | None = None
        self.words = True  # False: a short seen value is not searched for (see `Redactor.text`)

    def learn(self, value: str, label: str) -> None:
        """Replace `value` wherever it appears from now on, whatever its length: a rule found it
        where a secret is given explicitly (under a secret key, after a secret flag, in a token's
        shape). A value shorter than MIN_LEARNT (`pw1`) is searched for as a whole word only (no
        letter, digit or `_` around it) and never in the structure of a JSON line (a number there
        stays: an id `1` is not the password `1`)."""
        if not value or value in self._learnt or value in self._short or PLACEHOLDER.fullmatch(value):
            return
        (self._short if len(value) < MIN_LEARNT else self._learnt)[value] = label
        self._dirty = True

    @property
    def version(self) -> int:
        """Grows whenever a new secret value is learnt (a line redacted before may now redact more)."""
        return len(self._learnt) + len(self._short)

    def prepare(self, text: str) -> bool:
        """Pick the patterns this line can match (cheap substring tests); False when none can."""
        if self._dirty:
            self._rebuild_literal()
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
                else:
                    literal = any(value in text for value in self._short)
        self._use_literal = literal
        self._marks = self._trigger_marks(text, low, ids, hidden)
        if ids or literal or self.rules.patterns or self._user_kv is not None:
            return True
        return any(word in low for word in KEY_TRIGGERS)  # user keys set `_user_kv`: True above

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
            marker = self._marker or self._literal
            marks.extend(m.start() for m in marker.finditer(text))
            marks.sort()
        return marks

    def may_hit(self, start: int, end: int) -> bool:
        """Can raw text `start..end` hold a secret (a trigger starts inside it)?"""
        marks = self._marks
        if marks is None:
            return True
        i = bisect.bisect_left(marks, start)
        return i < len(marks) and marks[i] < end

    def hits(self, text: str) -> list[Hit]:
        """Secrets in free text (a gap between strings, or a string's decoded contents), merged."""
        if not text:
            return []
        hits: list[Hit] = []
        for m in self._builtin.finditer(text) if self._builtin is not None else ():
            group = next(g for g, v in m.groupdict().items() if v is not None and g[0] == "s")
            idx = int(group[1:])
            rule_id = BUILTIN_IDS[idx]
            value = m.group(group)
            if rule_id == "key-value":
                name = key_name_before(text, m.start(f"k{idx}"), m.end(f"k{idx}"))
                if not self.secret_key(name):
                    continue
            if value.lower() in TRIVIAL_VALUES or (rule_id in NEEDS_PLAUSIBLE and not plausible(value)):
                continue
            hits.append(Hit(m.start(group), m.end(group), f"pattern:{rule_id}", True))
        if self._user_kv is not None:
            for m in self._user_kv.finditer(text):
                if m.group("s").lower() not in TRIVIAL_VALUES:
                    hits.append(Hit(m.start("s"), m.end("s"), f"key:{m.group('k')}", True))
        for n, rx in enumerate(self.rules.patterns, 1):
            for m in rx.finditer(text):
                s, e = m.span(1) if rx.groups else m.span()
                if e > s:
                    hits.append(Hit(s, e, f"user-pattern:{n}", True))
        if self._use_literal and self._literal is not None:
            for m in self._literal.finditer(text):
                value = m.group()
                if value in self._short:
                    if self.words:
                        hits.append(Hit(m.start(), m.end(), self._short[value], False, short=True))
                else:
                    hits.append(Hit(m.start(), m.end(), self._learnt.get(value, "seen"), False))
        if not hits:
            return []
        guarded = [m.span() for m in PLACEHOLDER.finditer(text)]
        hits.sort(key=lambda h: (h.start, -h.end))
        merged: list[Hit] = []
        for hit in hits:
            if any(s < hit.end and hit.start < e for s, e in guarded):
                continue
            if merged and hit.start < merged[-1].end:
                last = merged[-1]
                merged[-1] = Hit(
                    last.start,
                    max(last.end, hit.end),
                    last.label,
                    last.learn or hit.learn,
                    short=last.short and hit.short,
                )
            else:
                merged.append(hit)
        out = []
        for hit in merged:
            hit.value = text[hit.start : hit.end]
            if hit.learn:
                self.learn(hit.value, hit.label)
            out.append(hit)
        return out

    def _rebuild_literal(self) -> None:
        values = sorted(self._learnt, key=len, reverse=True)
        short = sorted(self._short, key=len, reverse=True)
        parts = [re.escape(v) for v in values]
        self._marker = None
        if short:
            words = "|".join(re.escape(v) for v in short)
            self._marker = re.compile("|".join([*parts, rf"{RAW_WORD_START}(?:{words})(?![0-9A-Za-z_])"]))
            parts.append(rf"{_WORD_START}(?:{words})(?![0-9A-Za-z_])")
        self._literal = re.compile("|".join(parts)) if parts else None
        self._escapable = any(_JSON_ESCAPED.search(v) for v in (*values, *short))
        self._dirty = False

    def secret_key(self, name: str) -> bool:
        known = self._keys_seen.get(name)
        if known is None:
            if len(self._keys_seen) > 4096:
                self._keys_seen.clear()
            known = self._keys_seen[name] = self.rules.is_secret_key(name)
        return known


def _user_key_pattern(keys: frozenset[str]) -> re.Pattern[str] | None:
    """Free-text `NAME=value` / `NAME: value` for the user's `--redact-key` names."""
    if not keys:
        return None
    names = "|".join("[-_.]?".join(re.escape(c) for c in key) for key in sorted(keys, key=len, reverse=True))
    return re.compile(
        r"(?i)(?<![A-Za-z0-9_.-])(?P<k>[-]*(?:" + names + r"))[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<s>[^\s\"'&,;<>()\[\]{}]+)"
    )

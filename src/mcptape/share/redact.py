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

import re
from collections.abc import Iterable, Mapping
from typing import Any

from mcptape.share.finder import MIN_LEARNT, Finder, Hit
from mcptape.share.jsonscan import STRING, Decoded, inside_at, json_text
from mcptape.share.placeholder import PLACEHOLDER, Key, placeholder
from mcptape.share.rules import KV_TAIL, TRIVIAL_VALUES, Rules
from mcptape.share.structure import (
    COLON,
    GAP_NUMBER,
    HOST_PAIR,
    USERINFO,
    Scan,
    in_string,
    is_schema,
    key_text,
)

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+(?=\S)")
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")
_PEM_BODY = re.compile(r"[A-Za-z0-9+/=]*|[A-Za-z-]+: .*")  # base64, or a header like `DEK-Info: ...`
_INVALID_JSON_MARK = "\\?"  # keeps a string that held an invalid escape invalid after redaction
_INVALID_UTF8_MARK = "\udcff"  # encodes back to the byte 0xff: an undecodable line stays undecodable


class Redactor:
    """Replaces secrets in lines, header fields and argv; remembers the secrets it has seen."""

    def __init__(self, rules: Rules, key: Key) -> None:
        self.rules = rules
        self.key = key
        self.find = Finder(rules)
        self.learn = self.find.learn
        self.replaced = 0
        self.found: dict[str, set[str]] = {}  # digest -> labels of the rules that found it
        self._cache: dict[str, str] = {}
        self._pem: set[str] = set()  # channels inside a PEM private key printed over several lines

    def reset(self) -> None:
        """Forget the counts and the line state, keep what was learnt (between two passes)."""
        self.found.clear()
        self.replaced = 0
        self._pem.clear()

    @property
    def version(self) -> int:
        """Grows whenever a new secret value is learnt (a line redacted before may now redact more)."""
        return self.find.version

    # -- what it knows ---------------------------------------------------------------------
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
    def line(self, data: bytes, channel: str | None = None) -> bytes:
        """One line of a byte channel (with or without its newline), redacted. Give `channel` when
        lines are fed in stream order: a PEM private key printed over several lines is followed."""
        return self.block(data, channel)

    def block(self, data: bytes, channel: str | None = None, *, inside: bool = False) -> bytes:
        """Several whole lines at once: one quick check for the whole block, then line by line.
        `inside`: the first line is the rest of a line cut inside a JSON string (`cut`)."""
        text = data.decode("utf-8", "surrogateescape")
        if channel not in self._pem and not self.find.prepare(text):
            return data
        lines = text.split("\n")
        out = [self._one(line, channel, inside and i == 0) for i, line in enumerate(lines)]
        if all(a is b for a, b in zip(out, lines, strict=True)):
            return data
        return "\n".join(out).encode("utf-8", "surrogateescape")

    def _one(self, line: str, channel: str | None, inside: bool = False) -> str:
        if inside:  # read after an opening quote, so its strings pair as in the whole line
            quoted = '"' + line
            out = self.text(quoted)
            if out is quoted:
                return line
            return out[1:] if out.startswith('"') else self.text(line)
        if channel is None:
            return self.text(line)
        if channel in self._pem:
            body = line.rstrip("\r")
            if _PEM_BODY.fullmatch(body):
                return self.placeholder(body, "pattern:private-key") + line[len(body) :] if body else line
            self._pem.discard(channel)  # the END line, or anything else: the block is over
        elif _PEM_BEGIN.fullmatch(line.strip()):
            self._pem.add(channel)
        return self.text(line)

    def text(self, text: str, *, words: bool = True) -> str:
        """Redact one line of text (or one JSON value over several); returns `text` itself when
        nothing changed. `words=False`: a short seen value stays (an HTTP start line, a header
        that is not secret-looking: `HTTP/1.1` is not the password `1`)."""
        if not self.find.prepare(text):
            return text
        self.find.words = words
        try:
            edits = self._edits(text)
        finally:
            self.find.words = True
        return self._apply(text, edits) if edits else text

    def cut(self, data: bytes, keep: int, *, inside: bool = False) -> tuple[bytes, bytes, bool]:
        """An unterminated line that must be written now (live redaction's 8 MiB cut), split in
        two: its head redacted, a raw tail of at least `keep` bytes, to be redacted with what
        follows, and whether the tail starts inside a JSON string (give it to `block` and the next
        `cut` as `inside`, as `data`'s own is given here: a tail read without it would pair its
        quotes the other way round, and a `"password": "..."` after the cut would be two bare
        words). The cut never falls inside a secret found in the whole of `data`, nor inside an
        escape, so a secret that straddles it is in the tail, whole (unless one secret spans
        nearly all of `data`: then everything is written, redacted)."""
        text = data.decode("utf-8", "surrogateescape")
        shift = 1 if inside else 0
        whole = '"' + text if inside else text
        found = self._edits(whole) if self.find.prepare(whole) else []
        edits = sorted((max(0, s - shift), e - shift, r) for s, e, r in found)
        at = max(0, len(text) - keep)
        moved = True
        after = inside
        while moved and at > 0:
            moved = False
            for start, end, _ in edits:
                if start < at < end:
                    at, moved = start, True
            after = inside_at(text, at, inside)
            if after and _odd_backslashes(text, at):  # never between a backslash and what it escapes
                at, moved = at - 1, True
        if at <= 0:
            at, after = len(text), inside_at(text, len(text), inside)
        head = text[:at]
        done = [edit for edit in edits if edit[1] <= at]
        redacted = (self._apply(head, done) if done else head).encode("utf-8", "surrogateescape")
        return redacted, text[at:].encode("utf-8", "surrogateescape"), after

    def _edits(self, text: str) -> list[tuple[int, int, str]]:
        """The replacements for one line of text, as (start, end, replacement); `find.prepare(text)`
        must have been called. A string token whose contents hold JSON (an escaped quote) is read
        again inside, to any depth: JSON inside JSON inside JSON."""
        edits: list[tuple[int, int, str]] = []  # raw start, raw end, replacement
        gaps: list[tuple[int, list[Hit], str]] = []  # free text between strings: applied last
        tokens = list(STRING.finditer(text))
        forced: dict[int, str] = {}  # token index -> label: the whole contents are a secret
        decoded: dict[int, Decoded] = {}  # token index -> its contents, decoded once
        scan = Scan(tokens)
        pos = 0
        for i, m in enumerate(tokens):
            gap = text[pos : m.start()]
            if self.find.may_hit(pos, m.start()):
                gaps.append((pos, self.find.hits(gap), gap))
            if i not in forced and gap.rstrip(" \t").endswith((":", "=")):
                kv = KV_TAIL.search(gap)
                if kv is not None and self.find.secret_key(kv.group("k")):
                    forced[i] = f"key:{kv.group('k')}"
            pos = m.end()
            colon = COLON.match(text, m.end())
            if colon is not None:
                name = key_text(m.group())
                if self.find.secret_key(name) and i >= scan.covered:
                    self._mark_value(text, scan, i, colon.end(), f"key:{name}", forced, edits)
            label = forced.get(i)
            host = i and tokens[i - 1].end() - tokens[i - 1].start() == 6  # `"Host"`: a cheap test first
            if host and label is None and HOST_PAIR.fullmatch(text, tokens[i - 1].start(), m.start()):
                self._host(Decoded(m.group()[1:-1]), m.start() + 1, edits)
            if label is not None:
                self._whole(Decoded(m.group()[1:-1]), m.start() + 1, label, edits)
            elif self.find.may_hit(m.start() + 1, m.end() - 1):
                contents = decoded[i] = Decoded(m.group()[1:-1])
                for hit in self.find.hits(contents.text):
                    self._edit(contents, m.start() + 1, hit.start, hit.end, hit.value, hit.label, edits)
        if self.find.may_hit(pos, len(text)):
            gaps.append((pos, self.find.hits(text[pos:]), text[pos:]))
        if any(hits for _, hits, _ in gaps):
            self._gap_edits(text, gaps, edits)
        # JSON held in a string: its own keys and strings are read (the finder's per-line state is
        # not needed past this point, so reading the inner text may reset it).
        for i, m in enumerate(tokens):
            if i not in forced and '\\"' in m.group():
                # the raw contents hold every trigger the decoded ones do (`\\u` escapes make
                # `prepare` look everywhere): nothing to find there, nothing to decode
                if not self.find.prepare(m.group()[1:-1]):
                    continue
                contents = decoded.get(i) or Decoded(m.group()[1:-1])
                if not self.find.prepare(contents.text):
                    continue
                for start, end, replacement in self._edits(contents.text):
                    rs, re_ = contents.raw_span(start, end)
                    edits.append((m.start() + 1 + rs, m.start() + 1 + re_, in_string(replacement)))
        return edits

    def _apply(self, text: str, edits: list[tuple[int, int, str]]) -> str:
        edits.sort()
        out: list[str] = []
        pos = 0
        for start, end, replacement in edits:
            if end <= pos:  # already covered by the previous edit
                continue
            if start < pos:  # overlaps it: what the previous edit left of this secret goes too
                out.append(self.placeholder(text[pos:end], "overlap"))
                pos = end
                continue
            out.append(text[pos:start])
            out.append(replacement)
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _mark_value(
        self,
        text: str,
        scan: Scan,
        i: int,
        at: int,
        label: str,
        forced: dict[int, str],
        edits: list[tuple[int, int, str]],
    ) -> None:
        """The value after a secret key: a string, a number, or every string and number inside an
        array or object at any depth (object keys stay), except an object that is a JSON Schema
        (a tool's inputSchema describing an `api_key` property), which is read key by key."""
        if at >= len(text):
            return
        tokens = scan.tokens
        c = text[at]
        if c == '"' and i + 1 < len(tokens) and tokens[i + 1].start() == at:
            forced[i + 1] = label
        elif c in "[{":
            members, end = scan.container(text, i, at)
            if c == "{" and is_schema(text, at, tokens, members):
                return
            scan.covered = max(scan.covered, (members[-1][0] + 1) if members else i + 1)
            for j, is_key in members:
                if not is_key:
                    forced.setdefault(j, label)
            pos = at
            for j, _ in [*members, (-1, False)]:
                stop = tokens[j].start() if j >= 0 else end
                for found in GAP_NUMBER.finditer(text, pos, stop):
                    self._number(found, label, edits)
                if j >= 0:
                    pos = tokens[j].end()
        else:
            num = _NUMBER.match(text, at)
            if num is not None:
                self._number(num, label, edits)

    def _number(self, num: re.Match[str], label: str, edits: list[tuple[int, int, str]]) -> None:
        """A secret number becomes a quoted placeholder (the line stays valid JSON)."""
        value = num.group()
        ph = self.placeholder(value, label)
        self.learn(value, label)
        valid = _JSON_NUMBER.fullmatch(value) is not None
        edits.append((num.start(), num.end(), f'"{ph}"' if valid else ph))

    def _host(self, contents: Decoded, offset: int, edits: list[tuple[int, int, str]]) -> None:
        """The value of a `Host` header in JSON (`["Host", "user:pw@host"]`): its password."""
        userinfo = USERINFO.match(contents.text)
        if userinfo is not None and userinfo.group("s").lower() not in TRIVIAL_VALUES:
            secret = userinfo.group("s")
            self.learn(secret, "pattern:url-password")
            self._edit(
                contents,
                offset,
                userinfo.start("s"),
                userinfo.end("s"),
                secret,
                "pattern:url-password",
                edits,
            )

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

    def _gap_edits(
        self, text: str, gaps: list[tuple[int, list[Hit], str]], edits: list[tuple[int, int, str]]
    ) -> None:
        """Secrets between strings. In a valid JSON line that text is structure: only a number equal
        to a secret is replaced (by a quoted placeholder); elsewhere the placeholder, which is
        never valid JSON, goes in as it is."""
        valid = json_text(text)
        for offset, hits, gap in gaps:
            for hit in hits:
                if valid and hit.short:
                    continue  # a short value in a JSON line's structure is a number, an id: not it
                if valid:  # the whole number the secret is part of becomes one quoted placeholder
                    for num in _NUMBER.finditer(gap):
                        if num.start() <= hit.start and hit.end <= num.end():
                            ph = self.placeholder(num.group(), hit.label)
                            edits.append((offset + num.start(), offset + num.end(), f'"{ph}"'))
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


def _odd_backslashes(text: str, at: int) -> bool:
    """Whether the backslashes just before `at` leave the last one escaping `text[at]`."""
    n = 0
    while at - n > 0 and text[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1


def _has_undecodable(text: str) -> bool:
    return any("\udc80" <= c <= "\udcff" for c in text)

"""What counts as a secret: key names, token patterns, and the user's own rules.

Each built-in pattern has an id (written to the header of a redacted transcript) and a named
group `s`: only that group is replaced, never the rest of the match (`Authorization: Bearer `
stays readable, the token does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from mcptape.errors import UsageError

# Key names are compared normalised: lower case, without `-`, `_`, `.` or spaces
# (`api_key`, `apiKey`, `API-KEY` and `x-api-key`'s tail are all `apikey`).
SECRET_KEYS = frozenset(
    {
        "authorization",
        "proxyauthorization",
        "apikey",
        "token",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "authtoken",
        "sessiontoken",
        "password",
        "passwd",
        "passphrase",
        "secret",
        "clientsecret",
        "apisecret",
        "secretkey",
        "privatekey",
        "cookie",
        "setcookie",
        "credential",
        "credentials",
    }
)
# A key ending with one of these is a secret too (`GITHUB_TOKEN`, `openaiApiKey`, `x-auth-token`).
SECRET_SUFFIXES = (
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "privatekey",
    "secretkey",
    "accesskey",
    "cookie",
    "authorization",
    "credentials",
    # plurals, for lists of them (not `tokens`: `maxTokens`, `input_tokens` count tokens)
    "apikeys",
    "secrets",
    "passwords",
    "passphrases",
    "privatekeys",
    "secretkeys",
    "accesskeys",
    "cookies",
)
# ... except these, which MCP or common APIs use for things that are not secrets.
NOT_SECRET_KEYS = frozenset({"progresstoken", "pagetoken", "nextpagetoken", "continuationtoken"})
_STRIP = re.compile(r"[-_.\s\"']")
TRIVIAL_VALUES = frozenset({"", "null", "none", "nil", "true", "false", "undefined", "***", "redacted"})


def normalise_key(name: str) -> str:
    """`X-Api-Key` -> `xapikey`: the form key names are compared in."""
    return _STRIP.sub("", name.lower())


# Free text: a secret-looking key-name suffix, then `=` or `:`; the whole name (read backwards from
# the suffix, see `key_name_before`) must be a secret key.
_KV_KEY = (
    r"(?P<k>api[-_.]?key|token|secret|password|passwd|passphrase|"
    r"private[-_.]?key|secret[-_.]?key|access[-_.]?key|credentials?)"
)
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "authorization-header",
        r"(?i:authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:(?:bearer|basic|token|bot|digest|negotiate|apikey)[ \t]+)?(?P<s>[^\s\"',;]+))",
    ),
    ("cookie-header", r"(?i:(?<![A-Za-z0-9])(?:set-)?cookie[\"']?[ \t]*[:=][ \t]*[\"']?(?P<s>[^\"'\r\n]+))"),
    ("bearer", r"(?i:\b(?:bearer|basic)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{8,}=*))"),
    (
        "private-key",
        r"(?s:(?P<s>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)))",
    ),
    ("openai-key", r"(?<![A-Za-z0-9_-])(?P<s>sk-[A-Za-z0-9_-]{16,})"),
    ("stripe-key", r"(?<![A-Za-z0-9])(?P<s>[rsp]k_(?:live|test)_[A-Za-z0-9]{10,})"),
    ("github-token", r"(?<![A-Za-z0-9])(?P<s>gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("slack-token", r"(?<![A-Za-z0-9])(?P<s>xox[abposr]-[A-Za-z0-9-]{10,})"),
    ("aws-access-key-id", r"(?<![A-Za-z0-9])(?P<s>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])"),
    ("google-api-key", r"(?<![A-Za-z0-9])(?P<s>AIza[0-9A-Za-z_-]{35})"),
    ("jwt", r"(?<![A-Za-z0-9_-])(?P<s>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"),
    # userinfo's password, the user possibly empty (`redis://:pw@host`), after `scheme://` or in
    # an HTTP `Host` header (`Host: user:pw@host`, `["Host", "user:pw@host"]` in an http record)
    (
        "url-password",
        r"(?:://|(?i:(?<![A-Za-z0-9_-])host)[\"']?[ \t]*[:=,][ \t]*[\"']?)"
        r"[^/\s:@\"']*:(?P<s>[^/\s@\"']+)@",
    ),
    ("key-value", r"(?i:" + _KV_KEY + r"[\"']?[ \t]*[:=][ \t]*[\"']?(?P<s>[^\s\"'&,;<>()\[\]{}]+))"),
)
# Lower-case substrings without which a pattern cannot match: a line holding none of them skips it.
# (Checked on the raw line; `\\u` escapes, which could hide them, disable the shortcut.)
PATTERN_TRIGGERS: dict[str, tuple[str, ...]] = {
    "authorization-header": ("authorization",),
    "cookie-header": ("cookie",),
    "bearer": ("bearer", "basic"),
    "private-key": ("private key",),
    "openai-key": ("sk-",),
    "stripe-key": ("k_live_", "k_test_"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "slack-token": ("xox",),
    "aws-access-key-id": ("akia", "asia"),
    "google-api-key": ("aiza",),
    "jwt": ("eyj",),
    "url-password": ("@",),  # a userinfo always ends with it (`\\u0040` makes `prepare` look everywhere)
    "key-value": ("key", "token", "secret", "passw", "passphrase", "credential"),
}
# Every built-in secret key name, in any spelling (`pass_word`, `API-KEY`), contains one of these.
KEY_TRIGGERS = ("key", "token", "secret", "pass", "auth", "cookie", "credential")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def key_name_before(text: str, start: int, end: int) -> str:
    """The whole key-like word ending at `end` whose secret-looking suffix starts at `start`."""
    while start > 0 and text[start - 1] in _KEY_CHARS:
        start -= 1
    return text[start:end]


# Patterns whose hit must also look like a credential (see `plausible`), to spare prose.
NEEDS_PLAUSIBLE = frozenset({"bearer", "key-value", "cookie-header"})
# A free-text `key = ` or `key: ` right before a string token: that string is the key's value.
KV_TAIL = re.compile(r"(?i)(?<![A-Za-z0-9_.-])(?P<k>[A-Za-z0-9_.-]+)[ \t]*[:=][ \t]*$")


def plausible(value: str) -> bool:
    """Does a word look like a credential rather than prose (a digit, or mixed case, or a symbol)?"""
    if any(c.isdigit() for c in value):
        return True
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    if upper >= 2 and lower >= 2:
        return True
    return any(not c.isalnum() for c in value[1:-1]) and len(value) >= 12


def compile_builtin(ids: Iterable[str] | None = None) -> re.Pattern[str] | None:
    """One alternation of the built-in patterns (all, or those named in `ids`); group `s<i>` is the
    secret of `BUILTIN_IDS[i]`. None when no pattern is wanted."""
    wanted = None if ids is None else set(ids)
    parts = []
    for i, (rule_id, pattern) in enumerate(BUILTIN_PATTERNS):
        if wanted is None or rule_id in wanted:
            parts.append(pattern.replace("(?P<s>", f"(?P<s{i}>").replace("(?P<k>", f"(?P<k{i}>"))
    return re.compile("|".join(parts)) if parts else None


BUILTIN_IDS = [rule_id for rule_id, _ in BUILTIN_PATTERNS]


@dataclass
class Rules:
    """The rules one redaction runs with: built-ins plus `--redact-key NAME` and `--redact REGEX`."""

    extra_keys: frozenset[str] = frozenset()
    patterns: list[re.Pattern[str]] = field(default_factory=list)
    use_env: bool = True

    @classmethod
    def build(
        cls,
        keys: Iterable[str] = (),
        regexes: Iterable[str] = (),
        *,
        use_env: bool = True,
        regex_flag: str = "--redact",
    ) -> Rules:
        """Validate user rules; a malformed or empty-matching regex is a usage error (exit 2).

        `regex_flag` is the option the regexes came from, named in the error (record's is
        `--redact-pattern`).
        """
        compiled = []
        for source in regexes:
            try:
                rx = re.compile(source)
            except (re.error, OverflowError, RecursionError) as exc:  # a{99999999999}: OverflowError
                raise UsageError(
                    f"{regex_flag} {source!r} is not a valid regular expression ({exc})",
                    hint="Python `re` syntax; quote it for the shell",
                ) from None
            if rx.fullmatch("") is not None or rx.search("") is not None:
                raise UsageError(
                    f"{regex_flag} {source!r} matches the empty string", hint="make it match only the secret"
                )
            compiled.append(rx)
        names = set()
        for key in keys:
            norm = normalise_key(key)
            if not norm:
                raise UsageError(f"--redact-key {key!r} is not a key name")
            names.add(norm)
        return cls(frozenset(names), compiled, use_env)

    def is_secret_key(self, name: str) -> bool:
        """Is a JSON key, flag or variable with this name a secret (compared normalised)?"""
        norm = normalise_key(name).lstrip("-")
        if norm in self.extra_keys or norm in SECRET_KEYS:
            return True
        if norm in NOT_SECRET_KEYS:
            return False
        return norm.endswith(SECRET_SUFFIXES)

    def describe(self) -> dict[str, object]:
        """What the header records about the rules (never a value, nor a user regex: it may hold one)."""
        return {
            "rules": ["secret-keys", *BUILTIN_IDS, "seen-values"],
            "keys": sorted(self.extra_keys),
            "user_patterns": len(self.patterns),
            "env": self.use_env,
        }

"""The redaction rules, line by line: what is a secret, what is replaced, what stays byte-identical."""

from __future__ import annotations

import orjson
import pytest

from mcptape.errors import UsageError
from mcptape.share.placeholder import PLACEHOLDER, Key, Unredactor, placeholder, verify
from mcptape.share.redact import Redactor
from mcptape.share.rules import Rules

KEY = Key(bytes(range(16)), bytes(range(16)).hex())


def _ph(value: str) -> str:
    return placeholder(KEY.secret, value)


def _redactor(**kwargs: object) -> Redactor:
    return Redactor(Rules.build(**kwargs), KEY)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ('{"params":{"arguments":{"api_key":"V4lue-one"}}}', "V4lue-one"),
        ('{"a":[{"b":{"apiKey":"V4lue-two"}}]}', "V4lue-two"),
        ('{"API-KEY": "V4lue-three"}', "V4lue-three"),
        ('{"x-api-key":"V4lue-four"}', "V4lue-four"),
        ('{"client_secret":"V4lue-five"}', "V4lue-five"),
        ('{"refresh_token":"V4lue-six"}', "V4lue-six"),
        ('{"GITHUB_TOKEN":"V4lue-seven"}', "V4lue-seven"),
        ('{"Password" : "correct horse battery"}', "correct horse battery"),
        ('{"private_key":"V4lue-eight"}', "V4lue-eight"),
        ('{"set-cookie":["sid=V4lue-nine; Path=/"]}', "sid=V4lue-nine; Path=/"),
        ('{"Cookie":"V4lue-ten"}', "V4lue-ten"),
    ],
)
def test_secret_keys_are_found_at_any_depth_in_any_spelling(line: str, secret: str) -> None:
    """A string under a secret key (case, `-`/`_` and prefixes aside) becomes its placeholder."""
    out = _redactor().text(line)
    assert secret not in out
    assert out == line.replace(secret, _ph(secret))


def test_an_authorization_value_keeps_its_scheme() -> None:
    """`Bearer ` stays readable; only the credential after it is replaced."""
    out = _redactor().text('{"headers":{"Authorization":"Bearer abc.DEF.123"}}')
    assert out == '{"headers":{"Authorization":"Bearer ' + _ph("abc.DEF.123") + '"}}'


@pytest.mark.parametrize(
    "line",
    [
        '{"params":{"_meta":{"progressToken":"tok-77"}}}',
        '{"inputSchema":{"properties":{"api_key":{"type":"string"}},"required":["api_key"]}}',
        '{"token":true,"password":null,"secret":""}',
        "the token expired; please log in again",
        "Bearer of bad news",
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}',
    ],
)
def test_things_that_are_not_secrets_are_left_alone(line: str) -> None:
    """MCP's progressToken, schemas naming a secret key, empty values and prose stay as they are."""
    assert _redactor().text(line) == line


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("curl -H 'Authorization: Bearer eyJhbGciOi.x9Yz.Q2'", "eyJhbGciOi.x9Yz.Q2"),
        ("using sk-proj-abcdefghijklmnopqrstuv now", "sk-proj-abcdefghijklmnopqrstuv"),
        ("GH ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("aws AKIAIOSFODNN7EXAMPLE ok", "AKIAIOSFODNN7EXAMPLE"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-nature_1 end",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig-nature_1",
        ),
        ("db postgres://admin:s3cretPass@db.local/x", "s3cretPass"),
        ("env OPENAI_API_KEY=whatever-123 next", "whatever-123"),
        ("start --access-token=Tk-998877 --verbose", "Tk-998877"),
        ("xoxb-1234567890-abcdefghij in slack", "xoxb-1234567890-abcdefghij"),
    ],
)
def test_patterns_replace_only_the_matched_secret_in_free_text(line: str, secret: str) -> None:
    """Token patterns in stderr-like text: the token goes, the words around it stay."""
    out = _redactor().text(line)
    assert out == line.replace(secret, _ph(secret))


def test_a_secret_hidden_behind_json_escapes_is_found_and_replaced_whole() -> None:
    """Escapes are decoded before matching; the whole escaped span is replaced, the rest kept."""
    line = r'{"text":"key \"sk-abcdefghijklmnop\u0071rstuv\" and caf\u00e9"}'
    out = _redactor().text(line)
    assert out == r'{"text":"key \"' + _ph("sk-abcdefghijklmnopqrstuv") + r'\" and caf\u00e9"}'
    assert orjson.loads(out)["text"].startswith('key "[redacted:')


def test_a_secret_seen_once_is_replaced_everywhere_after() -> None:
    """The password sent in a request is replaced where the server echoes it as bare text."""
    r = _redactor()
    r.text('{"arguments":{"password":"pa55word-xyz"}}')
    out = r.text('{"content":[{"text":"you sent pa55word-xyz!"}]}')
    assert out == '{"content":[{"text":"you sent ' + _ph("pa55word-xyz") + '!"}]}'


def test_a_number_under_a_secret_key_becomes_a_quoted_placeholder() -> None:
    """The line stays valid JSON: the number is replaced by a string."""
    out = _redactor().text('{"pin":1,"password":123456,"id":7}')
    assert out == '{"pin":1,"password":"' + _ph("123456") + '","id":7}'
    assert orjson.loads(out)["id"] == 7


def test_an_invalid_string_stays_invalid() -> None:
    """A secret holding a bad escape: the placeholder is followed by `\\?`, so the line stays non-JSON."""
    line = '{"token":"ab\\xcd"}'
    out = _redactor().text(line)
    assert "ab\\xcd" not in out
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(out)


def test_undecodable_bytes_stay_undecodable() -> None:
    """A secret holding invalid UTF-8: the redacted line is still not valid UTF-8."""
    line = b'{"token":"x\xffyz-secret"}\n'
    out = _redactor().line(line)
    assert b"yz-secret" not in out
    assert out.endswith(b"\n")
    with pytest.raises(UnicodeDecodeError):
        out.decode("utf-8")


def test_redacting_twice_changes_nothing() -> None:
    """Placeholders are never redacted again (a redacted transcript can be redacted again safely)."""
    r = _redactor()
    once = r.text('{"api_key":"V4lue-one","text":"sk-abcdefghijklmnopqrstuv"}')
    assert _redactor().text(once) == once


def test_user_keys_and_patterns() -> None:
    """`--redact-key NAME` works like a built-in key, `--redact REGEX` replaces its group 1."""
    r = _redactor(keys=["tenant-id"], regexes=[r"acct-(\d{6})"])
    out = r.text('{"tenantId":"t-42","note":"acct-123456 / tenant_id=t-43"}')
    expected = '{"tenantId":"' + _ph("t-42") + '","note":"acct-' + _ph("123456") + " / tenant_id="
    assert out == expected + _ph("t-43") + '"}'


def test_argv_flags_hide_the_next_argument() -> None:
    """`--token VALUE` and `--api-key=VALUE` in a command line, and VALUE echoed later."""
    r = _redactor()
    argv = r.argv(["srv", "--token", "abcdef123", "--api-key=zz-99887766", "--port", "8080"])
    assert argv == ["srv", "--token", _ph("abcdef123"), "--api-key=" + _ph("zz-99887766"), "--port", "8080"]
    assert r.text("started with abcdef123") == "started with " + _ph("abcdef123")


def test_environment_secrets_are_learnt_by_name() -> None:
    """Values of `*_TOKEN`, `*_API_KEY`, ... are replaced wherever they appear; others are not."""
    r = _redactor()
    names = r.learn_environment({"MY_SERVICE_TOKEN": "tok-123456", "HOME": "/home/someone"})
    assert names == ["MY_SERVICE_TOKEN"]
    assert r.text("token is tok-123456 in /home/someone") == f"token is {_ph('tok-123456')} in /home/someone"


@pytest.mark.parametrize(
    ("regex", "message"),
    [("acct-(", "not a valid regular expression"), ("x*", "matches the empty string")],
)
def test_bad_user_regexes_are_usage_errors(regex: str, message: str) -> None:
    """A malformed or empty-matching --redact is refused before any work."""
    with pytest.raises(UsageError, match=message):
        Rules.build(regexes=[regex])


def test_placeholders_verify_only_their_own_value() -> None:
    """HMAC-SHA256 under the key: the right value verifies, another does not, another key does not."""
    ph = _ph("hunter2")
    assert PLACEHOLDER.fullmatch(ph)
    assert verify(KEY.secret, ph, "hunter2")
    assert not verify(KEY.secret, ph, "hunter3")
    assert not verify(b"another key", ph, "hunter2")


def test_the_unredactor_substitutes_verified_values_json_escaped() -> None:
    """A verified value goes back in place, escaped inside a JSON string and raw in free text."""
    value = 'p"w\\d'
    digest = _ph(value)[10:-1]
    info = {"salt": KEY.salt, "found": {digest: ["key:password"]}}
    un = Unredactor.build(info, [("password", value), ("other", "wrong")], environ={})
    assert un.unmatched == ["other"]
    line = ('{"password":"' + _ph(value) + '"}').encode()
    assert orjson.loads(un.line(line)) == {"password": value}
    assert un.line(f"raw {_ph(value)}".encode()) == f"raw {value}".encode()


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ('{"\\u0074oken":"abcdef123"}', "abcdef123"),
        ('{"dsn":"postgres:\\/\\/admin:pw123456@db"}', "pw123456"),
    ],
)
def test_escapes_cannot_hide_a_key_or_a_url_from_the_quick_checks(line: str, secret: str) -> None:
    """The substring shortcut never skips a line whose trigger is spelled with JSON escapes."""
    out = _redactor().text(line)
    assert secret not in out and _ph(secret) in out
    assert orjson.loads(out)


def test_the_unredactor_never_splits_a_line() -> None:
    """A value holding a newline goes back inside JSON strings (escaped) but not into bare text."""
    value = "two\nlines"
    info = {"salt": KEY.salt, "found": {_ph(value)[10:-1]: ["key:password"]}}
    un = Unredactor.build(info, [("password", value)], environ={})
    assert un.line(('{"p":"' + _ph(value) + '"}\n').encode()) == b'{"p":"two\\nlines"}\n'
    assert un.line(f"bare {_ph(value)}\n".encode()) == f"bare {_ph(value)}\n".encode()


def test_a_secret_number_inside_a_longer_number_keeps_the_line_valid_json() -> None:
    """A seen numeric secret found inside a larger number: the whole number becomes one quoted placeholder."""
    r = _redactor()
    r.text('{"password":123456}')
    out = r.text('{"id":91234567,"n":123456}')
    assert orjson.loads(out) == {"id": _ph("91234567"), "n": _ph("123456")}


def test_a_pem_key_is_found_inside_json_and_over_raw_lines_of_one_channel() -> None:
    """Inside a JSON string the key goes whole; printed raw, each body line of that channel goes."""
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    pem = f"-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----"
    assert body not in _redactor().text('{"key":"' + pem + '"}')
    r = _redactor()
    lines = [
        ("err", b"-----BEGIN RSA PRIVATE KEY-----\n"),
        ("out", b'{"jsonrpc":"2.0","id":1,"result":{}}\n'),
        ("err", body.encode() + b"\n"),
        ("err", b"AAAB3NzaC1yc2E=\r\n"),
        ("err", b"-----END RSA PRIVATE KEY-----\n"),
        ("err", b"after the key\n"),
    ]
    out = [r.line(data, ch) for ch, data in lines]
    assert out[0].startswith(b"[redacted:") and out[1] == lines[1][1]
    assert out[2] == _ph(body).encode() + b"\n"
    assert out[3] == _ph("AAAB3NzaC1yc2E=").encode() + b"\r\n"
    assert out[4:] == [data for _, data in lines[4:]]


def test_a_line_that_is_not_key_material_ends_the_pem_block() -> None:
    """A truncated key never swallows the lines after it: the first non-base64 line is kept."""
    r = _redactor()
    r.line(b"-----BEGIN PRIVATE KEY-----\n", "err")
    assert r.line(b"Traceback (most recent call last):\n", "err") == b"Traceback (most recent call last):\n"
    assert r.line(b"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", "err") == b"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"

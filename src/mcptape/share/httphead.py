"""The head of an HTTP message in `mcptape redact`'s copy (see `httpcopy`), redacted line by line
as text, but read as HTTP: a short secret (a value shorter than 6 characters, `1`, `pw1`, replaced
as a whole word) goes only where a secret is carried, the value of a secret-looking header
(`Authorization`, `Cookie`, `X-Api-Key`...) and the target's query. The start line's method,
version and status, and the framing headers (`Content-Length`, `Transfer-Encoding`) are never
touched: `HTTP/1.1` is not the password `1`, and a length that became a placeholder would leave
the copy no HTTP and give the secret away (the one length that changed). Every other header is
searched for the patterns and the longer seen values, as any line is.
"""

from __future__ import annotations

from mcptape.share.redact import Redactor

FRAMING = frozenset({"content-length", "transfer-encoding"})


def redact_head(redactor: Redactor, head: bytes, start: str | None) -> bytes:
    """`head`'s lines (each ended by CRLF or LF, the last one perhaps cut) redacted. `start`:
    "request" or "response" when the first line is a start line, None for trailer fields."""
    text = head.decode("utf-8", "surrogateescape")
    out = []
    for n, line in enumerate(text.split("\n")):
        content = line.rstrip("\r")
        if not content:
            out.append(line)
            continue
        if n == 0 and start is not None:
            new = _start_line(redactor, content, request=start == "request")
        else:
            new = _field(redactor, content)
        out.append(new + line[len(content) :])
    joined = "\n".join(out)
    return head if joined == text else joined.encode("utf-8", "surrogateescape")


def _start_line(redactor: Redactor, line: str, *, request: bool) -> str:
    """`POST /mcp?query HTTP/1.1`: the target (a short secret in its query only);
    `HTTP/1.1 200 OK`: the reason phrase."""
    if request:
        parts = line.split(" ")
        if len(parts) != 3:
            return redactor.text(line, words=False)
        method, target, version = parts
        path, mark, query = target.partition("?")
        target = redactor.text(path, words=False) + mark + redactor.text(query)
        return f"{method} {target} {version}"
    parts = line.split(" ", 2)
    if len(parts) < 3:
        return line if len(parts) == 2 and parts[1].isdigit() else redactor.text(line, words=False)
    version, status, reason = parts
    return f"{version} {status} {redactor.text(reason, words=False)}"


def _field(redactor: Redactor, line: str) -> str:
    """`Name: value`: a framing header as it is; a secret-looking one's value with short secrets
    too; any other line as text without them."""
    name, colon, _ = line.partition(":")
    key = name.strip().lower()
    if colon and key in FRAMING:
        return line
    new = redactor.text(line, words=False)
    if colon and redactor.find.secret_key(key) and new.startswith(name + ":"):
        new = name + ":" + redactor.text(new[len(name) + 1 :])
    return new

"""Send an OTLP/HTTP export request, as the official exporter does: `POST {endpoint}/v1/traces` (or
the full URL given), `Content-Type: application/x-protobuf`, retried a bounded number of times on a
refused connection, a timeout, 429, 502, 503 and 504 (the OTLP/HTTP spec's retryable answers)."""

from __future__ import annotations

import http.client
import re
import time
import urllib.error
import urllib.request
from urllib.parse import SplitResult, urlsplit

from mcptape.errors import EXIT_FINDINGS, MCPTapeError, UsageError

TRACES_PATH = "/v1/traces"
RETRYABLE = frozenset({429, 502, 503, 504})
ATTEMPTS = 3
USERINFO = re.compile(r"//[^/?#]*@")  # a URL's user:password@, never shown
BACKOFF = 0.5  # seconds before the second attempt, doubled each time


class SendError(MCPTapeError):
    """The collector could not take the traces: one line, exit 1 (the export did not happen)."""

    exit_code = EXIT_FINDINGS

    def __init__(self, message: str, hint: str | None = None, reason: str = "") -> None:
        super().__init__(message, hint)
        self.reason = reason  # why the last attempt failed ("Connection refused", "HTTP 415 ...")


def traces_url(endpoint: str, option: str = "--endpoint") -> str:
    """The URL to POST to: `endpoint` when it already ends with /v1/traces, else that path appended
    (as the official exporter reads OTEL_EXPORTER_OTLP_ENDPOINT). A URL http.client cannot send (a
    bracket left open, a port that is no port, a control character, a space, non-ASCII text) or that
    carries a user name or password (never sent, never shown) is a usage error."""
    shown = USERINFO.sub("//***@", endpoint)
    parts: SplitResult | None = None
    try:
        parts = urlsplit(endpoint)
        port_ok = parts.port is None or parts.port >= 0
    except ValueError:  # a bracket left open, a port that is no number in 0..65535
        port_ok = False
    if parts is None or not port_ok or parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{option} {shown!r} is not an http(s) URL", hint="e.g. http://127.0.0.1:6006")
    if not endpoint.isascii() or not endpoint.isprintable() or " " in endpoint:
        raise UsageError(
            f"{option} {shown!r} holds a space, a control or a non-ASCII character",
            hint="percent-encode it (a host name in its xn-- form)",
        )
    if parts.username is not None or parts.password is not None:
        raise UsageError(
            f"{option} {shown!r} carries a user name or password, which mcptape does not send",
            hint="give the collector's URL without them",
        )
    if parts.path.rstrip("/").endswith(TRACES_PATH):
        return endpoint
    return parts._replace(path=parts.path.rstrip("/") + TRACES_PATH).geturl()


def send(
    endpoint: str, body: bytes, *, timeout: float = 10.0, attempts: int = ATTEMPTS, backoff: float = BACKOFF
) -> int:
    """POST `body` (a serialized ExportTraceServiceRequest); the HTTP status of the accepted answer.
    Raises SendError after `attempts` tries, naming the last reason."""
    url = traces_url(endpoint)
    reason = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1))
        request = urllib.request.Request(
            url, data=body, method="POST", headers={"Content-Type": "application/x-protobuf"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return int(answer.status)  # its body is not read: a collector may send one without end
        except urllib.error.HTTPError as exc:
            reason = f"HTTP {exc.code} {exc.reason}"
            if exc.code not in RETRYABLE:
                break
        except urllib.error.URLError as exc:
            reason = str(
                exc.reason.strerror if isinstance(exc.reason, OSError) and exc.reason.strerror else exc.reason
            )
        except http.client.HTTPException as exc:  # a status line that is not HTTP's, a header too long
            reason = f"the answer is not HTTP ({type(exc).__name__})"
        except (TimeoutError, OSError) as exc:
            reason = f"no answer within {timeout:g} s" if isinstance(exc, TimeoutError) else str(exc)
    tries = f"{attempts} attempt(s)" if reason and not reason.startswith("HTTP 4") else "1 attempt"
    raise SendError(
        f"cannot send the traces to {url}: {reason} ({tries})",
        hint="is the collector running?",
        reason=reason,
    )

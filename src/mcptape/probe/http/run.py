"""`mcptape probe --url URL [-- CMD]`: the hard inputs of Streamable HTTP, one server, one transcript.

With `-- CMD` the server is started as a replay over HTTP starts it (`recorder.http.run.QuietServer`:
its stdout, stderr and executor tap recorded; the loopback HTTP sink and the command stubs on, from
`recorder.outbound.sideeffects`), and mcptape waits until the URL accepts connections (`recorder.http.run.
wait_for`). Without it, the server at the URL is probed as it runs: its actions are not observable.
Either way every request goes through the recording reverse proxy `record --http-upstream` uses, so
`DIR/http.jsonl` is an HTTP transcript that `check`, `view` and `tools lock` read.

The URL must be on this machine (loopback): the probe sends requests that a tolerant server may run.

The clean start (`start`: initialize, initialized, tools/list, the valid call, chosen as the stdio
probe chooses it) runs first; then each hard input (`cases.HTTP_CASES`), each followed by the
valid request in the clean session (does the server still serve it, alone?). Each step's time on
the transcript's clock is kept, and `judge` attributes the executor and HTTP lines in between.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from mcptape.errors import MCPTapeError, UsageError
from mcptape.probe.candidates import candidate_calls
from mcptape.probe.cases import Call
from mcptape.probe.driver import CLIENT_INFO, Reply, Status, refusal
from mcptape.probe.http.cases import SESSION, HttpCase, Wire, headers
from mcptape.probe.http.client import Answer, HttpRequest, exchange
from mcptape.probe.http.judge import CaseRun, StartRun
from mcptape.probe.plan import Plan
from mcptape.textsafe import escape_text

PROPOSED_VERSION = "2025-11-25"
SETTLE = 0.05  # seconds after an answer before the next request: a tap line written before it lands
TRANSCRIPT = "http.jsonl"
LOOPBACK_HINT = "run the server here and probe it on 127.0.0.1 (the probe's requests may run its tools)"


class ServerDiedHttp(MCPTapeError):
    """The server started by `-- CMD` never accepted connections on the URL (exit 2)."""


class Probed:
    """The live side of one HTTP probe: the proxy's address, the transcript clock, the requests."""

    def __init__(self, plan: Plan, address: tuple[str, int], target: str, clock: Any) -> None:
        self.plan = plan
        self.address = address
        self.target = target
        self.clock = clock  # the transcript writer's `now()` and `fields()`
        self.wire = Wire(None, None)
        self.case = "start"

    def now(self) -> float:
        return float(self.clock.now())

    def note(self, text: str) -> None:
        self.clock.fields(self.clock.now(), "note", msg=text)

    def send(self, request: HttpRequest, *, until: Any = None, timeout: float | None = None) -> Answer:
        """One request through the proxy; its body first passes the guard (`safety.Reach`)."""
        self.plan.reach.sent(self.case, request.body)
        wait = self.plan.timeout if timeout is None else timeout
        return exchange(
            self.address, self.target, request, wait, until=until, head_only=request.method == "GET"
        )

    def post(self, message: dict[str, Any], wire: Wire | None = None, timeout: float | None = None) -> Answer:
        return self.send(
            HttpRequest("POST", headers(wire or self.wire), orjson.dumps(message)),
            until=message.get("id"),
            timeout=timeout,
        )

    def open_session(self, rid: Any, timeout: float | None = None) -> tuple[Answer, Wire]:
        """initialize (and `notifications/initialized`): the answer and the session it opened."""
        params = {"protocolVersion": PROPOSED_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        message = {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}
        answer = self.post(message, Wire(None, None), timeout)
        reply = reply_of(answer, rid)
        result = reply.result
        if result is None:
            return answer, Wire(None, None)
        version = result.get("protocolVersion")
        wire = Wire(answer.header(SESSION), version if isinstance(version, str) else PROPOSED_VERSION)
        self.send(
            HttpRequest("POST", headers(wire), b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        )
        return answer, wire


def reply_of(answer: Answer, rid: Any) -> Reply:
    """The answer to `rid` as the stdio driver's `Reply` (so `driver.refusal` judges it)."""
    message = answer.answer_to(rid)
    if message is not None:
        return Reply(Status.ANSWERED, message, answer.waited)
    return Reply(Status.TIMEOUT if answer.timed_out else Status.GONE, None, answer.waited)


def check_url(url: str) -> tuple[str, int, str]:
    """The URL's host, port and path (one `Error:` line, exit 2, for a URL that is not one, or
    that names another machine)."""
    from mcptape.recorder.http.hostrewrite import is_loopback

    hint = "e.g. --url http://127.0.0.1:8000/mcp"
    scheme, _, rest = url.partition("//") if "//" in url else ("", "", url)
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" in authority:  # user:password@: never shown, never sent
        shown = escape_text(f"{scheme}//***@{rest.split('@', 1)[1]}")
        raise UsageError(
            f"--url {shown!r} carries a user name or password, which the probe does not send", hint=hint
        )
    try:  # urlsplit raises on a bracket left open, .port on a port that is no port
        parts = urlsplit(url)
        port = parts.port or 80
    except ValueError:
        raise UsageError(f"--url {escape_text(url)!r} has an invalid host or port", hint=hint) from None
    if parts.scheme != "http" or not parts.hostname:
        raise UsageError(f"--url {escape_text(url)!r} is not an http:// URL with a host", hint=hint)
    if not url.isascii() or not url.isprintable() or " " in url:  # not sendable in a request line
        raise UsageError(
            f"--url {escape_text(url)!r} holds a space, a control or a non-ASCII character", hint=hint
        )
    if not is_loopback(parts.hostname):
        raise UsageError(f"--url {escape_text(url)!r} is not on this machine (loopback)", hint=LOOPBACK_HINT)
    return parts.hostname, port, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


@contextmanager
def serving(plan: Plan, url: str) -> Iterator[tuple[Probed, Path]]:
    """The server (started with its side effects when `plan.command` names it), the recording
    proxy in front of it, the transcript; everything stopped and closed at the end."""
    from mcptape.recorder.http.reverse import ReverseProxy
    from mcptape.recorder.http.run import QuietServer, last_stderr_line, parse_upstream, wait_for
    from mcptape.recorder.lifeline import watch
    from mcptape.recorder.outbound.sideeffects import side_effects
    from mcptape.recorder.spawn import spawn
    from mcptape.recorder.spool import Spool
    from mcptape.transcript.files import open_output
    from mcptape.transcript.wire import HTTP_IN
    from mcptape.transcript.writer import TranscriptWriter, new_header

    check_url(url)
    upstream = parse_upstream(url)
    if plan.command and upstream.accepts():
        raise UsageError(
            f"something already accepts connections on {upstream.authority}",
            hint="stop it, or start the server on another port (in CMD and the URL)",
        )
    if not plan.command and not upstream.accepts():
        raise UsageError(
            f"nothing accepts connections at {escape_text(url)}", hint="start the server, or give -- CMD"
        )
    path = plan.file(TRANSCRIPT)
    writer = TranscriptWriter(open_output(path, overwrite=True), clock_start=time.monotonic())
    spool = Spool(writer)
    failed: str | None = None
    try:
        with ExitStack() as stack:
            proxy = ReverseProxy(spool, upstream)
            stack.callback(proxy.stop, grace=0.5)
            server: QuietServer | None = None
            if plan.command:
                effects = stack.enter_context(side_effects(spool, http_sink=True, stubs=plan.stubs))
                child = spawn(plan.command, effects.child_env(os.environ))
                server = QuietServer(child, spool, watch(child.pid, plan.shutdown), plan.shutdown)
                stack.callback(_stop, server, spool, plan.shutdown)  # before the sink and stubs stop
            http = {"upstream": upstream.url, "listen": proxy.url}
            probe = {"case": "http", "title": "Streamable HTTP hard inputs", "marker": plan.token}
            writer.header(new_header(plan.command, str(Path.cwd()), http=http, probe=probe))
            if server is not None:
                server.start(on_exit=lambda: None)
                failed = wait_for(upstream, server, threading.Event())
            if failed is None:
                proxy.start()
                yield Probed(plan, (proxy.host, proxy.port), upstream.path, spool), path
    finally:
        spool.fields(spool.now(), "eof", of=HTTP_IN)
        spool.close()
        writer.close()
    if failed is not None:
        said = last_stderr_line(path)
        raise ServerDiedHttp(
            failed + (f"; its stderr ends: {escape_text(said)}" if said else ""),
            hint=f"run the command by hand to see why; the session is in {path}",
        )


def _stop(server: Any, spool: Any, grace: float) -> None:
    """SIGTERM (an HTTP server does not end when its stdin closes), then the shutdown order."""
    status = server.end_as_recorded(signal.SIGTERM, grace)
    spool.fields(spool.now(), "exit", code=status.code, signal=status.signal)


def start(p: Probed) -> StartRun:
    """The clean start: a session, its tools, the valid call (the first candidate that works)."""
    plan = p.plan
    run = StartRun(t0=p.now())
    answer, wire = p.open_session(1, plan.start_timeout)
    run.initialize = answer
    if wire.version is None:
        return run
    p.wire, run.wire = wire, wire
    listed = p.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    result = reply_of(listed, 2).result
    if result is None:
        run.refused = f"tools/list: {_said(listed, 2)}"
        return run
    tools = result.get("tools")
    run.tools = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    plan.reach.learn(run.tools)
    candidates = candidate_calls(
        plan.tool, plan.arguments, plan.recorded, run.tools, plan.allow_mutating, plan.reach
    )
    for n, call in enumerate(candidates or [Call(None)]):
        rid: Any = 3 if n == 0 else f"probe-call-{n + 1}"
        run.call, run.call_id, run.t_call = call, rid, p.now()
        answer = p.post(call.request(rid))
        run.call_answer = answer
        run.call_error = (
            refusal(reply_of(answer, rid)) if answer.answer_to(rid) is not None else _said(answer, rid)
        )
        if run.call_error is None:
            break
        run.tried.append(f"{call.tool} ({run.call_error})")
    time.sleep(SETTLE)
    run.t_end = p.now()
    return run


def hard_input(p: Probed, hc: HttpCase, call: Call, n: int) -> CaseRun:
    """One hard input, then the valid request in the clean session."""
    plan = p.plan
    marker = f"mcptape-probe-{hc.case.id}-{plan.token}"
    p.case = hc.case.id
    run = CaseRun(hc, marker, t_bad=p.now())
    p.note(f"mcptape probe: case {hc.case.id} ({marker})")
    wire = p.wire
    if hc.needs == "session" and wire.session is None:
        run.na = "the server minted no session id (stateless): there is no session to leave out or forge"
        return run
    if hc.case.id == "http-json-array" and wire.version == "2025-03-26":
        run.na = "batches are allowed in 2025-03-26"
        return run
    if hc.needs == "ended":
        _, wire = p.open_session(f"{marker}-init")
        if wire.session is None:
            run.na = "the server minted no session id (stateless): no session to end"
            return run
        ended = p.send(
            HttpRequest("DELETE", [(SESSION, wire.session), ("MCP-Protocol-Version", wire.version)])
        )
        run.deleted = ended.status
        if ended.status is None or not 200 <= ended.status < 300:
            said = f"HTTP {ended.status}" if ended.status is not None else "nothing"
            run.na = f"DELETE of the session answered {said}: the server does not let a client end it"
            return run
        run.t_bad = p.now()
    run.answer = p.send(hc.build(call, wire, marker, plan.oversize), until=marker)
    time.sleep(SETTLE)
    run.t_after = p.now()
    rid = f"probe-after-{n}"
    run.after_id = rid
    run.after = p.post(call.request(rid))
    time.sleep(SETTLE)
    run.t_end = p.now()
    return run


def _said(answer: Answer, rid: Any) -> str:
    """What came instead of an answer to `rid`, in words."""
    if answer.status is None:
        return (
            f"no answer within {answer.waited:.1f}s" if answer.timed_out else f"no answer ({answer.refused})"
        )
    message = answer.answer_to(rid)
    if message is None:
        return f"HTTP {answer.status} without an answer to it"
    error = message.value.get("error") if isinstance(message.value, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return f"HTTP {answer.status}, error {code}"

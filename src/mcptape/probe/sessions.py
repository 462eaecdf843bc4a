"""The server processes of a probe's cases, and what is sent in them.

Each clean start gets a process of its own (`run_case`): its variation (environment, working
directory, idle wait, revision) is the process. The request-level hard inputs share a few
(`run_inputs`): they are sent one after another, and each is judged in its own window of the
shared transcript (`judge`: from the handshake or its own frame to the next case's frame). A case
that closes stdin ends a shared process; a session that ends early (closed on a reject, hung)
sends the cases not yet sent to a new one. Their servers start beside the clean start's and wait
for it after their handshake (`ready.Ready`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mcptape.check.hints import mutation_risk
from mcptape.harness import Harness
from mcptape.probe import live
from mcptape.probe.candidates import candidate_calls
from mcptape.probe.cases import INPUT, START, Call, Case, title_for
from mcptape.probe.driver import Driver, Reply, Status, refusal
from mcptape.probe.judge import CaseResult, judge, lenient_ids
from mcptape.probe.observed import AFTER_STEP, CALL_ID, PING_STEP, Observed
from mcptape.probe.plan import Plan
from mcptape.probe.ready import Ready
from mcptape.textsafe import escape_text

SETTLE = 0.1  # seconds after the ping answer before the valid request, unless the bad frame was
# answered by then: a late action of a frame the server did not answer lands first
AFTER_SETTLE = 0.02  # seconds after a shared case's last answer, before the next case's frame

Progress = Callable[[str], None]


def run_and_judge(case: Case, plan: Plan, ready: Ready, rank: int | None = None) -> list[CaseResult]:
    """A case in a server of its own, started beside the clean start (none when the start failed);
    a hard input is judged once the clean start's process has ended (`ready.one`)."""
    observed = run_case(case, plan, ready=ready, rank=rank)
    if observed is None:
        return []
    return [judge(observed, ready.one() if case.group == INPUT else None, also=lenient_ids([observed]))]


def run_case(
    case: Case,
    plan: Plan,
    call: Call | None = None,
    linger: float | None = None,
    announce: Progress | None = None,
    *,
    ready: Ready | None = None,
    rank: int | None = None,
    held: live.Gate | None = None,
    then: Callable[[Driver, Observed], None] | None = None,
) -> Observed | None:
    """Run one case in a fresh server process; the transcript goes to OUT_DIR/<case>.jsonl.

    `linger`: how long a bad frame that carries ids may take to be answered after the ping barrier
    (default: --timeout); `announce`: told, once the tools are listed and before any is called,
    which tools that may change data will be called for real (--allow-mutating). With `ready`, the
    case starts beside the clean start and takes the valid call and the linger from it after its
    handshake (None, and no transcript, when the clean start failed). `rank`, `held`: its place at
    the start-up gate (`live.server`); `then`: more to send in the same session after the case
    (it sets `observed.until` where its part begins)."""
    if ready is not None and ready.blocked:
        return None  # the clean start failed before this case started: no server for it
    marker = f"mcptape-probe-{case.id}-{plan.token}"
    env = {**os.environ, **case.env}
    observed = Observed(case, plan.file(f"{case.id}.jsonl"), marker, list(plan.command), call=call)
    blocked = False
    with contextlib.ExitStack() as stack:
        cwd: str | None = None
        if case.empty_cwd:
            cwd = _empty_cwd(stack, env)
            observed.command = absolute_paths(observed.command)
        harness = _harness(plan, observed, call, env, cwd)
        with live.server(harness, rank, held):
            t0 = time.monotonic()  # the case's time starts when its server does (after the gate)
            driver = Driver(harness, plan.timeout, plan.start_timeout, plan.reach, case.id)
            shaken = handshake(case, driver, observed, plan, announce)
            if ready is not None:
                waited = time.monotonic()
                blocked = not ready.wait()
                t0 += time.monotonic() - waited  # the wait for the clean start is no case's time
                observed.call, linger = ready.call, ready.linger
                if blocked:
                    harness.abort()
            observed.version, observed.stateless = driver.version, driver.stateless
            if shaken and not blocked:
                _go_on(case, driver, observed, plan, plan.timeout if linger is None else linger)
                if then is not None:
                    observed.seconds = time.monotonic() - t0  # its own part: the rest is `then`'s
                    then(driver, observed)
            _close(harness, plan, observed, blocked)
        observed.status = harness.status if observed.until is None else None
    if blocked:
        observed.path.unlink(missing_ok=True)  # sent nothing of its own: not run
        return None
    observed.seconds = observed.seconds or time.monotonic() - t0
    return observed


def _close(harness: Harness, plan: Plan, observed: Observed, blocked: bool) -> None:
    """Close the server's stdin and wait for it to exit; how long it lingered past the shutdown
    wait is the case's (a case whose process went on with others, `then` setting `until`: its end
    is theirs)."""
    harness.close_stdin()
    waited = time.monotonic()
    if not harness.wait_exit(plan.shutdown) and not blocked and observed.until is None:
        observed.lingered = time.monotonic() - waited


def _harness(
    plan: Plan, observed: Observed, call: Call | None, env: dict[str, str], cwd: str | None
) -> Harness:
    """The recorder of the case's server: its transcript's header names the case, its title and
    its marker (how `probe/folder.py` knows a probe file)."""
    case = observed.case
    header = {"probe": {"case": case.id, "title": title_for(case, call), "marker": observed.marker}}
    return Harness(
        observed.command,
        observed.path,
        env=env,
        cwd=cwd,
        shutdown_timeout=plan.shutdown,
        header=header,
        stubs=plan.stubs,
    )


def _empty_cwd(stack: contextlib.ExitStack, env: dict[str, str]) -> str:
    """An empty working directory for the server, and an empty XDG_CONFIG_HOME set in `env`, both
    removed when `stack` closes; returns the working directory."""
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mcptape-probe-")))
    (tmp / "cwd").mkdir()
    (tmp / "config").mkdir()
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    return str(tmp / "cwd")


def absolute_paths(command: Sequence[str]) -> list[str]:
    """`command` with each relative path made absolute (for the empty working directory).

    A relative path is an argument that exists from here and contains a `/` (`./server`,
    `dist/index.js`), or, after the program name, names an existing file (`server.py`).
    """
    out = []
    for i, arg in enumerate(command):
        path = Path(arg)
        looks = "/" in arg or (i > 0 and path.is_file())
        relative = arg and not arg.startswith("-") and not path.is_absolute() and looks and path.exists()
        out.append(str(path.absolute()) if relative else arg)  # not resolve(): a venv's python is a symlink
    return out


def _ok(reply: Reply, what: str, observed: Observed, driver: Driver) -> bool:
    """True when `reply` answered; else record (in `observed` and the transcript) what happened."""
    if reply.status is Status.TIMEOUT:
        observed.hung = f"no answer to {what} within {reply.waited:.1f}s"
        driver.h.note(f"mcptape probe: {observed.hung}")
        return False
    if reply.status is Status.GONE:
        observed.gone = what
        return False
    return True


def _go_on(case: Case, d: Driver, observed: Observed, plan: Plan, linger: float) -> None:
    """After the handshake: a start case's valid call, or the hard input and what follows it."""
    if case.group == START:
        valid_calls(case, d, observed, plan)
    else:
        hard_input(case, d, observed, plan, linger)


def handshake(case: Case, d: Driver, observed: Observed, plan: Plan, announce: Progress | None) -> bool:
    """initialize (or server/discover) and tools/list; False when the session cannot go on."""
    if case.idle:
        live.started(d.h)  # its start-up runs during the wait: the gate lets the next one start
        d.h.wait_exit(plan.idle)
    if case.discover:
        reply = d.discover()
        if reply.status is Status.TIMEOUT:
            observed.discover = f"no answer to server/discover within {reply.waited:.1f}s"
            d.h.note(f"mcptape probe: {observed.discover}")
            return False
        if not _ok(reply, "server/discover", observed, d):
            return False
        if reply.error is not None:
            observed.discover = f"answered error {reply.error.get('code')}: {reply.error.get('message')}"
            return False
    else:
        reply = d.initialize()
        if not _ok(reply, "initialize", observed, d):
            return False
        if reply.result is None:
            observed.refused = f"initialize answered with an error: {reply.error}"
            return False
    reply = d.request("tools/list", 2, {})
    if not _ok(reply, "tools/list", observed, d):
        return False
    if reply.result is None:
        observed.refused = f"tools/list answered with an error: {reply.error}"
        return False
    tools = reply.result.get("tools")
    observed.tools = [t for t in tools if isinstance(t, dict)] if isinstance(tools, list) else []
    if announce is not None:
        real = [
            (t["name"], why)
            for t in observed.tools
            if (why := mutation_risk(t)) and isinstance(t.get("name"), str)
        ]
        named = ", ".join(f"{escape_text(name)} ({why})" for name, why in real) or "none"
        announce(
            "mcptape probe: --allow-mutating: these tools may change data and will be called for "
            f"real: {named}"
        )
    return True


def valid_calls(case: Case, d: Driver, observed: Observed, plan: Plan) -> None:
    """A start case's valid call (the clean start tries the candidates in turn)."""
    candidates = (
        candidate_calls(
            plan.tool, plan.arguments, plan.recorded, observed.tools or [], plan.allow_mutating, plan.reach
        )
        if case.id == "start"
        else [observed.call or Call(None)]
    )
    for n, candidate in enumerate(candidates):
        observed.call = candidate
        observed.call_id = CALL_ID if n == 0 else f"probe-call-{n + 1}"
        reply = d.call(candidate.request(observed.call_id))
        if not _ok(reply, "the valid call", observed, d):
            return
        observed.call_seconds = reply.waited
        observed.call_error = refusal(reply)
        if observed.call_error is None:
            return
        if n + 1 < len(candidates):
            observed.tried.append(f"{candidate.tool} ({observed.call_error})")


def hard_input(case: Case, d: Driver, observed: Observed, plan: Plan, linger: float) -> None:
    """Send the case's hard input, then a ping and the valid request after it."""
    call = observed.call or Call(None)
    bad = observed.bad = case.build(call, observed.marker, plan.oversize) if case.build else None
    mark = d.mark()
    sent = d.send(bad.data) if bad is not None else Status.GONE
    if sent is Status.TIMEOUT:
        size = len(bad.data) if bad is not None else 0
        observed.hung = f"the server stopped reading its stdin ({size} bytes not taken within {d.timeout:g}s)"
        d.h.note(f"mcptape probe: {observed.hung}")
        return
    if sent is not None:
        observed.gone = "the hard input"
        return
    if case.eof:
        d.h.close_stdin()
        return
    if not _ok(d.request("ping", observed.ping_id), PING_STEP, observed, d):
        return
    pinged = time.monotonic()
    answered = False
    if bad is not None and bad.ids:
        # The ping's answer says the frame was read, not that its work is over: a server that works
        # concurrently may still be running it. Its answer (bounded) first, so that its late action
        # is not counted against the valid request sent after it.
        answered = d.settle(bad.ids, linger, since=mark)
    # Answered: the server is done with it (a tap line written just before the answer lands first).
    # Not answered (or no id to answer): SETTLE after the ping's answer, for a late action.
    wait = AFTER_SETTLE if answered else SETTLE - (time.monotonic() - pinged)
    d.h.wait_exit(max(AFTER_SETTLE, wait))
    _ok(d.call(call.request(observed.after_id)), AFTER_STEP, observed, d)

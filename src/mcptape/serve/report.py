"""serve's summary (stderr, at exit) and its JSON report (`--report FILE`).

Counts: *served* (client requests answered from the recording), *repeated* (answered again with
an answer already served), *unmatched* (no recorded answer: the client got an error), *unused*
(recorded requests no client request was matched to), *garbage* (client lines that are not a
request, notification or answer). Exit 0 when nothing was unmatched and no garbage came, else 1.
"""

from __future__ import annotations

from typing import Any

from mcptape.diff.compare import MISSING
from mcptape.errors import EXIT_FINDINGS, EXIT_OK
from mcptape.serve.inject import Applied
from mcptape.serve.judge import OUTCOME_TEXT, next_of, verdict
from mcptape.serve.pool import Entry, Pool
from mcptape.serve.render import describe
from mcptape.serve.session import ClientLine, Options, Served
from mcptape.textsafe import escape_text

LISTED = 10  # unmatched and unused requests named in the summary


def exit_code(served: Served) -> int:
    return EXIT_FINDINGS if served.count("unmatched") or served.count("garbage") else EXIT_OK


def counts(served: Served) -> dict[str, int]:
    return {
        "served": served.count("served"),
        "repeated": served.count("repeated"),
        "unmatched": served.count("unmatched"),
        "unused": len(served.unused),
        "garbage": served.count("garbage"),
        "legacy": served.count("legacy"),
        "notifications": served.count("notification"),
    }


def summary(served: Served, pool: Pool) -> str:
    """The lines serve writes to stderr at exit."""
    c = counts(served)
    head = (
        f"mcptape serve: {c['served']} served, {c['unmatched']} unmatched, {c['unused']} unused "
        f"of {len(pool.requests)} recorded request(s)"
    )
    extras = [f"{c['repeated']} repeated"] if c["repeated"] else []
    if c["legacy"]:
        extras.append(f"{c['legacy']} server/discover answered -32601, as the recorded older server would")
    if c["garbage"]:
        extras.append(f"{c['garbage']} client line(s) not protocol")
    if served.dropped_noise:
        extras.append(f"{served.dropped_noise} recorded stdout line(s) not protocol left out (see --exact)")
    lines = [head + ("; " + ", ".join(extras) if extras else "")]
    unmatched = [c for c in served.client if c.status == "unmatched"]
    for line in unmatched[:LISTED]:
        lines.append(f"  unmatched: {describe(line.method, _params(line))} (client line {line.line})")
    for entry in served.unused[:LISTED]:
        lines.append(f"  unused: {describe(entry.method, entry.params)} ({escape_text(entry.where())})")
    more = max(0, len(unmatched) - LISTED) + max(0, len(served.unused) - LISTED)
    if more:
        lines.append(f"  ... and {more} more in --report")
    for applied in served.applied:
        if applied.na is not None:
            lines.append(f"  inject {applied.case.id}: n/a ({applied.na})")
            continue
        found = next_of(applied, served)
        did = found.text if found is not None else "not played"
        lines.append(
            f"  inject {applied.case.id}: at the answer to {escape_text(str(applied.method))} "
            f"(id {escape_text(repr(applied.request_id))}); "
            f"the client {escape_text(did)} -> {verdict(applied.case, found.outcome if found else None)}"
        )
    return "\n".join(lines)


def to_json(served: Served, pool: Pool, options: Options, code: int) -> dict[str, Any]:
    """The `--report` document."""
    return {
        "transcripts": [str(p) for p in pool.files],
        "running": False,
        "match": options.mode,
        "match_meta": options.match_meta,
        "exact": options.exact,
        "ignore": [r.text for r in options.rules],
        "counts": counts(served),
        "recorded_requests": len(pool.requests),
        "requests": [_client_json(c) for c in served.client if c.kind == "request"],
        "garbage": [_client_json(c) for c in served.client if c.status == "garbage"],
        "unused": [_entry_json(e) for e in served.unused],
        "inject": [_inject_json(a, served) for a in served.applied],
        "client_closed_at": served.eof_t,
        "stdout_closed_at": served.closed_t,
        "ended_by": served.ended_by,
        "recorded_exit": served.recorded_exit,
        "dropped_noise": served.dropped_noise,
        "exit": code,
        "seconds": round(served.seconds, 3),
        "notes": pool.notes,
    }


def _params(line: ClientLine) -> Any:
    return line.value.get("params") if type(line.value) is dict else None


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {"file": str(entry.source), "line": entry.line, "method": entry.method, "id": entry.id}


def _client_json(line: ClientLine) -> dict[str, Any]:
    out: dict[str, Any] = {
        "line": line.line,
        "t": round(line.t, 6),
        "status": line.status,
        "method": line.method,
        "id": line.id,
    }
    if line.entry is not None:
        out["recorded"] = _entry_json(line.entry)
    if line.status == "unmatched":
        out["params"] = _params(line)
        if line.closest is not None:
            out["nearest"] = _entry_json(line.closest)
            out["differences"] = [
                {"path": c.where, "recorded": _plain(c.old), "sent": _plain(c.new)} for c in line.changes[:20]
            ]
    if line.problem is not None:
        out["problem"] = line.problem
    return out


def _plain(value: Any) -> Any:
    return None if value is MISSING else value


def _inject_json(applied: Applied, served: Served) -> dict[str, Any]:
    found = next_of(applied, served)
    return {
        "case": applied.case.id,
        "title": applied.case.title,
        "form": applied.case.form or None,
        "legal": applied.case.legal,
        "marker": applied.marker,
        "played": applied.done,
        "na": applied.na,
        "at": None
        if not applied.done
        else {"t": applied.t, "request_id": applied.request_id, "method": applied.method},
        "early_id": applied.early_id,
        "client_did": None if found is None else OUTCOME_TEXT[found.outcome],
        "next": None if found is None else found.text,
        "verdict": verdict(applied.case, found.outcome if found else None, applied.na),
    }

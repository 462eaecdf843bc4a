"""A hand-written stateless (2026-07-28) stdio server whose one tool, `release(version)`, asks the
user to confirm through MRTR, then acts (reported on the executor tap) and answers.

Its `requestState` is the request's arguments, HMAC-signed: a retry whose state does not verify,
or was issued for other arguments, is refused (-32602). `--trust-state` plants the defect: any
state is taken as it comes (the confirmation is believed, the action runs); with `--no-action` too,
the tool answers without acting.
Standard library plus `mcptape.tap`: it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import sys
from typing import Any

from mcptape import tap

KEY = os.urandom(32)
TRUST = "--trust-state" in sys.argv[1:]
ACT = "--no-action" not in sys.argv[1:]
TOOL = {
    "name": "release",
    "description": "Release a version once the user confirms.",
    "inputSchema": {"type": "object", "properties": {"version": {"type": "string"}}, "required": ["version"]},
}
ASK = {
    "confirm": {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Release?",
            "requestedSchema": {
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
            },
        },
    }
}


def seal(arguments: dict[str, Any]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(arguments, sort_keys=True).encode()).decode()
    mac = hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{body}.{mac}"


def verified(state: str, arguments: dict[str, Any]) -> bool:
    body, _, mac = state.rpartition(".")
    good = hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:32]
    return hmac.compare_digest(mac, good) and state == seal(arguments)


def answer(rid: Any, result: dict[str, Any] | None = None, error: tuple[int, str] | None = None) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
    if error is not None:
        message["error"] = {"code": error[0], "message": error[1]}
    else:
        message["result"] = {"resultType": "complete", **(result or {})}
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def call(rid: Any, params: dict[str, Any]) -> None:
    arguments = params.get("arguments") or {}
    if params.get("name") != "release" or not isinstance(arguments.get("version"), str):
        answer(rid, error=(-32602, "release needs a version"))
        return
    state = params.get("requestState")
    if state is None:
        ask = {"resultType": "input_required", "inputRequests": ASK, "requestState": seal(arguments)}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": ask}) + "\n")
        sys.stdout.flush()
        return
    if not TRUST and not (isinstance(state, str) and verified(state, arguments)):
        answer(rid, error=(-32602, "invalid requestState"))
        return
    if ACT:
        tap.executed("release", request_id=rid, version=arguments["version"])
    answer(rid, {"content": [{"type": "text", "text": f"released {arguments['version']}"}]})


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        rid, method = message["id"], message["method"]
        params: dict[str, Any] = message["params"] if isinstance(message.get("params"), dict) else {}
        caps: dict[str, Any] = {"tools": {}}
        if method == "initialize":  # the probe's clean start; the tool asks in the same way
            answer(rid, {"protocolVersion": "2025-06-18", "capabilities": caps, "serverInfo": {"name": "m"}})
        elif method == "server/discover":
            answer(
                rid,
                {
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": caps,
                    "ttlMs": 0,
                    "cacheScope": "public",
                },
            )
        elif method == "tools/list":
            answer(rid, {"tools": [TOOL], "ttlMs": 0, "cacheScope": "public"})
        elif method == "tools/call":
            call(rid, params)
        else:
            answer(rid, error=(-32601, f"no method {method}"))


if __name__ == "__main__":
    main()

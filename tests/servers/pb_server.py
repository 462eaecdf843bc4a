"""A hand-written line-based MCP server for the probe's tests: strict by default, one defect on demand.

    python pb_server.py                          # strict: every bad frame rejected, nothing executed
    python pb_server.py --defect concatenated    # one known defect (see DEFECTS)
    python pb_server.py --action http            # the tool acts by HTTP (through the proxy) not the tap
    python pb_server.py --close-on-reject        # strict, and ends the session after a bad line
    python pb_server.py --mutating               # deploy declares itself destructive (not read-only)
    python pb_server.py --writes                 # deploy still says read-only, but its action writes
    python pb_server.py --delay 0.4              # each tools/call acts and answers 0.4 s later, in a
                                                 # thread of its own (pings are answered meanwhile)

Its one tool, `deploy(target: string)`, reports its action on the executor tap with
`mcptape.tap.executed("deploy", request_id=..., kind="read")`, an honest read (with `--writes` the
kind is `update`: a read-only tool that writes, which the check core's hint-read-only rule catches),
or sends `GET http://deploy.invalid/<target>` with `--action http` (a read too), or runs
`pb-deploy <target>` from PATH with `--action command` (a command may change state). It declares
itself read-only (`readOnlyHint`: its one effect is that report), so the probe calls it;
`--mutating` makes it say it is destructive. Strict means: each line is read as bytes with a size
limit, decoded as UTF-8 without replacement, parsed as exactly one JSON object, checked as a
JSON-RPC request (string or integer id, object params, known tool, declared arguments only), and
only then executed. A bad line gets a JSON-RPC error (id null when its id cannot be trusted) and
executes nothing.
Standard library plus `mcptape.tap`, so it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

from mcptape import tap

LIMIT = 1 << 20  # bytes per line
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
STATELESS = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
TOOL = {
    "name": "deploy",
    "description": "Deploy a preview (reports the action on the executor tap).",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {
        "type": "object",
        "properties": {"target": {"type": "string"}},
        "required": ["target"],
        "additionalProperties": False,
    },
}
# A second tool, listed only with the `second-tool` defects: it declares one string argument.
NOTIFY: dict[str, Any] = {
    "name": "notify",
    "description": "Send a notification (reports the action on the executor tap).",
    "annotations": {"readOnlyHint": False},
    "inputSchema": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
        "additionalProperties": False,
    },
}

DEFECTS = {
    "tolerant": "finds the first JSON object anywhere in a line (noise around it ignored) and runs it",
    "concatenated": "runs every JSON object of a line, one after the other",
    "bool-id": "accepts any id, booleans included",
    "string-params": "decodes params given as a JSON string and runs them",
    "banner": "prints a banner on stdout at start-up",
    "verbose-noise": "prints debug lines on stdout when $DEBUG is set",
    "silent-drop": "drops malformed lines without answering (never runs them)",
    "hang": "stops answering (and ignores SIGTERM) once it receives a batch",
    "inherit": "rejects a bad line, then retries it with the next valid tools/call",
    "exit-noise": "prints a traceback on stdout and exits 1 when stdin closes",
    "second-tool": "lists a second tool, notify, that accepts any arguments and acts on all of them",
    "second-tool-open": "the same, with a schema that allows extra arguments",
}


class Bad(Exception):
    """A frame to reject: JSON-RPC error `code`, and the id to answer with (None = null)."""

    def __init__(self, code: int, message: str, rid: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.rid = rid


class Server:
    def __init__(
        self,
        defect: str | None,
        action: str,
        close_on_reject: bool = False,
        mutating: bool = False,
        delay: float = 0.0,
        writes: bool = False,
    ) -> None:
        self.defect = defect
        self.action = action
        self.close_on_reject = close_on_reject
        self.mutating = mutating
        self.delay = delay
        self.kind = "update" if writes else "read"  # what deploy's tap line says it did
        self.out = sys.stdout.buffer
        self.lock = threading.Lock()  # --delay: answers come from the tool calls' threads too
        self.rejected: bytes | None = None

    # -- output ----------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            self.out.flush()

    def error(self, rid: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def debug(self, text: str) -> None:
        if self.defect == "verbose-noise" and os.environ.get("DEBUG"):
            self.out.write(f"[debug] {text}\n".encode())
            self.out.flush()
        print(f"pb_server: {text}", file=sys.stderr, flush=True)

    # -- input -----------------------------------------------------------------------------
    def run(self) -> None:
        if self.defect == "banner":
            self.out.write(b"\x1b[32mpb_server 1.0 ready on stdio\x1b[0m\n")
            self.out.flush()
        self.debug("started")
        stdin = sys.stdin.buffer
        while True:
            line = stdin.readline(LIMIT + 1)
            if not line:
                if self.defect == "exit-noise":
                    self.out.write(b"Traceback (most recent call last):\nBrokenPipeError: stdin closed\n")
                    self.out.flush()
                    sys.exit(1)
                return
            if len(line) > LIMIT and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the oversized line
                    line = stdin.readline(LIMIT)
                self.error(None, -32600, f"line longer than {LIMIT} bytes")
                continue
            if not line.endswith(b"\n"):
                self.debug("stream ended inside a line: ignored")
                return
            self.line(line[:-1])

    def line(self, raw: bytes) -> None:
        try:
            for message in self.decode(raw):
                self.handle(message)
        except Bad as bad:
            self.debug(f"rejected: {bad}")
            if self.defect == "silent-drop":
                return
            if self.defect == "inherit":
                self.rejected = raw
            self.error(bad.rid, bad.code, str(bad))
            if self.close_on_reject:
                self.debug("closing the session after a reject")
                sys.exit(0)

    def decode(self, raw: bytes) -> list[Any]:
        if self.defect == "tolerant":
            text = raw.decode("utf-8", "replace")
            start = text.find("{")
            if start < 0:
                raise Bad(-32700, "parse error")
            value, _ = json.JSONDecoder().raw_decode(text, start)
            return [value]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Bad(-32700, "parse error: not UTF-8") from None
        if self.defect == "concatenated":
            values, pos, decoder = [], 0, json.JSONDecoder()
            while pos < len(text):
                try:
                    value, pos = decoder.raw_decode(text, pos)
                except ValueError:
                    raise Bad(-32700, "parse error") from None
                values.append(value)
            return values
        try:
            return [json.loads(text)]
        except ValueError:
            raise Bad(-32700, "parse error") from None

    # -- messages --------------------------------------------------------------------------
    def handle(self, msg: Any) -> None:
        if isinstance(msg, list) and self.defect == "hang":
            self.debug("batch received: hanging")
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(3600)
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            raise Bad(-32600, "invalid request")
        rid = msg.get("id")
        if "id" in msg and not self.good_id(rid):
            raise Bad(-32600, "invalid request: id must be a string or an integer")
        params = msg.get("params", {})
        if isinstance(params, str) and self.defect == "string-params":
            params = json.loads(params)
        if not isinstance(params, dict):
            raise Bad(-32602, "invalid params: not an object", rid)
        method = msg["method"]
        if "id" not in msg:
            return  # notifications (initialized, cancelled) need no answer
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in VERSIONS else VERSIONS[-1]
            self.result(
                rid,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "pb_server", "version": "1.0"},
                },
            )
        elif method == "server/discover":
            self.result(
                rid,
                {
                    "supportedVersions": [STATELESS],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "pb_server", "version": "1.0"},
                },
            )
        elif method == "ping":
            self.result(rid, {})
        elif method == "tools/list":
            tools = [TOOL]
            if self.mutating:
                tools = [{**TOOL, "annotations": {"readOnlyHint": False, "destructiveHint": True}}]
            if self.defect == "second-tool":
                tools.append(NOTIFY)
            elif self.defect == "second-tool-open":
                tools.append(
                    {**NOTIFY, "inputSchema": {**NOTIFY["inputSchema"], "additionalProperties": True}}
                )
            self.result(rid, {"tools": tools})
        elif method == "tools/call" and self.delay:
            threading.Thread(target=self.later, args=(rid, params), daemon=True).start()
        elif method == "tools/call":
            self.call(rid, params)
        else:
            self.error(rid, -32601, f"method not found: {method}")

    def good_id(self, rid: Any) -> bool:
        if self.defect == "bool-id":
            return rid is not None
        return type(rid) is int or type(rid) is str

    def later(self, rid: Any, params: dict[str, Any]) -> None:
        """--delay: the call runs after a while, concurrently with the next messages."""
        time.sleep(self.delay)
        try:
            self.call(rid, params)
        except Bad as bad:
            self.error(bad.rid, bad.code, str(bad))

    def result(self, rid: Any, result: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def call(self, rid: Any, params: dict[str, Any]) -> None:
        arguments = params.get("arguments", {})
        if params.get("name") == "notify" and self.defect in ("second-tool", "second-tool-open"):
            if not isinstance(arguments, dict):
                raise Bad(-32602, "invalid arguments", rid)
            tap.executed("notify", request_id=rid, **arguments)  # the defect: every argument acted on
            self.result(rid, {"content": [{"type": "text", "text": "sent"}]})
            return
        if params.get("name") != "deploy":
            raise Bad(-32602, f"unknown tool {params.get('name')!r}", rid)
        if (
            not isinstance(arguments, dict)
            or set(arguments) != {"target"}
            or not isinstance(arguments["target"], str)
        ):
            raise Bad(-32602, "invalid arguments: exactly one string argument, target", rid)
        if self.rejected is not None:  # the inherit defect: the rejected line comes back
            retried = self.rejected.decode("utf-8", "replace")
            tap.executed("deploy", request_id=rid, kind=self.kind, retried=retried)
            self.rejected = None
        target = arguments["target"]
        if self.action == "http":
            try:
                urllib.request.urlopen(f"http://deploy.invalid/{target}", timeout=5).close()
            except OSError:
                pass  # the sink answers 502
        elif self.action == "command":
            try:
                subprocess.run(["pb-deploy", target], capture_output=True, timeout=5, check=False)
            except OSError:
                pass  # not on PATH
        else:
            tap.executed("deploy", request_id=rid, kind=self.kind, target=target)
        self.result(rid, {"content": [{"type": "text", "text": f"deployed {target}"}]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--defect", choices=sorted(DEFECTS))
    parser.add_argument("--action", choices=("tap", "http", "command"), default="tap")
    parser.add_argument("--close-on-reject", action="store_true", help="exit after answering a bad line")
    parser.add_argument("--mutating", action="store_true", help="deploy declares destructiveHint")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before a tools/call acts")
    parser.add_argument("--writes", action="store_true", help="deploy's tap line says kind update")
    args = parser.parse_args()
    Server(args.defect, args.action, args.close_on_reject, args.mutating, args.delay, args.writes).run()


if __name__ == "__main__":
    main()

"""A server with one build per flag, for replay tests (tests/servers/lite.py: the SDK's answers
without importing it, so it starts fast).

--v2                the greet tool's output changed ("Hi" instead of "Hello")
--banner            prints a banner line on stdout at start-up (a stdout leak)
--exec-before-auth  deploy performs its action before checking the token (the seed's bug)
--hang              never reads stdin or answers anything
--crash             writes an error on stderr and exits 3 at start-up
--flood N           writes N lines that are not protocol on stdout at start-up, then serves
--log-stdin PATH    copies every byte it receives on stdin to PATH
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: `tests` from the root
from mcptape import tap
from tests.servers.lite import Context, MCPError, MCPServer

ARGS = sys.argv[1:]
V2 = "--v2" in ARGS
EXEC_BEFORE_AUTH = "--exec-before-auth" in ARGS
app = MCPServer("rp-server")


def _option(name: str) -> str | None:
    return ARGS[ARGS.index(name) + 1] if name in ARGS else None


@app.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hi, {name}!" if V2 else f"Hello, {name}!"


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def deploy(branch: str, token: str, ctx: Context) -> str:
    """Deploy `branch` (needs the token "valid")."""
    rid = ctx.request_context.request_id
    if EXEC_BEFORE_AUTH:
        tap.executed("deploy", request_id=rid, branch=branch)
    if token != "valid":
        raise MCPError(code=-32001, message="unauthorised: invalid token")
    if not EXEC_BEFORE_AUTH:
        tap.executed("deploy", request_id=rid, branch=branch)
    return f"deployed {branch}"


def _log_stdin(path: str) -> None:
    """Put a pipe in front of fd 0 and copy what arrives to `path` on the way."""
    read_end, write_end = os.pipe()
    real = os.dup(0)
    os.dup2(read_end, 0)
    os.close(read_end)

    def copy() -> None:
        with open(path, "wb") as log:
            while chunk := os.read(real, 65536):
                log.write(chunk)
                log.flush()
                os.write(write_end, chunk)
        os.close(write_end)

    threading.Thread(target=copy, daemon=True).start()


if __name__ == "__main__":
    if "--crash" in ARGS:
        print("rp_server: fatal: cannot open config.toml", file=sys.stderr, flush=True)
        sys.exit(3)
    if "--hang" in ARGS:
        time.sleep(3600)
    flood = _option("--flood")
    if flood is not None:
        out = os.fdopen(1, "wb", closefd=False)
        out.write((b"debug: noise line that is not JSON-RPC " + b"x" * 60 + b"\n") * int(flood))
        out.flush()
    log = _option("--log-stdin")
    if log is not None:
        _log_stdin(log)
    if "--banner" in ARGS:
        print("rp_server v2 ready", flush=True)
    app.run("stdio")

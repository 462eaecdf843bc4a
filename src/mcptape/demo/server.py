"""A small MCP server for the demo, built with the official SDK (mcp 2.x `MCPServer`).

`python -m mcptape.demo.server` is the clean build. `--changed` is a new build whose deploy
message changed (the demo replays the clean session against it). `--buggy` is the build the
seed warns about: it prints a banner on stdout at start-up, and its `deploy_preview` tool starts
the deployment before checking the token, so a rejected call still reaches the executor.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcptape import tap

DEMO_TOKEN = "demo-token"
BUGGY = "--buggy" in sys.argv[1:]
CHANGED = "--changed" in sys.argv[1:]  # a new build whose deploy message changed (for replay)

app = MCPServer("mcptape-demo")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def deploy_preview(branch: str, token: str, ctx: Context) -> str:
    """Deploy a preview of BRANCH (needs the right token)."""
    request_id = ctx.request_context.request_id
    if BUGGY:  # the bug: it deploys (and says it went through) before checking the token
        tap.executed("deploy-preview", request_id=request_id, branch=branch, outcome="ok")
    if token != DEMO_TOKEN:
        raise ToolError("unauthorised: bad token")
    if not BUGGY:
        tap.executed("deploy-preview", request_id=request_id, branch=branch, outcome="ok")
    return f"preview of {branch} is live" if CHANGED else f"preview of {branch} deployed"


def main() -> None:
    if BUGGY:
        print("demo-server v2 starting... loading credentials")  # the other bug: noise on stdout
        sys.stdout.flush()
    print("mcptape-demo: ready (diagnostics belong on stderr)", file=sys.stderr, flush=True)
    app.run("stdio")


if __name__ == "__main__":
    main()

"""An MCPServer (SDK 2.3.0) whose tool reports progress as a status line, its value stuck at 0 while
its message changes (a common way to say "working" when the total is unknown), and one that counts
up. Recorded into tests/check/realdata/stuck-progress-*.tape: `mcptape record -o X -- python
stuck_progress_server.py`."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("stuck-progress", log_level="WARNING")


@app.tool()
async def index(ctx: Context) -> str:
    """Index the project, saying what it does."""
    for phase in ("scanning", "parsing", "writing"):
        await ctx.report_progress(0, None, phase)
    return "indexed"


@app.tool()
async def count(ctx: Context) -> str:
    """Count to three."""
    for step in (1, 2, 3):
        await ctx.report_progress(step, 3)
    return "counted"


if __name__ == "__main__":
    app.run()

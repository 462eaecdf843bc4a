"""A server whose answer is one long line: a document of SIZE bytes in the structured result, then
the credentials it was configured with (issue 27.9: a secret past record --redact's cut, in the
same line, the cut inside the document's string)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

PASSWORD = "hunter2-very-secret"
app = MCPServer("nr-long-answer")


def document(size: int) -> str:
    """SIZE bytes (a multiple of 8) numbering their own 8-byte rows: a byte lost, doubled or moved
    anywhere in it shows."""
    return "".join(f"{i:07d}," for i in range(size // 8))


@app.tool()
def export(size: int) -> CallToolResult:
    """A document of SIZE bytes and the connection it came from."""
    connection = {"host": "db.internal", "password": PASSWORD}
    return CallToolResult(
        content=[TextContent(type="text", text=f"exported {size} bytes")],
        structured_content={"document": document(size), "connection": connection},
    )


if __name__ == "__main__":
    app.run("stdio")

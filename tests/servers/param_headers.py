"""An official-SDK MCPServer on streamable HTTP whose tool mirrors parameters into headers
(2026-07-28 `x-mcp-header`): `query(region, sql, tier=1, dry=False)`, with `region`, `tier` and
`dry` annotated (a string, an integer, a boolean).

Usage: param_headers.py PORT
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

app = MCPServer("param-headers")


@app.tool()
def query(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
    sql: str,
    tier: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Tier"})] = 1,
    dry: Annotated[bool, Field(json_schema_extra={"x-mcp-header": "Dry"})] = False,
) -> str:
    """Run a query in a region."""
    return f"{region}: {sql} (tier {tier}{', dry' if dry else ''})"


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))

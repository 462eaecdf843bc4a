"""An MCPServer (SDK 2.3.0) with media results, recorded into tests/check/realdata/sdk-media-*.tape:
images, audio, embedded text and blob resources, a resource link, structured output (`point`), a tool
with an outputSchema that raises (`boom`), a slow call with progress the client cancels.
`mcptape record -o X -- python media_server.py`."""

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Audio, Image
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

app = MCPServer("media", log_level="WARNING")


class Point(BaseModel):
    x: int
    y: int


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@app.tool()
def picture() -> Image:
    """An image."""
    return Image(data=PNG, format="png")


@app.tool()
def sound() -> Audio:
    """Audio."""
    return Audio(data=b"RIFF0000WAVE", format="wav")


@app.tool(structured_output=False)
def mixed() -> CallToolResult:
    """Everything at once."""
    return CallToolResult(
        content=[
            TextContent(type="text", text="hello"),
            Image(data=PNG, format="png").to_image_content(),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(uri="notes://a", mime_type="text/plain", text="note a"),
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="bin://b", mime_type="application/octet-stream", blob="AAEC"
                ),
            ),
            ResourceLink(type="resource_link", uri="notes://b", name="b"),
        ]
    )


@app.tool()
def point(x: int, y: int) -> Point:
    """Structured output."""
    return Point(x=x, y=y)


@app.tool()
def boom(n: int) -> Point:
    """Raises, with an output schema."""
    raise ValueError(f"boom {n}")


@app.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Sleeps, reporting progress."""
    steps = int(seconds * 10)
    for i in range(steps):
        await ctx.report_progress(i, steps)
        await anyio.sleep(0.1)
    return "slept"


@app.resource("notes://{name}")
def note(name: str) -> str:
    return f"note {name}"


@app.resource("bin://blob", mime_type="application/octet-stream")
def blob() -> bytes:
    return b"\x00\x01\x02"


if __name__ == "__main__":
    app.run()

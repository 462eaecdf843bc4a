"""A stdio MCP server of two tools whose names look like minted values (long, no white space):
`lookup_customer_records` (readOnlyHint: true) and `erase_customer_records` (destructiveHint:
true), which appends "ERASED" to the file named by its first argument. With `--new` the writer is
listed first: a new build that reordered its tools. The initialize handshake only."""

from __future__ import annotations

import json
import sys

NEW = "--new" in sys.argv[2:]
READER = {
    "name": "lookup_customer_records",
    "inputSchema": {"type": "object"},
    "annotations": {"readOnlyHint": True},
}
WRITER = {
    "name": "erase_customer_records",
    "inputSchema": {"type": "object"},
    "annotations": {"destructiveHint": True},
}


def answer(rid: object, result: dict[str, object]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            continue
        if method == "initialize":
            info = {"name": "reordered", "version": "1"}
            answer(rid, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info})
        elif method == "tools/list":
            answer(rid, {"tools": [WRITER, READER] if NEW else [READER, WRITER]})
        elif method == "tools/call":
            if message["params"]["name"] == WRITER["name"]:
                with open(sys.argv[1], "a") as log:
                    log.write("ERASED\n")
            answer(rid, {"content": [{"type": "text", "text": "done"}], "isError": False})


if __name__ == "__main__":
    main()

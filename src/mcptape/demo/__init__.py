"""The bundled demo: a small MCP server (clean and buggy builds) and an SDK client session."""

"""mcptape: record, replay, check and inspect the raw traffic of MCP stdio sessions."""

__version__ = "0.1.0"

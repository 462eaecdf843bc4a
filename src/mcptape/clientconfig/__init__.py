"""MCP client configs: find them (`clients`), read them with their comments (`jsonc`), and put
`mcptape record` in front of a server or take it out again (`transform`, `plan`). Pure: no I/O."""

"""The Streamable HTTP rules of the check core, on an HTTP transcript's exchanges.

`transport.HttpTransport` reads the recorded wire (`http>`/`http<` bytes, exchange by exchange, with
`exchanges`' h11 readers) and judges the requests (`transport`), the responses and their SSE
streams (`responses`), the `Mcp-Param-*` headers (`paramheaders`) and the session and status rules
(`session`, its ids and rows in `sessionrules`, named in check/rules.py), each finding reported
through `findings.Say`; `values` reads header and body values. The JSON-RPC messages the recorder
carries on `in`/`out` go through the same session as stdio's (check/session.py). Each rule and the
spec sentence it enforces: docs/http.md.
"""

"""`mcptape probe --url URL [-- CMD]`: the release gate for Streamable HTTP servers (docs/probe.md).

`cases` (what is sent, what the specification asks), `client` (one request's bytes, its answer read
with a deadline), `run` (the server, the recording proxy, the requests), `judge` (the verdicts),
`gate` (the whole run, as a `runner.ProbeResult`: the same report, JUnit, SARIF and baseline).
"""

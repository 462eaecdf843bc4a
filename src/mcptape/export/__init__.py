"""Sessions where teams already look: OTLP traces, HAR, one self-contained HTML report.

Each format is a pure writer (`list[Session] -> bytes`: `otlp.sessions_json`, `har.har_bytes`,
`html.html_bytes`) and a row of the one table of output formats, `mcptape.commands.outputs.FORMATS`
(where the CI formats are rows too; mitmproxy's `addons/export.py` is the model).
`session.load(path)` turns a transcript into the `Session` the writers read, through the check
core; nothing here frames lines or classifies messages itself. The command layer
(`commands/export.py`) reads the table for `--format`, its help and its errors, writes the file or
sends the traces (`send.py`).

This module imports nothing: the live exporter's process (`python -m mcptape.export.livechild`)
lowers its priority before it loads the check core.
"""

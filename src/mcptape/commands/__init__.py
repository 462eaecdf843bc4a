"""The command layer: one module per click command, and the only place that wires packages together.

`mcptape.cli` imports a command's module when it runs (`COMMANDS`); `replay --view` (replay, then
the diff viewer), `record --redact` (the recorder, with share's redacting writer) and `demo` are
wired here. Nothing heavy is imported by this package itself.
"""

"""The tee: spawn the server, pump its bytes both ways unchanged, and record every chunk, timed.

`mcptape record` runs `run.record` (spawn, pumps, spool, session); the executor tap, the HTTP
sink and command stubs are the side-effect listeners. Nothing heavy is imported here: the record
path starts the server before anything else is loaded. The recorder imports only the transcript
writer below it; whatever else `record` does (`--redact`) is wired by the command layer.
"""

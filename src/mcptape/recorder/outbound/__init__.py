"""Outbound side effects: what the server under recording tries to do to the world outside it,
recorded instead of done (or done once and kept).

The HTTP sink (`httpsink.py`: every request recorded, none made), the HTTP cassette (`proxy.py`,
the forward proxy that reads whole requests, HTTPS included with `tlsca.py`'s session CA;
`cassette.py`, the backend that makes them; `exchange.py`, the line an exchange is kept as;
`httpmsg.py`, the messages between them), the command stubs (`stubs.py`), and `sideeffects.py`,
which starts them together for `record`, replay and probe. Nothing here is imported unless asked for.
"""

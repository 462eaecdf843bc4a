"""HTTP recording: `mcptape record --http-upstream`, a Streamable HTTP session recorded through a
reverse proxy.

`run.py` runs it (the server, its streams, the proxy, the shutdown order), `reverse.py` is the
proxy (every byte forwarded first; `hostrewrite.py` names a remote upstream in `Host`), `tap.py`
cuts a connection's copied bytes into exchanges and the JSON-RPC messages they carry (`fastconn.py`
reads the common exchange without h11, `reply.py` a response body's messages). `clientread.py`
reads a response on the client's side, for replay and probe.
"""

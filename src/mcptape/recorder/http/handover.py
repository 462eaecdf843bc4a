"""The handover between the tap's fast readers (`fastconn.FastConn`) and h11's, both directions at
once: `h11_pair` when the fast readers meet what they do not read (h11 resumes exactly where they
stopped), `fast_pair` once h11 finished that exchange on a connection kept alive."""

from __future__ import annotations

import h11

from mcptape.recorder.http.fastconn import FastConn


def h11_pair(requests: FastConn, responses: FastConn, max_head: int) -> tuple[h11.Connection, h11.Connection]:
    """h11 readers for both directions, where the fast ones stopped: between exchanges, or inside
    a message of the exchange in progress. Each is first told, in bytes never recorded, what takes
    it there (`FastConn.resume`), its events passed to the other as the mirror would pass them;
    then it gets the bytes its fast reader had not taken, and the end of the stream if it came."""
    server = h11.Connection(h11.SERVER, max_incomplete_event_size=max_head)
    client = h11.Connection(h11.CLIENT, max_incomplete_event_size=max_head)
    requests.method = responses.method
    requests._fold()
    responses._fold()
    for conn, other, fast in ((server, client, requests), (client, server, responses)):
        prefix = fast.resume()
        if prefix:
            conn.receive_data(prefix)
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or event is h11.PAUSED:
                    break
                other.send(event)  # type: ignore[arg-type]
                if isinstance(event, h11.EndOfMessage):
                    break
    for conn, fast in ((server, requests), (client, responses)):
        if fast.buffer:
            conn.receive_data(bytes(fast.buffer))
        if fast.closed:
            conn.receive_data(b"")
    return server, client


def fast_pair(server: h11.Connection, client: h11.Connection, max_head: int) -> tuple[FastConn, FastConn]:
    """Fast readers again, between exchanges on a connection h11 kept alive, with what it had not read."""
    pair = []
    for conn, role in ((server, h11.SERVER), (client, h11.CLIENT)):
        data, closed = conn.trailing_data
        fast = FastConn(role, max_head, data)
        fast.closed = closed
        pair.append(fast)
    return pair[0], pair[1]

"""What the recorded client had seen, message by message (pure): the recorded server's answers to
the client's requests and its own requests, each with its time, and which server request a client's
message answers. Both plans (`replay.stdio.plan`, `replay.http.plan`) read the recording through
one `Timeline`; what differs between them is where a client's bytes go (a chunk, an exchange)."""

from __future__ import annotations

from collections import Counter

from mcptape.check.model import Kind, Message, RequestId
from mcptape.replay.kinds import is_answer, is_server_request


class Timeline:
    """Fed the recording's messages in file order (each item of a batch alone)."""

    def __init__(self) -> None:
        self.client_ids: set[RequestId] = set()
        self.pending: dict[RequestId, tuple[str, int]] = {}  # server request id -> (method, nth)
        self.per_method: Counter[str] = Counter()
        self.responses: list[RequestId] = []  # ids the server answered
        self.answered_at: list[float] = []  # ... when
        self.server_requests: list[str] = []  # the methods of its own requests
        self.asked_at: list[float] = []  # ... when

    def client_request(self, one: Message) -> bool:
        """True (and remembered) when the client's message is a request with an id."""
        if one.kind is Kind.REQUEST and one.id is not None:
            self.client_ids.add(one.id)
            return True
        return False

    def answered(self, one: Message) -> tuple[str, int] | None:
        """The server request a client's message answers: its method and which one of that method
        it was (1 for the first); None when it answers none."""
        if one.id is not None and one.id in self.pending and is_answer(one):
            return self.pending.pop(one.id)
        return None

    def server_message(self, one: Message) -> None:
        """A message of the server: an answer to the client's request, or a request of its own."""
        if one.id is not None and one.id in self.client_ids and is_answer(one):
            self.responses.append(one.id)
            self.answered_at.append(one.frame.t)
        elif one.id is not None and one.method is not None and is_server_request(one):
            self.per_method[one.method] += 1
            self.pending[one.id] = (one.method, self.per_method[one.method])
            self.server_requests.append(one.method)
            self.asked_at.append(one.frame.t)

    def in_time_order(self) -> None:
        """Sort the answers and the server's requests by time (stable: file order on ties), for a
        transport whose records are not in time order (HTTP exchanges run side by side)."""
        order = sorted(range(len(self.answered_at)), key=self.answered_at.__getitem__)
        self.responses = [self.responses[i] for i in order]
        self.answered_at = [self.answered_at[i] for i in order]
        asked = sorted(range(len(self.asked_at)), key=self.asked_at.__getitem__)
        self.server_requests = [self.server_requests[i] for i in asked]
        self.asked_at = [self.asked_at[i] for i in asked]

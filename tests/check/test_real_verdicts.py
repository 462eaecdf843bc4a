"""Must show: verdicts on sessions recorded from real servers (trimmed to the lines that matter,
under tests/check/realdata/, named `.tape` so the transcript plugin does not replay them) name the
right rule, severity and party.

Each file is real bytes of `mcptape record` around a reference server, driven by a raw client
that makes the mistakes a model-driven client makes (see docs/check.md, "Known findings on
reference implementations").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.check.analyze import analyze_file

DATA = Path(__file__).parent / "realdata"
Verdict = tuple[str, str, str, object]  # rule, severity, party, request id


def _verdicts(name: str) -> tuple[str | None, list[Verdict]]:
    _, analysis = analyze_file(str(DATA / name))
    return analysis.protocol_version, [
        (f.rule, f.severity.value, f.party, f.request_id) for f in analysis.findings
    ]


CASES = [
    pytest.param(
        # server-everything asks roots/list twice (at start, then after roots/list_changed); the
        # client answers the first and closes without answering the second: the client's fault.
        "everything-roots-unanswered.tape",
        "2025-06-18",
        [("unanswered-request", "warning", "client", 2)],
        id="a-server-request-the-client-never-answered-is-the-clients",
    ),
    pytest.param(
        # mcp-server-time (SDK 2.3.0) negotiates 2025-03-26, which "MUST support receiving JSON-RPC
        # batches", and drops a batch of ping + tools/call without a word: the server's fault.
        "time-2025-03-26-batch-dropped.tape",
        "2025-03-26",
        [("unanswered-request", "warning", "server", 2), ("unanswered-request", "warning", "server", 3)],
        id="a-client-request-the-server-never-answered-is-the-servers",
    ),
    pytest.param(
        # The same server on 2025-06-18, which removed batching: the batch is the client's error,
        # and the server dropping it is no fault of its own (its requests were unanswered-request
        # warnings, the server's, before); then ping with id 4 twice, the first answered: "The
        # request ID MUST NOT have been previously used by the requestor within the same session"
        # (2025-06-18, basic/index), the client's duplicate-id (judged only in flight before); ids
        # "5" and 5 are different ids.
        "time-2025-06-18-batch-refused.tape",
        "2025-06-18",
        [("batch-not-allowed", "error", "client", None), ("duplicate-id", "error", "client", 4)],
        id="the-requests-of-a-refused-batch-are-not-unanswered",
    ),
    pytest.param(
        # An MCPServer (SDK 2.3.0) negotiated 2025-11-25 by handshake; the client then sends
        # server/discover and tools/list with the 2026-07-28 _meta, refused (-32600: "this connection
        # serves the handshake protocol era"), and goes on with the handshake's requests (ping,
        # logging/setLevel, a cancelled call), all served. "A dual-era server MAY serve both eras":
        # the refused requests change nothing; check took them as a switch to 2026-07-28 and found
        # 12 missing-meta and removed-method errors on a correct session.
        "features-handshake-refuses-modern-requests.tape",
        "2025-11-25",
        [],
        id="a-refused-modern-request-leaves-the-negotiated-revision",
    ),
    pytest.param(
        # mcp-server-time (2026-07-28 only) refuses a request stating 2099-01-01 (-32022), then a
        # legacy client's initialize (-32022, "the initialize handshake is not accepted"); the
        # client goes on with notifications/initialized, tools/list and ping without _meta: still
        # 2026-07-28 (a refused handshake negotiates nothing), the client's errors.
        "time-modern-refuses-handshake.tape",
        "2026-07-28",
        [
            ("removed-method", "error", "client", None),
            ("missing-meta", "error", "client", 21),
            ("missing-meta", "error", "client", 22),
            ("removed-method", "error", "client", 22),
        ],
        id="a-refused-handshake-leaves-2026-07-28-in-force",
    ),
    pytest.param(
        # The same handshake session: the client cancels its slow call (9, in flight: fine, and
        # left unanswered) and request 31337, which it never sent: "Cancellation notifications
        # MUST only reference requests that: Were previously issued in the same direction"
        # (2024-11-05 to 2025-11-25). Only judged in 2026-07-28 before.
        "features-handshake-cancels-unknown.tape",
        "2025-11-25",
        [("cancel-unknown-request", "error", "client", None)],
        id="a-cancel-of-a-request-never-sent-is-found-in-a-handshake-revision",
    ),
    pytest.param(
        # The SDK's MCPServer over Streamable HTTP (stateful, SSE), 2025-06-18 by handshake: its
        # initialize result declares no `logging`, and a tool's ctx.info() emits two
        # notifications/message: "Servers that emit log message notifications MUST declare the
        # `logging` capability" (every revision). Only judged in 2026-07-28 before. Once, at the
        # initialize result (the declaration is the fault), naming the first message.
        "sweep-http-logs-undeclared.tape",
        "2025-06-18",
        [("unrequested-log", "error", "server", None)],
        id="log-messages-without-the-logging-capability-are-found-in-a-handshake-revision",
    ),
    pytest.param(
        # An MCPServer that declares `logging` (it registers logging/setLevel), asked for `info`,
        # logs two steps of a call with progress: nothing to find.
        "features-handshake-logs-declared.tape",
        "2025-11-25",
        [],
        id="log-messages-of-a-server-that-declared-logging-are-fine",
    ),
    pytest.param(
        # server-everything, 2025-11-25 tasks: a task-augmented call of the tool that requires it
        # (CreateTaskResult), tasks/get polled, an elicitation/create the server sends while the
        # task is input_required, tasks/result, a plain call of that tool (isError, -32601 in the
        # text), another task cancelled, tasks/list: a correct session, nothing to find.
        "everything-task-flow.tape",
        "2025-11-25",
        [],
        id="a-task-augmented-session-of-server-everything-is-clean",
    ),
    pytest.param(
        # The SDK client (auto: server/discover refused -32601, then the handshake) and
        # server-filesystem on a scratch folder: a read outside the allowed folder, a missing file,
        # an edit that matches nothing (isError, fine), three calls outside the inputSchema
        # (refused: the client's info), an argument the schema does not forbid (served, fine),
        # resources/list refused -32601.
        "filesystem-model-mistakes.tape",
        "2025-11-25",
        [
            ("schema-violation", "info", "client", 9),
            ("schema-violation", "info", "client", 12),
            ("schema-violation", "info", "client", 15),
        ],
        id="server-filesystem-refusing-a-models-mistakes-leaves-only-infos",
    ),
    pytest.param(
        # server-everything on 2025-11-25, a client that writes three bad lines: an echo whose text
        # is Latin-1 (`caf\xe9`, not UTF-8), a ping ending in \r\n, a ping after a byte order
        # mark. "Messages are individual JSON-RPC messages encoded in UTF-8" (transports): the
        # client's errors. Node's reader replaces the bad byte and takes \r as whitespace, so the
        # server answers 2 and 3 (it drops the BOM line): answers to requests the client did send,
        # not unknown-response-id errors of the server as before.
        "everything-lenient-reads.tape",
        "2025-11-25",
        [("non-protocol-input", "error", "client", None)] * 3,
        id="a-server-answering-a-bad-line-it-read-leniently-answers-a-request-that-was-sent",
    ),
    pytest.param(
        # A low-level SDK Server (which does not validate results, realdata/structured_server.py)
        # declares an outputSchema ({"area": number}, required) for four tools, driven by the SDK
        # client in mode="legacy": `area` fits it, `fail_area` is isError (needs no structured
        # result), `bad_area` gives {"area": "6 m2"} and `no_area` no structuredContent: "If an
        # output schema is provided: Servers MUST provide structured results that conform to this
        # schema." (server/tools). The SDK client itself raises on both ("Invalid structured
        # content returned by tool bad_area"). Not judged before.
        "structured-legacy.tape",
        "2025-11-25",
        [("output-schema", "error", "server", 4), ("output-schema", "error", "server", 5)],
        id="results-outside-the-declared-output-schema-are-the-servers",
    ),
    pytest.param(
        # The same server and calls in the SDK client's default 2026-07-28 mode (resultType
        # "complete" on each result): the same two.
        "structured-modern.tape",
        "2026-07-28",
        [("output-schema", "error", "server", 4), ("output-schema", "error", "server", 5)],
        id="results-outside-the-declared-output-schema-are-the-servers-in-2026-07-28",
    ),
    pytest.param(
        # An MCPServer (realdata/media_server.py) driven by the SDK client, 2026-07-28: an image,
        # audio, embedded text and blob resources with a resource link, structured output within
        # its outputSchema, a tool with an outputSchema that raises (isError, no structuredContent),
        # a blob resource, a slow call with progress cancelled, arguments of the wrong type (the
        # client's info): correct, nothing of the server's.
        "sdk-media-modern.tape",
        "2026-07-28",
        [("schema-violation", "info", "client", 8)],
        id="an-sdk-servers-media-and-structured-results-are-clean",
    ),
    pytest.param(
        # The same, mode="legacy" (2025-11-25 by handshake).
        "sdk-media-legacy.tape",
        "2025-11-25",
        [("schema-violation", "info", "client", 8)],
        id="an-sdk-servers-media-and-structured-results-are-clean-by-handshake",
    ),
    pytest.param(
        # server-everything, 2025-11-25: a 10 s trigger-long-running-operation, then the client
        # closes the server's stdin 0.5 s later ("the client SHOULD initiate shutdown by: First,
        # closing the input stream to the child process", basic/lifecycle); the server runs on and
        # the recorder SIGTERMs it after 1 s. The client abandoned the call: an info of the client's,
        # not the server's unanswered-request warning as before.
        "everything-client-leaves-mid-call.tape",
        "2025-11-25",
        [("unanswered-request", "info", "client", 5)],
        id="a-call-in-flight-when-the-client-closes-stdin-was-abandoned-by-the-client",
    ),
    pytest.param(
        # An MCPServer (tests/servers/features.py) on 2026-07-28, a raw client's mistakes: a string
        # id, wrong and missing arguments, an unknown tool, params as an array (dropped), a method
        # typo and notifications/cancelled sent with an id (-32601), a log level asked on one call
        # and not the next (logs only for the first), a cursor page and a bad cursor (-32603, a
        # SHOULD), an unknown resource (-32602), requests missing one or both required _meta
        # fields (-32602), ping (removed), another version (-32022), a 10**30 integer, a slow call
        # cancelled (no answer), subscriptions/listen left open: the client's findings only.
        "features-modern-raw-mistakes.tape",
        "2026-07-28",
        [
            ("schema-violation", "info", "client", 4),
            ("schema-violation", "info", "client", 5),
            ("unknown-tool", "info", "client", 6),
            ("invalid-message", "error", "client", 7),
            ("missing-meta", "error", "client", 19),
            ("missing-meta", "error", "client", 20),
            ("removed-method", "error", "client", 24),
            ("schema-violation", "info", "client", 27),
        ],
        id="an-sdk-server-refusing-a-raw-modern-clients-mistakes-leaves-only-the-clients-findings",
    ),
    pytest.param(
        # server-memory (TypeScript SDK), 2025-06-18, a raw client's mistakes: entities as an
        # object, no arguments, a number for a string, a string for an array, an unknown tool, no
        # arguments at all (each isError -32602 in the text: the client's info); an observation for
        # an entity that does not exist (isError), extra arguments (served). Every success carries
        # structuredContent within its tool's outputSchema: no output-schema finding.
        "memory-model-mistakes.tape",
        "2025-06-18",
        [
            ("schema-violation", "info", "client", 3),
            ("schema-violation", "info", "client", 4),
            ("schema-violation", "info", "client", 7),
            ("schema-violation", "info", "client", 9),
            ("unknown-tool", "info", "client", 12),
            ("schema-violation", "info", "client", 52),
        ],
        id="server-memory-refusing-a-models-mistakes-leaves-only-infos",
    ),
    pytest.param(
        # server-filesystem on 2024-11-05 (it lists outputSchemas anyway): paths outside the allowed
        # folder (/etc/passwd, a ../ escape, a move out: isError "Access denied"), wrong types, a
        # missing path, a quoted number for `head` (refused: the client's info), edits as an
        # object, a string for an array, an unknown tool, a missing file: only the client's infos.
        "filesystem-2024-11-05-model-mistakes.tape",
        "2024-11-05",
        [
            ("schema-violation", "info", "client", 4),
            ("schema-violation", "info", "client", 5),
            ("schema-violation", "info", "client", 6),
            ("schema-violation", "info", "client", 8),
            ("schema-violation", "info", "client", 9),
            ("unknown-tool", "info", "client", 12),
            ("schema-violation", "info", "client", 13),
            ("schema-violation", "info", "client", 52),
        ],
        id="server-filesystem-on-2024-11-05-refusing-a-models-mistakes-leaves-only-infos",
    ),
    pytest.param(
        # A hand-rolled stdio server (realdata/handrolled_server.py, no SDK) declares only `tools`
        # and serves prompts/list and prompts/get: "Servers that support prompts MUST declare the
        # `prompts` capability" (server/prompts), once, at the first; resources/list answered with
        # an empty list is no support; completion/complete refused. Not judged before.
        "handrolled-undeclared-prompts.tape",
        "2025-06-18",
        [("undeclared-capability", "error", "server", 4)],
        id="a-feature-served-without-its-capability-is-the-servers",
    ),
    pytest.param(
        # server-everything 2026.8.31 on 2025-11-25, a client declaring `elicitation: {"url": {}}`
        # (URL mode only): the server lists trigger-elicitation-request and sends a form-mode
        # elicitation/create (no `mode`: form) to it, then the URL one (fine). "Servers MUST NOT
        # send elicitation requests with modes that are not supported by the client." (2025-11-25
        # client/elicitation): a true finding of a reference server, not judged before.
        "everything-form-elicitation-to-a-url-only-client.tape",
        "2025-11-25",
        [("client-capability", "error", "server", 1), ("unknown-tool", "info", "client", 4)],
        id="an-elicitation-in-a-mode-the-client-did-not-declare-is-the-servers",
    ),
    pytest.param(
        # An MCPServer (realdata/stuck_progress_server.py) driven by the SDK client (2026-07-28):
        # `count` reports 1, 2, 3 of 3 (fine); `index` reports progress 0 three times, only its
        # message changing: "The progress value MUST increase with each notification, even if the
        # total is unknown." (basic/patterns/progress): once for the token. Not judged before.
        "stuck-progress-modern.tape",
        "2026-07-28",
        [("progress-not-increasing", "error", "server", None)],
        id="progress-that-does-not-increase-is-the-servers",
    ),
    pytest.param(
        # The same, mode="legacy" (2025-11-25: basic/utilities/progress has the same sentence).
        "stuck-progress-legacy.tape",
        "2025-11-25",
        [("progress-not-increasing", "error", "server", None)],
        id="progress-that-does-not-increase-is-the-servers-by-handshake",
    ),
    pytest.param(
        # server-everything on 2025-11-25, a Python client whose ids are floats: `"id": 1.0` is the
        # integer 1 (RequestId is "type": ["string", "integer"] in the 2020-12 schema, where 1.0
        # is an integer), and the server answers it with id 1: paired, no finding (it was the
        # client's invalid-message and the server's unknown-response-id before). `"id": 2.5` is
        # no integer: the client's error (the server drops the line).
        "everything-float-ids.tape",
        "2025-11-25",
        [("invalid-message", "error", "client", None)],
        id="an-id-written-1-0-is-the-integer-1",
    ),
]


@pytest.mark.parametrize(("name", "protocol", "expected"), CASES)
def test_a_real_sessions_findings_name_the_party_that_broke_the_rule(
    name: str, protocol: str, expected: list[Verdict]
) -> None:
    """The recorded session gives exactly these findings, each with the party at fault, and ends
    in the revision the server agreed to."""
    assert _verdicts(name) == (protocol, expected)


def test_an_undeclared_logging_capability_is_found_at_the_initialize_result_once() -> None:
    """The finding points at the initialize result (out line 1) and names the first log message."""
    _, analysis = analyze_file(str(DATA / "sweep-http-logs-undeclared.tape"))
    [found] = analysis.findings
    assert (found.channel, found.line) == ("out", 1) and b'"protocolVersion"' in found.raw
    assert [(ref.role, ref.line) for ref in found.related] == [("log-message", 2)]


def test_an_answer_to_an_id_no_bad_line_held_is_still_unknown(tmp_path: Path) -> None:
    """The same recording with the server's answer to the \\r\\n ping renumbered 33: no line
    held id 33, so the answer is still the server's `unknown-response-id`."""
    text = (DATA / "everything-lenient-reads.tape").read_text()
    answer = '{\\"result\\":{},\\"jsonrpc\\":\\"2.0\\",\\"id\\":3}'
    assert text.count(answer) == 1
    (tmp_path / "renumbered.tape").write_text(text.replace(answer, answer.replace(":3}", ":33}")))
    _, analysis = analyze_file(str(tmp_path / "renumbered.tape"))
    assert [(f.rule, f.party, f.request_id) for f in analysis.findings] == [
        ("non-protocol-input", "client", None),
        ("non-protocol-input", "client", None),
        ("unknown-response-id", "server", 33),
        ("non-protocol-input", "client", None),
    ]

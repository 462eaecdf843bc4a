"""A task-augmented request's progress token lives until its task ends (2025-11-25): "the
`progressToken` provided in the original request **MUST** continue to be used for progress
notifications throughout the task's lifetime, even after the `CreateTaskResult` has been returned"
and "Progress notifications for tasks **MUST** stop after the task reaches a terminal status"
(basic/utilities/progress). So progress after the CreateTaskResult is no finding, and progress
after the task ended is `progress-after-completion`."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcptape.check.analyze import analyze
from mcptape.transcript.events import Event

INIT: list[tuple[str, dict[str, Any]]] = [
    (
        "in",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tasks": {}},
                "clientInfo": {"name": "c", "version": "1"},
            },
        },
    ),
    (
        "out",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "s", "version": "1"},
            },
        },
    ),
    ("in", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    (
        "in",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "slow",
                "arguments": {},
                "task": {"ttl": 60000},
                "_meta": {"progressToken": "p1"},
            },
        },
    ),
    (
        "out",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "task": {
                    "taskId": "t-1",
                    "status": "working",
                    "createdAt": "2026-01-01T00:00:00Z",
                    "lastUpdatedAt": "2026-01-01T00:00:00Z",
                    "ttl": 60000,
                }
            },
        },
    ),
    (
        "out",
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "p1", "progress": 50, "total": 100},
        },
    ),
]
PROGRESS = (
    "out",
    {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "p1", "progress": 100},
    },
)
STATUS = (
    "out",
    {
        "jsonrpc": "2.0",
        "method": "notifications/tasks/status",
        "params": {
            "taskId": "t-1",
            "status": "completed",
            "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:01Z",
            "ttl": 60000,
        },
    },
)
ASK_RESULT = ("in", {"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": "t-1"}})
RESULT = (
    "out",
    {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"content": [], "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}},
    },
)
ASK_GET = ("in", {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": "t-1"}})
GOT = (
    "out",
    {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "taskId": "t-1",
            "status": "failed",
            "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:01Z",
            "ttl": 60000,
        },
    },
)


def found(lines: list[tuple[str, dict[str, Any]]]) -> list[str]:
    events = [
        Event(0.01 * (i + 1), ch, raw=orjson.dumps(msg) + b"\n", index=i) for i, (ch, msg) in enumerate(lines)
    ]
    return [f.rule for f in analyze(events).findings if f.rule != "incomplete-capture"]


@pytest.mark.parametrize(
    ("tail", "rules"),
    [
        ([ASK_RESULT, PROGRESS, RESULT], []),  # while tasks/result waits: the task is working
        ([STATUS, PROGRESS], ["progress-after-completion"]),
        ([ASK_RESULT, RESULT, PROGRESS], ["progress-after-completion"]),
        ([ASK_GET, GOT, PROGRESS], ["progress-after-completion"]),
    ],
    ids=["during-the-task", "after-its-status-completed", "after-tasks-result", "after-tasks-get-failed"],
)
def test_a_tasks_progress_token_lives_until_the_task_ends(
    tail: list[tuple[str, dict[str, Any]]], rules: list[str]
) -> None:
    """Progress after the CreateTaskResult is the task's; after its terminal status, a finding."""
    assert found([*INIT, *tail]) == rules

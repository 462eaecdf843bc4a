"""Tasks (2025-11-25, basic/utilities/tasks) as progress sees them: a task-augmented request's
progress token lives until its task ends ("the `progressToken` provided in the original request
**MUST** continue to be used for progress notifications throughout the task's lifetime, even after
the `CreateTaskResult` has been returned. The progress token remains valid and associated with the
task until the task reaches a terminal status", basic/utilities/progress)."""

from __future__ import annotations

from typing import Any

from mcptape.check.model import At, RequestId
from mcptape.check.modern import Modern
from mcptape.check.pairing import Pending


def answered_in_handshake(
    modern: Modern, rid: RequestId, pending: Pending, error: bool, value: dict[str, Any], at: At
) -> None:
    """An answer in a handshake revision: the state kept for its request closes (its progress token
    too, unless it created a task), and a task it says has ended ends."""
    if rid in modern.watched:
        task = None if error else task_id(value)
        if task is None:
            modern.close(rid, pending, at)
        else:
            modern.keep_for_task(rid, task, pending, at)
    if modern.task_tokens and not error:
        ended = terminal_task(pending.method, value)
        if ended is not None:
            modern.task_ended(ended)


RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL_TASK = frozenset({"completed", "failed", "cancelled"})  # a task's terminal statuses (2025-11-25)


def task_id(value: dict[str, Any]) -> str | None:
    """The task a `CreateTaskResult` created (`result.task.taskId`), else None."""
    result = value.get("result")
    task = result.get("task") if type(result) is dict else None
    task_id = task.get("taskId") if type(task) is dict else None
    return task_id if type(task_id) is str else None


def terminal_task(method: str | None, value: dict[str, Any]) -> str | None:
    """The task an answer says has ended: a `tasks/get` or `tasks/cancel` result with a terminal
    status (its `taskId`), or a `tasks/result` answer (sent once the task is terminal: "it **MUST**
    block the response until the task reaches a terminal status", basic/utilities/tasks; the task
    named by its `related-task` in `_meta`), else None."""
    result = value.get("result")
    if type(result) is not dict:
        return None
    if method in ("tasks/get", "tasks/cancel") and result.get("status") in TERMINAL_TASK:
        task = result.get("taskId")
    elif method == "tasks/result":
        meta = result.get("_meta")
        related = meta.get(RELATED_TASK) if type(meta) is dict else None
        task = related.get("taskId") if type(related) is dict else None
    else:
        return None
    return task if type(task) is str else None

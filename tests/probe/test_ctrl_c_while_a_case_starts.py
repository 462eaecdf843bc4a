"""Ctrl-C while a probe case is still inside Harness.start() (not yet in _RUNNING): the main thread
aborts only the registered harnesses, so this case then runs to its --timeout before the probe can
exit. Deterministic: start() is slowed down and the Ctrl-C is raised while it runs."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import mcptape.probe.runner as runner
from mcptape.harness import Harness
from mcptape.probe.cases import CASES
from mcptape.probe.plan import Plan
from tests.conftest import SERVERS, console_script  # noqa: F401

pytestmark = pytest.mark.slow


def test_a_case_starting_at_ctrl_c_is_aborted_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = threading.Event()
    real_start = Harness.start

    def slow_start(self: Harness) -> None:
        real_start(self)
        started.set()
        time.sleep(0.5)  # the window between start() and the registration in _RUNNING

    def interrupted(futures: Any) -> Any:
        started.wait(10)
        raise KeyboardInterrupt

    monkeypatch.setattr(Harness, "start", slow_start)
    monkeypatch.setattr(runner, "as_completed", interrupted)
    case = next(c for c in CASES if c.id == "debug-line")
    plan = Plan(
        [sys.executable, str(SERVERS / "hang_server.py")],
        tmp_path,
        tool="t",
        arguments={},
        timeout=20,
        start_timeout=20,
        jobs=1,
        cases=[case],
    )
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        runner.run_probe(plan, progress=lambda line: None)
    assert time.monotonic() - t0 < 5

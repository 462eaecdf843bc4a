"""Where the suite's CPU goes, per test file: a pytest plugin and its report (docs/testing.md).

    MCPTAPE_CPU_DIR=/tmp/cpu .venv/bin/python -m pytest -n 4 -q -p tests.cpu_per_file
    .venv/bin/python -m tests.cpu_per_file /tmp/cpu

Each test's CPU is the growth of the worker's own CPU time and of its reaped children's
(`getrusage(RUSAGE_SELF)` + `RUSAGE_CHILDREN`) from the start of its setup to the end of its
teardown: the servers, clients and commands it started, and a module fixture's processes in the test
that made or ended them. A process is counted once reaped, and its own children once it reaped them
(a server the SDK's client started is waited for; one left to init is not counted). Each xdist
worker writes `<worker>.json` into `$MCPTAPE_CPU_DIR`; without the variable the plugin does nothing.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path

import orjson
import pytest

_ROWS: dict[str, list[float]] = {}


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    own, children = _cpu()
    started = time.monotonic()
    yield
    own_after, children_after = _cpu()
    _ROWS[item.nodeid] = [own_after - own, children_after - children, time.monotonic() - started]


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get("MCPTAPE_CPU_DIR")
    if not folder:
        return
    own, children = _cpu()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    document = {"tests": _ROWS, "own": own, "children": children}
    Path(folder, f"{worker}.json").write_bytes(orjson.dumps(document))


def report(folder: Path, top: int = 30) -> str:
    """The files that took the most CPU (the test's process, its children), their wall time and
    number of tests; then the workers' totals (collection and start-up included)."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    totals: list[str] = []
    for path in sorted(folder.glob("*.json")):
        document = orjson.loads(path.read_bytes())
        totals.append(f"{path.stem}: {document['own']:.1f} s own, {document['children']:.1f} s children")
        for nodeid, (own, children, wall) in document["tests"].items():
            row = files[nodeid.split("::")[0]]
            row[0], row[1], row[2], row[3] = row[0] + own, row[1] + children, row[2] + wall, row[3] + 1
    lines = [f"{'cpu s':>7} {'own s':>6} {'wall s':>7} {'tests':>5}  file"]
    for name, (own, children, wall, count) in sorted(files.items(), key=lambda kv: -kv[1][0] - kv[1][1])[
        :top
    ]:
        lines.append(f"{own + children:7.1f} {own:6.1f} {wall:7.1f} {count:5.0f}  {name}")
    spent = sum(own + children for own, children, _, _ in files.values())
    lines.append(
        f"{spent:7.1f} s of CPU in {sum(r[3] for r in files.values()):.0f} tests; " + "; ".join(totals)
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 30))

"""Benchmark `mcptape probe` against one plain session with the same server, in the same run.

    python bench/bench_probe.py [--runs 1] [--jobs N] [--only NAME] [--against REV] [--timeline]

For each server (`mcp-server-time` from the virtualenv, a server built with the SDK's MCPServer
(tests/probe/sdk_server.py), the bundled demo server), measures:

1. one plain session: spawn, `initialize`, `notifications/initialized`, `tools/list`, one
   `tools/call`, stdin closed, exit (the probe's own driver, no recorder: the floor a probe
   cannot go below, since it must start the server at least once);
2. the whole probe with default options (`--tool --args` when the server needs real arguments:
   time zones), as `mcptape probe` runs it (the console script);

and prints both wall times, their ratio, the CPU both took (mcptape's and the servers': the figure
the machine's load moves least), how many server processes the probe started, and the machine's
load average before and after (on 2 quiet cores a probe takes at least half its CPU time). The
plain session is timed before and after each probe (the median of all is the figure), so that a
change of load during the run weighs on both sides.
With `--against REV` the mcptape of git revision REV (its `src/`, exported to a temporary folder)
probes the same server right after the current one, in every run: old and new side by side, at
the same load. Both are started the same way (`python -c` of `mcptape.entry`, PYTHONPATH set to
their `src/`), so neither gets a faster launcher.
Trust only ratios measured in the same run on this shared machine (see /work/shared/PERF.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

SESSION = r"""
import json, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def ask(message):
    p.stdin.write((json.dumps(message) + "\n").encode()); p.stdin.flush()
    if "id" not in message:
        return
    while True:
        answer = json.loads(p.stdout.readline())
        if answer.get("id") == message["id"]:
            return answer
ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
     "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": json.loads(sys.argv[1])})
p.stdin.close(); p.wait()
"""


def servers() -> list[tuple[str, list[str], dict[str, object], bool]]:
    """Each server's name, command, its valid call (tools/call params), and whether the probe is
    told that call (`--tool --args`: mcp-server-time needs a real time zone; the demo's `add` has no
    readOnlyHint, so the probe may not call it and probes on tools/list)."""
    time_server = [str(BIN / "mcp-server-time"), "--local-timezone", "UTC"]
    sdk = [sys.executable, str(ROOT / "tests" / "probe" / "sdk_server.py")]
    demo = [sys.executable, "-m", "mcptape.demo.server"]
    return [
        (
            "mcp-server-time",
            time_server,
            {"name": "get_current_time", "arguments": {"timezone": "UTC"}},
            True,
        ),
        ("SDK MCPServer", sdk, {"name": "echo", "arguments": {"text": "x"}}, False),
        ("demo server", demo, {"name": "add", "arguments": {"a": 1, "b": 2}}, False),
    ]


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def plain_session(command: list[str], params: dict[str, object]) -> tuple[float, float]:
    """Wall and CPU seconds (the client's and the server's) of one plain session."""
    cpu, t0 = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", SESSION, json.dumps(params), *command], check=True, timeout=120)
    return time.perf_counter() - t0, children_cpu() - cpu


LAUNCH = "import sys; from mcptape.entry import main; sys.argv[0] = 'mcptape'; main()"


def timeline(out: Path, launched: float) -> list[str]:
    """One line per server process of a probe run (its transcript in `out`), in seconds since the
    probe was launched: when its server started, answered its first request, was sent its last
    frame, and exited."""
    rows = []
    for path in sorted(out.glob("*.jsonl")):
        lines = path.read_bytes().splitlines()
        head = json.loads(lines[0])
        started = datetime.fromisoformat(head["started"].replace("Z", "+00:00")).timestamp() - launched
        first_out = last_in = ended = None
        for line in lines[1:]:
            event = json.loads(line)
            t = event.get("t")
            if t is None:
                continue
            if event.get("ch") == "out" and first_out is None:
                first_out = t
            elif event.get("ch") == "in":
                last_in = t
            elif event.get("ch") == "exit":
                ended = t

        def at(t: float | None, started: float = started) -> str:
            return f"{started + t:5.2f}s" if t is not None else "   -  "

        rows.append(
            f"  {path.name:<28} start {started:5.2f}s  first answer {at(first_out)}  "
            f"last frame {at(last_in)}  exit {at(ended)}"
        )
    return rows


def probe(
    command: list[str],
    call: dict[str, object] | None,
    jobs: int | None,
    src: Path = ROOT / "src",
    show: bool = False,
) -> tuple[float, int, str, float]:
    """The probe's wall time, the number of transcripts (server processes), its summary line and the
    CPU seconds it took (mcptape's and every server's), with the mcptape in `src`; `show`: print
    the run's timeline (`timeline`)."""
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        out = Path(tmp) / "out"
        options = ["-o", str(out)]
        if call is not None:
            options += ["--tool", str(call["name"]), "--args", json.dumps(call["arguments"])]
        if jobs is not None:
            options += ["-j", str(jobs)]
        cpu, t0, launched = children_cpu(), time.perf_counter(), time.time()
        done = subprocess.run(
            [sys.executable, "-c", LAUNCH, "probe", *options, "--", *command],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONPATH": str(src)},
        )
        seconds = time.perf_counter() - t0
        cpu = children_cpu() - cpu
        processes = len(list(out.glob("*.jsonl")))
        summary = done.stdout.rstrip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
        if show:
            print(f"  timeline ({src}): ended {seconds:.2f}s", *timeline(out, launched), sep="\n", flush=True)
    return seconds, processes, summary, cpu


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each (the median is shown)")
    parser.add_argument("--jobs", type=int, default=None, help="probe -j (default: the probe's own)")
    parser.add_argument("--only", help="only the server whose name contains this")
    parser.add_argument("--against", metavar="REV", help="also probe with the mcptape of git revision REV")
    parser.add_argument(
        "--timeline", action="store_true", help="print each probe's timeline: per server process, "
        "when it started, first answered, was sent its last frame and exited",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; {load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-probe-rev-") as tmp:
        sources = {"now": ROOT / "src"}
        if args.against:
            sources[args.against] = export(args.against, Path(tmp))
        for name, command, params, told in servers():
            if args.only and args.only not in name:
                continue
            plains = [plain_session(command, params)]
            probes: dict[str, list[tuple[float, int, str, float]]] = {label: [] for label in sources}
            for _ in range(args.runs):
                for label, src in sources.items():
                    told_call = params if told else None
                    probes[label].append(probe(command, told_call, args.jobs, src, args.timeline))
                plains.append(plain_session(command, params))
            plain = statistics.median(p[0] for p in plains)
            plain_cpu = statistics.median(p[1] for p in plains)
            for label, runs in probes.items():
                wall = statistics.median(p[0] for p in runs)
                cpu = statistics.median(p[3] for p in runs)
                print(
                    f"{name} ({label}): one plain session {plain:.2f}s; probe {wall:.2f}s = "
                    f"{wall / plain:.1f}x a session (CPU {cpu:.1f}s = {cpu / plain_cpu:.1f}x the session's "
                    f"{plain_cpu:.2f}s), {runs[0][1]} server processes; {load()}; {runs[0][2]}",
                    flush=True,
                )


def export(rev: str, into: Path) -> Path:
    """The `src/` of git revision `rev`, exported under `into`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


if __name__ == "__main__":
    main()

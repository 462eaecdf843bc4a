"""The stdio wing of replay: the new server under the stdio recorder (`harness.Harness`), the
recorded client's bytes written to its stdin (`plan.make_plan`, `driver.StdioDriver`)."""

from __future__ import annotations

from mcptape.replay.stdio.driver import StdioDriver
from mcptape.replay.stdio.plan import make_plan
from mcptape.replay.transport import Job


def driver_for(job: Job) -> StdioDriver:
    """The stdio driver of `job`: the plan read from the recording, the server on pipes."""
    settings = job.settings
    return StdioDriver(
        make_plan(job.transcript.events),
        job.server.command,
        job.new_path,
        pace=settings.pace,
        step_timeout=settings.step_timeout,
        shutdown_timeout=settings.shutdown_timeout,
        env=settings.env,
        cwd=job.server.cwd,
        stubs=job.server.stubs,
        header={"of": str(job.path), "pace": settings.pace},
        transform=job.transform,
        http=job.http,
        allow_mutating=settings.allow_mutating,
    )

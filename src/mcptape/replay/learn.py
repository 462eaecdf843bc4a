"""`mcptape replay FILE --learn N`: replay N times against the same build and learn the noise.

Runs the replays (each exactly as `mcptape replay` would, with the rules already configured), diffs
the first replay against each other one, and hands the diffs to the pure learner
(`mcptape.diff.learn`). The learned rules are then checked: the recording is diffed again against
every replay with them, so the report says how many replays they make `same`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcptape.diff.ignore import Rule
from mcptape.diff.learn import Lesson, learn
from mcptape.errors import UsageError
from mcptape.replay.api import ReplayResult, diff_files, replay_with
from mcptape.replay.config import Config
from mcptape.replay.settings import ReplaySettings
from mcptape.replay.where import Server

MAX_RUNS = 20


@dataclass
class Learned:
    """N replays and what they taught."""

    transcript: Path
    command: list[str]
    runs: list[ReplayResult]
    lesson: Lesson
    rules_before: list[Rule]  # configured and --ignore rules, in force during the replays
    same_after: list[bool] = field(default_factory=list)  # each replay `same` with the learned rules
    config: Config | None = None

    @property
    def completed(self) -> bool:
        return all(r.run.completed for r in self.runs)

    @property
    def exit_code(self) -> int:
        """0 when every replay completed and the learned rules make them all `same`, else 1."""
        return 0 if self.completed and self.same_after and all(self.same_after) else 1


def learn_noise(
    path: str | os.PathLike[str],
    command: Sequence[str] | None,
    runs: int,
    settings: ReplaySettings,
    *,
    announce: Callable[[Server], None] | None = None,
) -> Learned:
    """Replay `path` `runs` times against `command` with `settings` (over the transport it was
    recorded on) and learn what varies.

    A replay that does not complete (a crash, a step timeout) ends the learning: what it could not
    reach cannot be learned, and its report says why.
    """
    if not 2 <= runs <= MAX_RUNS:
        raise UsageError(
            f"--learn {runs}: learning needs 2 to {MAX_RUNS} replays",
            hint="3 is usually enough: --learn 3",
        )
    from mcptape.replay.scope import with_learned
    from mcptape.transcript import open_transcript

    before = list(with_learned(settings, open_transcript(path)).rules)  # as each replay will have them
    folder = Path(tempfile.mkdtemp(prefix="mcptape-learn-"))
    try:
        results: list[ReplayResult] = []
        for n in range(1, runs + 1):
            output = folder / f"replay-{n}.jsonl"
            result = replay_with(path, command, settings, output=output, announce=announce)
            results.append(result)
            if not result.run.completed:
                break
        learned = Learned(Path(path), results[0].command, results, Lesson(), before, config=settings.config)
        if learned.completed:
            _learn(learned, before)
        return learned
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _learn(learned: Learned, before: list[Rule]) -> None:
    """Diff the first replay against each other one, learn, and check the rules on every replay."""
    results, path = learned.runs, learned.transcript
    between = [diff_files(results[0].new, r.new, ignore=before) for r in results[1:]]
    minted = _sent_apart([path, *(r.new for r in results)])
    learned.lesson = learn([r.diff for r in results], between, minted=minted, known=[r.text for r in before])
    rules = [*before, *learned.lesson.rules]
    learned.same_after = [diff_files(path, r.new, ignore=rules).same for r in results]


def _sent_apart(paths: Sequence[Path]) -> set[str]:
    """Strings the client sent in some sessions and not in others: a replay sends the recorded bytes,
    so these are the values it carried over from the new server (minted there, echoed back)."""
    from mcptape.diff.sessions import collect
    from mcptape.jsonsafe import walk
    from mcptape.transcript import open_transcript

    seen: list[set[str]] = []
    for path in paths:
        side = collect(open_transcript(path).events())
        strings = {
            value for msg in side.request_msgs.values() for _, value in walk(msg.value) if type(value) is str
        }
        seen.append(strings)
    everywhere = set.intersection(*seen) if seen else set()
    return set().union(*seen) - everywhere

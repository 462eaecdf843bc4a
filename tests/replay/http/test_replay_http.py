"""`replay FILE --http-upstream URL [-- CMD]` (replay/http/): an HTTP transcript's requests sent to
a new build over HTTP, recorded through the same proxy, diffed with the recording."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from mcptape.errors import UsageError
from mcptape.replay.api import diff_files, replay
from tests.recorder.http.helpers import free_port, recording, records, sdk_server
from tests.recorder.http.sdk_client import one_session

pytestmark = pytest.mark.slow


Recorded = Callable[[str], tuple[Path, int]]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """The SDK client's session in a mode through `record --http-upstream`: its transcript and the
    port its server listened on, recorded once per module in each worker (a replay starts its
    server on that port again; the tests read the transcript, never modify it)."""
    made: dict[str, tuple[Path, int]] = {}

    def get(mode: str) -> tuple[Path, int]:
        if mode not in made:
            port = free_port()
            out = tmp_path_factory.mktemp("recorded") / f"{mode}.jsonl"
            with recording(f"http://127.0.0.1:{port}/mcp", out, sdk_server(port)) as rec:
                anyio.run(one_session, rec.url, mode)
                rec.stop()
            made[mode] = out, port
        return made[mode]

    return get


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_replay_against_the_same_server_is_same(tmp_path: Path, recorded: Recorded, mode: str) -> None:
    """The SDK session (2026-07-28, or the handshake with its session id, GET stream and DELETE)
    replayed over HTTP against the same server started by the replay: the new transcript is an HTTP
    transcript of the same exchanges, and the diff says same. The new server's session id is sent
    where the recorded one was."""
    original, port = recorded(mode)
    new = tmp_path / "new.jsonl"
    result = replay(
        original, sdk_server(port), output=new, http_upstream=f"http://127.0.0.1:{port}/mcp", config=False
    )
    assert result.issues == []
    diff = diff_files(original, new)
    assert diff.same, diff
    sent = [r for r in records(new) if r["ch"] == "http-in"]
    assert len({r["x"] for r in sent}) == len({r["x"] for r in records(original) if r["ch"] == "http-in"})
    if mode == "legacy":
        old_ids = {
            r["data"] for r in records(original) if r["ch"] == "http-in" and "mcp-session-id" in r["data"]
        }
        assert old_ids and not any(line in r["data"] for r in sent for line in old_ids)


def test_a_replay_against_a_changed_build_shows_the_difference(tmp_path: Path, recorded: Recorded) -> None:
    """A build whose `add` is off by one (answering with JSON bodies instead of SSE: the transport's
    form is not a difference): the diff names the tools/call answer."""
    original, port = recorded("legacy")
    new = tmp_path / "new.jsonl"
    replay(original, [*sdk_server(port), "--off-by-one", "--json"], output=new, config=False)
    diff = diff_files(original, new)
    assert not diff.same
    differing = [p for p in diff.pairs if p.differs]
    assert len(differing) == 1 and "42" in str(differing[0]) and "43" in str(differing[0])


def test_a_stdio_transcript_is_refused(tmp_path: Path) -> None:
    """Nothing to send over HTTP: one clear error."""
    path = tmp_path / "stdio.jsonl"
    path.write_text(
        '{"mcptape":1,"started":"","command":["x"],"cwd":"","recorder":{}}\n{"t":0.1,"ch":"in","data":"{}\\n"}\n'
    )
    with pytest.raises(UsageError, match="is a stdio transcript"):
        replay(path, [], output=tmp_path / "new.jsonl", http_upstream="http://127.0.0.1:9/mcp")


def test_the_replay_command_takes_http_upstream(
    tmp_path: Path, recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mcptape replay FILE --http-upstream URL -- CMD`: the diff's report, exit 0 for same (the new
    session, temporary, removed), exit 1 for a changed build with the new session kept."""
    from mcptape.cli import main

    original, port = recorded("auto")
    upstream = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(SystemExit) as same:
        main(["replay", str(original), "--http-upstream", upstream, "--", *sdk_server(port)])
    assert same.value.code == 0 and capsys.readouterr().out.rstrip().endswith("same")
    new = tmp_path / "changed.jsonl"
    with pytest.raises(SystemExit) as changed:
        main(
            [
                "replay",
                str(original),
                "--http-upstream",
                upstream,
                "-o",
                str(new),
                "--",
                *sdk_server(port),
                "--off-by-one",
            ]
        )
    assert changed.value.code == 1 and "different" in capsys.readouterr().out and new.exists()

"""Make docs/viewer.svg: `mcptape view` on a real recorded session, headless.

    .venv/bin/python docs/make_screenshot.py [TRANSCRIPT] [-o docs/viewer.svg]

Without TRANSCRIPT, records one first: the official MCP SDK client against the bundled demo
server's buggy build, through `mcptape record` (what `mcptape demo` does). The viewer then opens on
it exactly as a user would see it, and Textual writes the screen as SVG.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp

HERE = Path(__file__).resolve().parent


async def shoot(transcript: Path, output: Path, size: tuple[int, int]) -> None:
    app = ViewerApp(TranscriptIndex(transcript))
    async with app.run_test(size=size) as pilot:
        for _ in range(500):
            if not app.busy:
                break
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.save_screenshot(filename=output.name, path=str(output.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=HERE / "viewer.svg")
    parser.add_argument("--width", type=int, default=140)
    parser.add_argument("--height", type=int, default=42)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        transcript = args.transcript
        if transcript is None:
            from mcptape.demo.client import run_session

            transcript = Path(tmp) / "demo-buggy.jsonl"
            for line in run_session(transcript, buggy=True):
                print(f"client saw: {line}")
        asyncio.run(shoot(transcript, args.output, (args.width, args.height)))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()

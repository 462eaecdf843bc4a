"""`diff --json` carries at most 64 KiB of a line as `raw` (2e2a6a8): the findings section too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson

from tests.conftest import SERVERS, console_script

REPO = SERVERS.parents[1]

GOOD = REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl"
MCPTAPE = console_script()


def test_a_large_bad_input_line_is_capped_in_diff_json(tmp_path: Path) -> None:
    """The new session has a 3 MB non-JSON client line: its finding's raw is cut to 64 KiB."""
    new = tmp_path / "new.jsonl"
    shutil.copy(GOOD, new)
    with new.open("ab") as fh:
        fh.write(orjson.dumps({"t": 99.0, "ch": "in", "data": "x" * (3 << 20) + "\n"}) + b"\n")
    result = subprocess.run(
        [MCPTAPE, "diff", "--json", "--no-config", str(GOOD), str(new)], capture_output=True, timeout=60
    )
    assert result.returncode == 1, result.stderr
    document = orjson.loads(result.stdout)
    raws = [f["raw"] for f in document["findings"]["added"]]
    assert raws, document["findings"]
    assert max(len(r) for r in raws) <= 64 * 1024
    assert len(result.stdout) < 1 << 20

"""The pytest plugin reads the settings `mcptape replay` reads: the nearest mcptape.toml or
pyproject.toml at or above the directory pytest runs in (docs/install.md), not pytest's rootdir.

pytest decides its rootdir before it knows the plugin's options, so `--mcptape-server
/path/to/venv/bin/server` (two words) counts as a path argument: the rootdir became the server's
own project (with its pyproject.toml), and the rules the user's project had learned were not read."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import NESTED_PYTEST
from tests.replay.conftest import rp
from tests.replay.helpers import corpus

pytestmark = pytest.mark.slow


def server_in_another_project(tmp_path: Path) -> Path:
    """`other/.venv/bin/server`, an executable in a project of its own (with a pyproject.toml), as
    an installed server is."""
    other = tmp_path / "other"
    (other / ".venv" / "bin").mkdir(parents=True)
    (other / "pyproject.toml").write_text('[project]\nname = "other"\n')
    server = other / ".venv" / "bin" / "server"
    server.write_text("#!/bin/sh\nexec " + " ".join(f"'{a}'" for a in rp()) + ' "$@"\n')
    server.chmod(0o755)
    return server


def test_the_projects_rules_apply_when_the_server_is_a_path_in_another_project(
    tmp_path: Path, v1_tape: Path
) -> None:
    """`pytest transcripts --mcptape-server /other/.venv/bin/server`, run in a project whose
    mcptape.toml hides greet's text: the changed greeting passes (the project's rule was read)."""
    project = tmp_path / "project"
    project.mkdir()
    corpus(project, v1_tape)
    (project / "mcptape.toml").write_text(
        "ignore = ['tools/call:result.content[*].text', 'tools/call:result.structuredContent']\n"
    )
    server = server_in_another_project(tmp_path)
    proc = subprocess.run(
        [
            *NESTED_PYTEST,
            "-q",
            "-rf",
            "transcripts",
            "--mcptape-server",
            str(server),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout

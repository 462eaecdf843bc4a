"""What a probe run needs to know: the server command, where the transcripts go, the valid call's
tool and arguments, every timeout, the cases. Built by the command, read by the runner and by the
per-tool hard inputs (`tools`)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.probe.cases import CASES, DEFAULT_OVERSIZE, Call, Case
from mcptape.probe.folder import Folder
from mcptape.probe.safety import Reach


@dataclass
class Plan:
    """Everything a probe run needs to know."""

    command: list[str]
    out_dir: Path
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    timeout: float = 10.0
    start_timeout: float = 30.0
    idle: float = 1.0
    oversize: int = DEFAULT_OVERSIZE
    jobs: int = 4
    cases: Sequence[Case] = CASES
    token: str = field(default_factory=lambda: secrets.token_hex(4))
    recorded: Sequence[Call] = ()  # real calls taken from a transcript (--from), best first
    every_tool: bool = True  # send the per-tool hard inputs to every listed tool
    allow_mutating: bool = False  # call tools that may change data too (docs/probe.md, safety.py)
    stubs: Sequence[str] = ()  # commands replaced on the server's PATH by recording stubs (--stub)
    reach: Reach = field(init=False)  # the guard every frame passes, and what each case named
    folder: Folder = field(init=False)  # OUT_DIR, and the files this run wrote there

    def __post_init__(self) -> None:
        self.reach = Reach(self.allow_mutating)
        self.folder = Folder(self.out_dir, {c.id for c in (*CASES, *self.cases)})

    def file(self, name: str) -> Path:
        """OUT_DIR/name, listed as this run's file before it is written (`folder`)."""
        return self.folder.file(name)

    @property
    def shutdown(self) -> float:
        """How long a server gets to exit after stdin closes (then SIGTERM, then SIGKILL)."""
        return min(5.0, self.timeout)

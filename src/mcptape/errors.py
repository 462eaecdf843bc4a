"""Every message mcptape shows a user about a failure, and the exit code that goes with it.

Exit codes (documented in the README):

* 0 - clean / same
* 1 - findings (check), differences (diff, replay), failures (probe)
* 2 - usage error or unreadable input (a missing, empty, truncated-header, binary or
  future-version transcript; an unwritable output; a missing executable)
* 130 - interrupted (Ctrl-C)
* 141 - stdout was closed before everything was written (`mcptape check ... | head`), as for a
  process killed by SIGPIPE; never 1, which would read as "findings"
"""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class MCPTapeError(Exception):
    """A failure the user can act on: one line of message, an optional hint, an exit code."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"

    def show(self) -> None:
        """Write the single `Error: ...` line to stderr (never stdout); best-effort: a stderr that
        cannot be written (a full disk, a closed pipe) loses the line, never the exit code."""
        text = str(self)
        if not text.isprintable():  # a file name or argument carrying control characters
            from mcptape.textsafe import escape_controls

            text = escape_controls(text)
        try:
            sys.stderr.write(f"Error: {text}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


class UsageError(MCPTapeError):
    """The command line does not say what to run or where to write."""


class TranscriptError(MCPTapeError):
    """A file that is not a readable mcptape transcript."""


class OutputError(MCPTapeError):
    """A path mcptape must write to cannot be written."""


class SpawnError(MCPTapeError):
    """The server command could not be started."""

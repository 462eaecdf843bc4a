"""Display helpers for text that is already readable but must still never drive the terminal."""

from __future__ import annotations

from mcptape.textsafe import escape_text


def safe_text(text: str) -> str:
    """Escape control and reordering characters, keeping newlines and backslashes as they are.

    For text another part of mcptape already escaped (the check core's messages) or produced
    (pretty JSON, whose own escapes must stay readable): a second `escape` would double every
    backslash, while this keeps them and still neutralises any stray control character.
    """
    return "\n".join("\\".join(escape_text(part) for part in line.split("\\")) for line in text.split("\n"))


def one_line(text: str) -> str:
    """`safe_text` for a cell of a single terminal line (a list row, a header line): a line feed
    is shown as `\\n` too, never written (it would break the row, or scroll the screen)."""
    return safe_text(text).replace("\n", "\\n")

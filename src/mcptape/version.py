"""mcptape's version: in the transcript header it writes, in `--version`, in reports."""

__version__ = "0.1.0"

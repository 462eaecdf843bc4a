"""The `mcptape` console script.

`mcptape record ...` takes a fast path that spawns the server before click (or anything heavy)
is imported; every other command, and any `record` command line the fast path does not
recognise (`--help`, a typo), goes through the click CLI in `mcptape.cli`.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "record":
        from mcptape.recorder.options import parse_fast

        opts = parse_fast(args[1:])
        if opts is not None:
            from mcptape.commands.recording import record
            from mcptape.errors import MCPTapeError

            try:
                code = record(opts)
            except MCPTapeError as exc:
                exc.show()
                code = exc.exit_code
            sys.exit(code)
    from mcptape.cli import main as cli_main

    cli_main(args=args, prog_name="mcptape")


if __name__ == "__main__":
    main()

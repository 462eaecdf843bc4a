"""A test child for byte-exactness: writes given byte streams to stdout and stderr in given chunks,
and copies every byte it receives on stdin to a file.

usage: byte_echo.py PLAN_FILE RECEIVED_FILE
PLAN_FILE is JSON: {"out": [b64 chunk, ...], "err": [b64 chunk, ...]}.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading


def main() -> None:
    with open(sys.argv[1]) as fh:
        plan = json.load(fh)
    received = open(sys.argv[2], "wb")  # noqa: SIM115 - closed when stdin ends

    def copy_stdin() -> None:
        while chunk := os.read(0, 65536):
            received.write(chunk)
        received.close()

    reader = threading.Thread(target=copy_stdin)
    reader.start()
    outs = [base64.b64decode(c) for c in plan["out"]]
    errs = [base64.b64decode(c) for c in plan["err"]]
    for i in range(max(len(outs), len(errs))):
        if i < len(outs):
            _write(1, outs[i])
        if i < len(errs):
            _write(2, errs[i])
    reader.join()


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if __name__ == "__main__":
    main()

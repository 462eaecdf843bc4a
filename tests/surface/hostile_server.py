"""A stdio server that answers `initialize` and then `tools/list` with a hostile answer (MODE):

* `surrogate`: an error whose message holds a lone surrogate escape and an OSC sequence;
* `array-result`: a result that is an array nested 1,000 levels deep;
* `deep-code`: an error whose code is an array nested 1,000 levels deep.

`python hostile_server.py MODE`."""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
DEEP = "[" * 1000 + "]" * 1000
INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "h", "version": "1"},
}


def answer(rid: object, body: str) -> None:
    sys.stdout.write('{"jsonrpc":"2.0","id":' + json.dumps(rid) + "," + body + "}\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if not isinstance(message, dict) or "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        answer(message["id"], '"result":' + json.dumps(INIT))
    elif method == "tools/list" and MODE == "surrogate":
        answer(message["id"], '"error":{"code":1,"message":"bad \\ud800 \\u001b]0;x\\u0007"}')
    elif method == "tools/list" and MODE == "array-result":
        answer(message["id"], '"result":' + DEEP)
    elif method == "tools/list":
        answer(message["id"], '"error":{"code":' + DEEP + ',"message":"x"}')
    else:
        answer(message["id"], '"result":{}')

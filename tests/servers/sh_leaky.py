"""A careless stdio MCP server that leaks secrets everywhere (for the redaction tests).

It prints a banner with a token on stdout before any message (a non-protocol line), echoes its
argv, a secret environment variable and a PEM private key on stderr, answers `login` with an
access token and the password it was sent, sends a notification carrying a bearer token, and
writes one response in two reads with a secret split across them. Plain JSON over stdio: no SDK,
so it starts fast.

Usage: sh_leaky.py --api-key VALUE   (the environment variable SH_SERVICE_TOKEN is echoed too)
"""

from __future__ import annotations

import json
import os
import sys
import time

RESP_SECRET = "at-resp-5d8e1b2c4a"
NOTIF_SECRET = "notif9Q8w7E6r5T4y"
STDERR_SECRET = "stderr-kv-3141592653"
SPLIT_SECRET = "sk-splitabcdefghijklmnopqrstuvwx"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


def send(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    argv_secret = sys.argv[sys.argv.index("--api-key") + 1]
    sys.stderr.write(f"sh_leaky: started as {' '.join(sys.argv)}\n")
    sys.stderr.write(f"sh_leaky: service credential is {os.environ.get('SH_SERVICE_TOKEN', '')}\n")
    sys.stderr.write(f"sh_leaky: debug api_key={STDERR_SECRET} ready\n")
    sys.stderr.write(
        f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY[::-1]}\n-----END PRIVATE KEY-----\n"
    )
    sys.stderr.flush()
    sys.stdout.write(f"sh_leaky banner: using key {argv_secret}\n")  # not protocol: line 1 of stdout
    sys.stdout.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        mid = msg.get("id")
        method = msg.get("method")
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "result": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {}, "logging": {}},  # it logs (a leaking message)
                        "serverInfo": {"name": "sh_leaky", "version": "1"},
                    },
                }
            )
        elif method == "tools/call" and msg["params"]["name"] == "login":
            password = msg["params"]["arguments"]["password"]
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {
                        "level": "info",
                        "data": f"upstream said Authorization: Bearer {NOTIF_SECRET}",
                    },
                }
            )
            text = f"logged in with {password}"
            send(
                {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "result": {
                        "content": [{"type": "text", "text": text}],
                        "structuredContent": {"session": {"access_token": RESP_SECRET}},
                    },
                }
            )
        elif method == "tools/call":
            body = (
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": mid,
                        "result": {
                            "content": [{"type": "text", "text": f"your key is {SPLIT_SECRET} keep it safe"}]
                        },
                    }
                )
                + "\n"
            )
            cut = body.index(SPLIT_SECRET) + 10
            sys.stdout.write(body[:cut])
            sys.stdout.flush()
            time.sleep(0.2)  # the recorder reads the two halves separately
            sys.stdout.write(body[cut:])
            sys.stdout.flush()
        elif mid is not None:
            send({"jsonrpc": "2.0", "id": mid, "result": {}})


if __name__ == "__main__":
    main()

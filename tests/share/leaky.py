"""Run tests/servers/sh_leaky.py under the installed `mcptape record`, driven over real pipes."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import PYTHON, SERVERS, console_script

REQ_SECRET = "hunter2-req-7f3a9c"
ARGV_SECRET = "argv-flag-2718281828"
ENV_SECRET = "env-token-1618033988"
RESP_SECRET = "at-resp-5d8e1b2c4a"
NOTIF_SECRET = "notif9Q8w7E6r5T4y"
STDERR_SECRET = "stderr-kv-3141592653"
SPLIT_SECRET = "sk-splitabcdefghijklmnopqrstuvwx"
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
PLANTED = {
    "request": REQ_SECRET,
    "argv": ARGV_SECRET,
    "environment": ENV_SECRET,
    "response": RESP_SECRET,
    "notification": NOTIF_SECRET,
    "stderr": STDERR_SECRET,
    "split-across-reads": SPLIT_SECRET,
    "pem-key-on-stderr": PEM_BODY,
}
ENV = {**os.environ, "SH_SERVICE_TOKEN": ENV_SECRET}


@dataclass
class Session:
    transcript: Path
    stdout: bytes  # what the client received
    stderr: bytes


def server_command() -> list[str]:
    return [PYTHON, str(SERVERS / "sh_leaky.py"), "--api-key", ARGV_SECRET]


def record_leaky(path: Path, *extra: str) -> Session:
    """Record one session: initialize, login with a password, a call answered in two reads."""
    requests: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "login", "arguments": {"password": REQ_SECRET}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}},
    ]
    argv = [console_script(), "record", "-q", "-o", str(path), *extra, "--", *server_command()]
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    assert proc.stdin is not None and proc.stdout is not None
    out = bytearray(proc.stdout.readline())  # the banner
    for request in requests:
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        if "id" in request:
            line = proc.stdout.readline()
            out += line
            if b'"method"' in line:  # the notification before login's response
                out += proc.stdout.readline()
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    return Session(path, bytes(out + rest), err)

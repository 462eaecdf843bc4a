"""Must show: `serve --exact` of a recording whose server printed a banner makes the official SDK
client meet that banner again: the same words on its stderr, the same results."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.serve.helpers import client, python_server, record, serve

pytestmark = pytest.mark.slow

BANNER = b"input_value='Server ready (banner-demo v1)'"
PARSE_FAILURE = b"Failed to parse JSONRPC message from server"


def test_exact_reproduces_what_the_sdk_client_does_on_a_banner(tmp_path: Path) -> None:
    """Against the real server, against --exact: the client logs the parse failure of the banner
    and goes on with the same results; served without --exact it sees no banner."""
    tape = tmp_path / "banner.jsonl"
    args = ["--call", 'greet={"name": "Ada"}']
    real = client(*args, *record(tape, python_server("banner_server.py")))
    exact = client(*args, *serve(tape, "--exact", "-q"))
    plain = client(*args, *serve(tape, "-q"))
    for run in (real, exact, plain):
        assert run.returncode == 0, run.stderr.decode()
        assert run.stdout == real.stdout
    assert PARSE_FAILURE in real.stderr and BANNER in real.stderr
    assert PARSE_FAILURE in exact.stderr and BANNER in exact.stderr
    assert real.stderr.count(PARSE_FAILURE) == exact.stderr.count(PARSE_FAILURE) == 1
    assert PARSE_FAILURE not in plain.stderr

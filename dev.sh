#!/usr/bin/env bash
# One command to set everything up and run something, on a machine with Python 3.11, pip and git.
#
#   ./dev.sh demo    set up, then record, check and show a session with the bundled server
#   ./dev.sh test    set up, then run ruff, mypy and the whole test suite
#   ./dev.sh bench   set up, then run the benchmarks under bench/
#   ./dev.sh shell   set up, then open a shell with the project's virtualenv active
#
# Setup is idempotent: a virtualenv in .venv with mcptape installed (editable) and its test
# dependencies, plus the npm test servers in tests/node when npm is present.
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=.venv

pip_install() {
    # Some machines' pip configs list local mirrors that may be absent: keep their warnings out.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 \
        | { grep -v "^WARNING: Location '.*' is ignored" || true; } >&2
    return "${PIPESTATUS[0]}"
}

setup() {
    if [ ! -x "$VENV/bin/python" ]; then
        echo "dev.sh: creating $VENV" >&2
        "$PYTHON" -m venv "$VENV"
    fi
    local stamp="$VENV/.mcptape-setup" want
    want=$(cat pyproject.toml tests/node/package.json tests/node/package-lock.json 2>/dev/null | cksum)
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "dev.sh: installing mcptape and its test dependencies" >&2
        pip_install --upgrade pip
        pip_install -e ".[test]"
        if command -v npm >/dev/null 2>&1; then
            echo "dev.sh: installing the npm test servers (tests/node)" >&2
            (cd tests/node && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
        else
            echo "dev.sh: npm not found: tests that need @modelcontextprotocol/server-everything will fail" >&2
        fi
        echo "$want" > "$stamp"
    fi
}

# The real consumers of `mcptape export`, for the test suite: headless Chromium renders the HTML
# report, Arize Phoenix (a real OTLP backend, ~850 MB, in a virtualenv of its own so its pins never
# meet the project's) receives the traces. Both are set up once, before any test runs.
PHOENIX_VENV=${MCPTAPE_PHOENIX_VENV:-$HOME/.cache/mcptape/phoenix-venv}

setup_consumers() {
    if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "dev.sh: installing chromium (apt-get) for the HTML report tests" >&2
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null
        else
            echo "dev.sh: chromium not found (apt-get install chromium): the HTML report tests will fail" >&2
        fi
    fi
    if [ ! -x "$PHOENIX_VENV/bin/phoenix" ]; then
        echo "dev.sh: installing Arize Phoenix in $PHOENIX_VENV for the OTLP export tests" >&2
        MCPTAPE_PHOENIX_VENV="$PHOENIX_VENV" "$VENV/bin/python" -c \
            'from tests.export.phoenix import executable; executable()'
    fi
    export MCPTAPE_PHOENIX_VENV="$PHOENIX_VENV"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    demo)
        setup
        exec "$VENV/bin/mcptape" demo "$@"
        ;;
    test)
        setup
        setup_consumers
        "$VENV/bin/ruff" check src tests bench
        "$VENV/bin/ruff" format --check src tests bench
        "$VENV/bin/mypy"
        exec "$VENV/bin/pytest" -n 4 -q "$@"
        ;;
    bench)
        setup
        for b in bench/bench_*.py; do "$VENV/bin/python" "$b" "$@"; done
        ;;
    shell)
        setup
        exec bash --rcfile <(echo ". $VENV/bin/activate")
        ;;
    *)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac

"""The bounds of numbers that come from outside: command-line options, and values a server's
schema dictates (os only, no imports: `mcptape record`'s fast path reads it before the spawn).

A finite number can still be too large to use: Python's threads refuse a timeout past
`threading.TIMEOUT_MAX` (about 292 years), `time.sleep` one past the platform's time_t, and a
length becomes memory. Every such option is checked against these at parse time, with an error
that names the option and the range (exit 2), never a traceback later.
"""

from __future__ import annotations

MAX_SECONDS = 86_400.0  # a timeout or a wait: at most a day
MAX_LINE_BYTES = 256 << 20  # a line mcptape builds on purpose (probe's oversized line)
MAX_ARGUMENT_CHARS = 1 << 16  # a string (or an encoded value) probe derives from a server's schema
MAX_ARGUMENT_NUMBER = 2**53  # a number probe derives from a server's schema, either sign


def seconds_ok(value: float, *, minimum: float = 0.0, min_open: bool = False, forever: bool = False) -> bool:
    """Is `value` a usable number of seconds (not NaN, within [minimum, MAX_SECONDS])? With
    `forever`, infinity is usable too: a wait that never ends (`--shutdown-timeout inf`)."""
    if value != value:  # NaN
        return False
    if forever and value == float("inf"):
        return True
    low = value > minimum if min_open else value >= minimum
    return low and value <= MAX_SECONDS

"""The options of `mcptape record`, defined once: the click command and the fast path read them.

`mcptape record` must spawn the server before anything heavy is imported (click alone costs
~50 ms, dataclasses ~10 ms), so `parse_fast` reads the common command lines with nothing but
builtins. Anything it does not recognise (`--help`, a typo, a missing value) returns None and click
handles the command line, with its help and its error messages.
"""

from __future__ import annotations

from mcptape.limits import seconds_ok

# name on the command line -> (attribute, takes a value, repeatable)
FLAGS: dict[str, tuple[str, bool, bool]] = {
    "-o": ("output", True, False),
    "--output": ("output", True, False),
    "--overwrite": ("overwrite", False, False),
    "-q": ("quiet", False, False),
    "--quiet": ("quiet", False, False),
    "--shutdown-timeout": ("shutdown_timeout", True, False),
    "--http-sink": ("http_sink", False, False),
    "--http-cassette": ("http_cassette", False, False),
    "--http-cassette-ca": ("http_cassette_ca", True, True),
    "--stub": ("stubs", True, True),
    "--redact": ("redact", False, False),
    "--redact-key": ("redact_keys", True, True),
    "--redact-pattern": ("redact_patterns", True, True),
    "--name": ("name", True, False),
    "--fail-open": ("fail_open", False, False),
    "--http-upstream": ("http_upstream", True, False),
    "--listen": ("listen", True, False),
    "--otlp": ("otlp", True, False),
}


class RecordOptions:
    """What to run and where to record it."""

    __slots__ = (
        "command",
        "fail_open",
        "http_cassette",
        "http_cassette_ca",
        "http_sink",
        "http_upstream",
        "listen",
        "name",
        "otlp",
        "output",
        "overwrite",
        "quiet",
        "redact",
        "redact_keys",
        "redact_patterns",
        "shutdown_timeout",
        "stubs",
    )

    def __init__(
        self,
        command: list[str],
        output: str | None = None,
        overwrite: bool = False,
        quiet: bool = False,
        shutdown_timeout: float = 5.0,
        http_sink: bool = False,
        stubs: list[str] | None = None,
        redact: bool = False,
        redact_keys: list[str] | None = None,
        redact_patterns: list[str] | None = None,
        http_cassette: bool = False,
        http_cassette_ca: list[str] | None = None,
        name: str | None = None,
        fail_open: bool = False,
        http_upstream: str | None = None,
        listen: str | None = None,
        otlp: str | None = None,
    ) -> None:
        self.command = command
        self.output = output
        self.overwrite = overwrite
        self.quiet = quiet
        self.shutdown_timeout = shutdown_timeout
        self.http_sink = http_sink
        self.stubs = list(stubs or [])
        self.redact = redact
        self.redact_keys = list(redact_keys or [])
        self.redact_patterns = list(redact_patterns or [])
        self.http_cassette = http_cassette or bool(http_cassette_ca)  # a CA for the cassette implies it
        self.http_cassette_ca = list(http_cassette_ca or [])
        self.name = name  # the template of a new file's name in a directory (recorder.naming)
        self.fail_open = fail_open  # a transcript that cannot be written: run the server unrecorded
        self.http_upstream = http_upstream  # record a Streamable HTTP session (recorder.http.run)
        self.listen = listen  # where its proxy listens (default a free loopback port)
        self.otlp = otlp  # export each call live to this OTLP/HTTP endpoint (export/live.py)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RecordOptions):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "RecordOptions(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def parse_fast(args: list[str]) -> RecordOptions | None:
    """Parse `record`'s arguments without click, or return None to let click do it."""
    values: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        # `--name=value`; a short option's `=` is part of its value to click (`-o=x` is `=x`)
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        spec = FLAGS.get(name)
        if spec is None:
            return None
        attr, takes_value, repeatable = spec
        if not takes_value:
            if eq:
                return None
            values[attr] = True
            i += 1
            continue
        if eq:
            value = inline
            i += 1
        elif i + 1 < len(args):
            value = args[i + 1]
            i += 2
        else:
            return None
        if repeatable:
            existing = values.setdefault(attr, [])
            assert isinstance(existing, list)
            existing.append(value)
        else:
            values[attr] = value
    command = args[i:]
    if not command:
        return None
    try:
        timeout = float(str(values.pop("shutdown_timeout", 5.0)))
    except ValueError:
        return None
    if not seconds_ok(timeout, forever=True):  # NaN, negative, or past a day but finite: click says why
        return None
    opts = RecordOptions(command=command, shutdown_timeout=timeout)
    for attr, given in values.items():
        setattr(opts, attr, given)
    opts.http_cassette = opts.http_cassette or bool(opts.http_cassette_ca)
    return opts

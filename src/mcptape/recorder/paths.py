"""Where a recording goes when the user names a directory, or nothing at all (os only: this runs
before the server is spawned)."""

from __future__ import annotations

import os

NAME_ATTEMPTS = 64  # fresh random suffixes tried before a directory is called full


def default_name(
    now: float | None = None,
    pid: int | None = None,
    suffix: str | None = None,
    *,
    command: list[str] | None = None,
    template: str | None = None,
) -> str:
    """`mcptape-mcp-server-time-20261129-193000-9f3a1c.jsonl` (`recorder.naming`): the server's slug,
    the time, and a random suffix, so that two recorders in the same second (PID 1 of two
    containers sharing a folder) get different names; `template` is `record --name`."""
    from mcptape.recorder.naming import render_name

    return render_name(template, command, now=now, pid=pid, suffix=suffix)


def _default_directory(output: str | None, environ: dict[str, str] | None) -> str | None:
    """The directory a default name goes into, or None when `output` names a file."""
    env = os.environ if environ is None else environ
    if output is None:
        # expanded like `-o`: a client's JSON config passes `~/tapes` unexpanded
        return os.path.expanduser(env.get("MCPTAPE_DIR") or ".")
    path = os.path.expanduser(output)
    # a trailing / names a directory, made when missing (`open_recording`)
    return path if os.path.isdir(path) or output.endswith(("/", os.sep)) else None


def resolve_output(output: str | None, environ: dict[str, str] | None = None) -> str:
    """`-o FILE` as given; `-o DIR` or no `-o` give a new timestamped name in that directory.

    Without `-o` the directory is `$MCPTAPE_DIR`, else the current directory. (`open_recording`
    opens it; a default name is only a candidate until then.)
    """
    directory = _default_directory(output, environ)
    if directory is None:
        assert output is not None
        return os.path.expanduser(output)
    return os.path.join(directory, default_name())


def open_recording(
    output: str | None,
    *,
    overwrite: bool = False,
    environ: dict[str, str] | None = None,
    command: list[str] | None = None,
    template: str | None = None,
) -> tuple[str, int]:
    """The path of the transcript and its fd, opened for appending (mode 0600).

    `-o FILE` is opened as `transcript.files.open_output` does (`overwrite` or not). A default name
    (`template`, for `command`) is created with O_EXCL and never reused: when it exists (another
    recorder took it), a new random suffix is tried, so a second recorder never fails to start its
    server over a name. A missing directory (`-o DIR/`, `$MCPTAPE_DIR`) is made, mode 0700.
    """
    from mcptape.recorder.naming import has_unique, with_unique
    from mcptape.transcript.files import open_output

    directory = _default_directory(output, environ)
    if directory is None:
        assert output is not None
        path = os.path.expanduser(output)
        return path, open_output(path, overwrite=overwrite)
    _make_directory(directory)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
    for attempt in range(NAME_ATTEMPTS):
        name = default_name(command=command, template=template)
        if attempt and not has_unique(template):
            name = with_unique(name)  # the template's own name was taken
        path = os.path.join(directory, name)
        try:
            return path, os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        except OSError:
            return path, open_output(path)  # says why in one sentence (a missing or read-only directory)
    from mcptape.errors import OutputError

    raise OutputError(f"cannot create a new transcript in {directory}: {NAME_ATTEMPTS} names were taken")


def _make_directory(directory: str) -> None:
    """Make a missing recording directory (and its parents), mode 0700: a client config's
    `-o ~/tapes/` must not cost the user their server on the first run."""
    if os.path.isdir(directory):
        return
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as exc:
        from mcptape.errors import OutputError

        raise OutputError(
            f"cannot create the directory {directory}: {exc.strerror or exc}",
            hint="choose another -o DIR/ (or $MCPTAPE_DIR)",
        ) from None

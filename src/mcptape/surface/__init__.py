"""The tool surface as a contract: what a server declares, locked, and two surfaces compared.

Pure but for reading files and the listing conversation (which runs over a transport it is given).
It builds on the check core (messages, classification) and the transcript reader; it never imports
the command layer. Public API (see docs/tools.md):

Values (`surface.model`)
    Surface(server_info, capabilities, instructions, protocol_version, definitions, listed, notes)
    Definition(kind, name, value, sha256, event)      one tool, prompt, resource or template
    Change(kind, name, severity, path, detail, flags, before, after, words)
    Severity: breaking / suspicious / compatible;  GATING: the two that fail `tools diff`
    digest(value) -> str                              sha256 of a value's canonical JSON

A surface from a session (`surface.extract`)
    surface_of(messages) -> Surface                   the check core's Messages, in time order
    read_transcript(path) -> Surface                  (NoListing when no tools/list was answered)
    Extractor: .feed(message), .finish(), .listings   every complete listing, for in-session drift

A live listing (`surface.live`, `surface.overhttp`)
    list_surface(lines, timeout) -> Surface           over any `Lines` transport; no tool is called
    HttpLines(url, timeout)                           Streamable HTTP

The lock (`surface.lockfile`)
    lock_text(surface) -> str;  read_lock(path) -> Surface   (LockError: exit 2)

The diff (`surface.compare`, `surface.members`, `surface.schemadiff`, `surface.addressing`,
`surface.accept`, `surface.report`)
    compare(base, new) -> Diff(changes, notes)
    compare_schemas(old, new, path, output=...) -> (found, texts)
    flags(text), gained_flags(old, new), words_diff(old, new)
    read_accepted(path), is_accepted(change, accepted)
    diff_text(...), diff_json(...)                    the report (names and words escaped)

In-session drift (`surface.drift`)
    session_drift(messages) -> list[Drift]            a later listing that differs from the earlier
"""

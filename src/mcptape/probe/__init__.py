"""`mcptape probe`: the seed's release gate against any server command.

Clean start, hard inputs, a valid request after a reject; see docs/probe.md.
"""

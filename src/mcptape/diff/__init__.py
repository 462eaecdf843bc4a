"""The semantic diff of two sessions, pure: pairs aligned by request id and compared as JSON values.

`sessions` aligns and compares two sessions' messages (on the check core), `compare` compares two
JSON values path by path, `ignore` parses the rules that hide paths and `shapes` the value shapes a
rule can mask inside strings; `learn` finds the rules from replays of one build. Used by `replay`
and by the diff viewer (`tui`); it imports neither.
"""

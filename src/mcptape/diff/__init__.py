"""The semantic diff of two sessions, pure: pairs aligned by request id and compared as JSON values.

`sessions` aligns and compares two sessions' messages (on the check core), `compare` compares two
JSON values path by path, `ignore` parses the rules that hide paths. Used by `replay` and by the
diff viewer (`tui`); it imports neither.
"""

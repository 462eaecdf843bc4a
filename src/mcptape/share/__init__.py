"""Sharing a session safely: redaction of secrets and the bug-report bundle (see docs/sharing.md).

Nothing heavy is imported here: `mcptape record --redact` imports `mcptape.share.live` on its fast path.
"""

"""`mcptape view`: the Textual inspector. Imported only by the `view` command (textual is heavy).

It renders what the check core computed and the index read; it decides nothing about the protocol.
"""

"""`mcptape view`: the Textual inspector. Imported only by the `view` command (textual is heavy).

It renders what the check core computed and the index read; it decides nothing about the protocol.
`model/` is headless (no textual, no rich): rows, their time order, what each row says, the check's
per-row results, where the cursor lands. `app.py` / `diff_app.py` wire the workers, whose results
arrive as typed messages (`messages.py`), to the widgets (`widgets/`, `screens/`).
"""

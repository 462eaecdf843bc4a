"""The viewer's headless model: everything the screens show, computed without a terminal.

Rows and their order (`order`, `rowview`), what a row says (`rows`, `essence`, `viewer`), the check
core's per-row results (`facts`), where the cursor lands and why (`landing`, `summary`), the detail
of a row (`detail`), search (`search`, `query`) and the diff viewer's rows (`diffrows`). No module
here imports textual or rich (`tests/tui/test_headless_model.py` imports them all in a fresh
interpreter and checks): the widgets under `mcptape.tui.widgets` and the apps lay out what this
package computed, and only they speak Textual.
"""

"""Reports: what a command found, in the terms the report formats share.

`report.py` is the model (a `Report` of JUnit suites and cases, SARIF-like results and the rules
they cite; the text safety every writer applies), `writers.py` the CI formats' writers (JUnit,
SARIF, GitHub annotations), each a row of `commands/outputs.FORMATS`. One adapter per command
builds its `Report`: `check.py`, `replay.py`, `probe.py`, `client.py` (probe --client),
`tools.py` (tools diff); `findings.py` is what they share (a check finding as a result).
"""

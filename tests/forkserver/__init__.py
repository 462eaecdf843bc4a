"""A fork server for the suite's MCP SDK processes: the SDK's import (~0.6 s of CPU, its pydantic
models) is paid once per run instead of once per server or client a test starts.

`server.py` imports the SDK and waits on a Unix socket. Every Python process the suite starts has
this folder on its PYTHONPATH, so `sitecustomize.py` runs first in it: when the process is the
suite's interpreter running a script that imports the SDK (`python server.py`, `mcp-server-time`),
it hands its file descriptors, argv, cwd and environment to the fork server and stays as a waiter.
The fork server forks a child that takes them over and runs the script (`runpy`, as `python
script.py` would), and tells the waiter how the child ended; the waiter ends the same way (exit code
or signal) and forwards the signals it gets (SIGTERM, SIGINT, ...) to the child. If the waiter is
killed, the child is killed too. The server and its client are real processes on the real pipes and
sockets the test made: only the import is shared. A process that does not match exactly (another
interpreter, `-c`, `-m`, interpreter options other than `-u`, no fork server) runs as usual.
"""

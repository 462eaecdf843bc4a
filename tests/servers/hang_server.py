"""Reads its stdin and never answers (a server hung at start-up)."""

import os

while os.read(0, 65536):
    pass

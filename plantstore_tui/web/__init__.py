"""`plantstore-tui web`: the TUI served to a browser by textual-serve, behind an access key.

`gate.py` decides who may reach it (the key); `serving.py` runs textual-serve's server with the
gate in front of every route, one app process per tab.
"""

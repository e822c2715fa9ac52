"""`python -m plantstore_tui`: the same command line as `plantstore-tui`."""

from plantstore_tui.cli import main

main()

"""`python -m plantstore_tui`."""

from plantstore_tui.cli import main

main()

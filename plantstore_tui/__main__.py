"""`python -m plantstore_tui`."""

from plantstore_tui.start import main

main()

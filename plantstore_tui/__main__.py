"""`python -m plantstore_tui`: the same command line as `plantstore-tui`."""

from plantstore_tui.cli import main
from plantstore_tui.cli.completion import COMPLETE_VAR

main(complete_var=COMPLETE_VAR)

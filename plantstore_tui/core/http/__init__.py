"""Talking to a deployment: base URLs and tokens on the wire (urls), TLS (tls), the client, its
connections and the words for its failures (client, connections, body, failures), conformance
marks, the check (check, check_rows, check_report, probe_transport), and a send as a shell
command (export)."""

import sys

# httpx imports its own command line (`httpx._main`: click, rich.progress, rich.syntax and
# pygments) whenever those are installed, and Textual brings rich and pygments along: every
# process that sends would load a program none of them runs. Every import of httpx in the package
# comes after this: marked as missing, httpx keeps its stand-in `httpx.main`, as when its command
# line's extras are not installed. (An httpx imported earlier is left as it is.) It weighs most
# on a command that sends (`add`), less on the TUI's start, where Textual has loaded most of it
# (benchmarks/README.md, "Imports kept out of the start"). httpx has no public way to leave it out:
# encode/httpx#3547 (importing it in `__main__` instead) is open; tests/core/http/test_upstream.py
# says when a release does it, and this can go.
if "httpx" not in sys.modules:
    # None in sys.modules is the import system's "cannot be imported" (ModuleNotFoundError);
    # typeshed types the mapping as holding modules only.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

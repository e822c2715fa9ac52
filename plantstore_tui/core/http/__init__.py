"""Talking to a deployment: base URLs and tokens on the wire (urls), TLS (tls), the client and
the words for its failures (client, body, failures), conformance marks, the check (check,
check_rows, check_report, probe_transport), and a send as a shell command (export)."""

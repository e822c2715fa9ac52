"""Talking to a deployment: base URLs and tokens on the wire, TLS, the client, conformance marks,
the check and the probe, and a send as a shell command."""

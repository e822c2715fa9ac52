"""Where settings live: files, profiles and their store, tokens, hosts, and which target wins."""

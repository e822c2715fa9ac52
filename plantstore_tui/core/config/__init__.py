"""Where settings live: paths, atomic files, profiles and their store, tokens, and which target
wins."""

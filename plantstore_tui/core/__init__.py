"""The headless core, by concern: `plant` (what is typed and what came of it), `http` (talking to a
deployment), `config` (profiles, tokens, files), `store` (the ledger), `sending` (the TUI's queue)
and `importing` (files sent as batches).

It never imports Textual. This package and its subpackages import nothing on purpose, so the TUI
can paint its first frame before Pydantic and httpx are loaded: import from the modules.
"""

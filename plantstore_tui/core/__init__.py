"""The headless core, by concern: `plant` (what is typed and what came of it), `http` (talking to a
deployment), `config` (profiles, tokens, files), `store` (the ledger), `sending` (the TUI's queue)
and `importing` (files sent as batches).

It never imports Textual. Import a name from the module that defines it; `store` and `importing`
also re-export their main names.
"""

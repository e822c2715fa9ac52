"""The headless core: form parsing, the spec's models, the API client and its outcomes.

It never imports Textual. Import from the modules themselves (`core.form`, `core.models`,
`core.client`, `core.outcome`, `core.target`): this package imports nothing on purpose, so the
TUI can paint its first frame before Pydantic and httpx are loaded.
"""

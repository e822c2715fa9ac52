"""The reference Plant Store server: Starlette + uvicorn + SQLite."""

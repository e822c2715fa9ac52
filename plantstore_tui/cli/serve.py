"""`plantstore-tui serve`: run the reference Plant Store server."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import click
import platformdirs
from pydantic import SecretStr

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.http.hosts import is_loopback_host
from plantstore_tui.server.app import create_app
from plantstore_tui.server.runner import CannotListen, listen, run_server


def default_db_path() -> Path:
    """`plants.sqlite3` in the user data directory."""
    return platformdirs.user_data_path("plantstore-tui") / "plants.sqlite3"


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port."
)
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite database file [default: plants.sqlite3 in the user data directory].",
)
@click.option(
    "--token-env",
    metavar="VAR",
    help="Take the accepted token from this environment variable [default: generate one].",
)
@click.option(
    "--delay",
    default=0.0,
    show_default=True,
    type=click.FloatRange(0, 60),
    metavar="SECONDS",
    help="Answer every POST /plants after this many seconds, to try the TUI against a slow "
    "deployment.",
)
def serve(host: str, port: int, db_path: Path | None, token_env: str | None, delay: float) -> None:
    """Run the reference Plant Store server (POST /plants, GET /openapi.json)."""
    if token_env is not None:
        if not os.environ.get(token_env, "").strip():
            raise ConfigProblem(f"The environment variable {token_env} is not set or is empty.")
        token = SecretStr(os.environ[token_env].strip())
    else:
        token = SecretStr(secrets.token_urlsafe(32))
    db = db_path or default_db_path()
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        app = create_app(db_path=db, token=token, delay=delay)
    except OSError as exc:
        raise ConfigProblem(f"Cannot open the database {db}: {exc.strerror or exc}") from None
    # Every way a start can fail comes before the token is printed: a failed start shows none.
    try:
        sock = listen(host, port)
    except CannotListen as exc:
        raise ConfigProblem(str(exc)) from None
    if token_env is not None:
        click.echo(f"Accepting the token from ${token_env}.")
    else:
        click.echo("Accepting this token (shown once, not stored):")
        click.echo(f"  {token.get_secret_value()}")
    if not is_loopback_host(host):
        click.echo(
            f"Warning: listening on {host} over plain HTTP; tokens sent to it can be read "
            "on the network.",
            err=True,
        )
    click.echo(f"Plants are kept in {db}")
    if delay:
        click.echo(f"Every POST /plants is answered after {delay:g} s.")
    run_server(app, sock)

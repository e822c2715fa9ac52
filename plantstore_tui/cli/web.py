"""`plantstore-tui web`: the TUI in a browser (textual-serve), behind an access key; beyond this
machine only over TLS."""

from __future__ import annotations

import os
import shlex
import ssl
import sys

import click

from plantstore_tui.cli.exits import ConfigProblem, InvalidInput
from plantstore_tui.cli.targets import TargetOptions, merged_target_options, resolve_target
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.config.options import TOKEN_ENV
from plantstore_tui.core.http.hosts import is_loopback_host
from plantstore_tui.core.plant.text import visible
from plantstore_tui.server.runner import CannotListen, listen
from plantstore_tui.web.gate import KEY_ENV, KEY_PARAMETER, UnusableKey, access_key, key_gate
from plantstore_tui.web.origin import origin_gate, page_origin
from plantstore_tui.web.serving import GatedServer, serve, tls_context


def tab_command(options: TargetOptions, profile: str | None, base_url: str) -> str:
    """The shell command each tab runs: the TUI on the same target, never with a token in it
    (the token reaches the app through its environment or its profile)."""
    if profile is not None:
        args = ["--profile", profile]
    else:
        args = ["--base-url", base_url]
        if options.allow_insecure_http:
            args.append("--allow-insecure-http")
    if options.ca_bundle:
        args += ["--ca-bundle", os.path.abspath(options.ca_bundle)]
    if options.proxy:
        args += ["--proxy", options.proxy]
    # exec: the app is textual-serve's child itself, and ends when it is told to.
    return "exec " + shlex.join([sys.executable, "-m", "plantstore_tui", *args])


def _say(words: str) -> None:
    """One line of web's log, on standard error."""
    click.echo(words, err=True)


def _url_host(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host else host


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port (0: any free one).",
)
@click.option(
    "--cert",
    type=click.Path(exists=True, dir_okay=False),
    metavar="PEM",
    help="Serve HTTPS with this certificate chain (needed beyond this machine).",
)
@click.option(
    "--key",
    "key_file",
    type=click.Path(exists=True, dir_okay=False),
    metavar="PEM",
    help="The private key of --cert.",
)
@click.option(
    "--public-url",
    metavar="URL",
    help="The address browsers use, when a reverse proxy is in front "
    "(https://plants.example.org) [default: the address listened on].",
)
@merged_target_options
def web(
    options: TargetOptions,
    host: str,
    port: int,
    cert: str | None,
    key_file: str | None,
    public_url: str | None,
) -> None:
    """Serve the TUI to browsers: each tab runs its own TUI on the same target and ledger.

    Anyone who opens the page works with your token, so every request must show an access key:
    a fresh one at each start, printed once as the URL to open (or a fixed one from
    $PLANTSTORE_WEB_KEY, for a service). Beyond this machine only with --cert and --key (HTTPS),
    or behind a reverse proxy that serves HTTPS and forwards to 127.0.0.1.
    """
    if (cert is None) != (key_file is None):
        raise InvalidInput("--cert and --key go together: give both, or neither.")
    if cert is None and not is_loopback_host(host):
        raise InvalidInput(
            f"Serving on {visible(host)} beyond this machine needs HTTPS (--cert and --key), "
            "since anyone on the network could read the access key; or keep 127.0.0.1 behind a "
            "reverse proxy."
        )
    if public_url is not None and not public_url.startswith(("http://", "https://")):
        raise InvalidInput("--public-url must start with http:// or https://.")
    if public_url is not None:
        try:
            page_origin(public_url)
        except ValueError:
            raise InvalidInput(
                f"--public-url {visible(public_url)} is not an address a browser can open: "
                "give one as https://plants.example.org."
            ) from None
    if options.proxy and "@" in options.proxy:
        raise InvalidInput(
            "A proxy with a password cannot be given to web (each tab's command line is "
            "visible to other users): set HTTPS_PROXY instead."
        )
    try:
        key, from_env = access_key(os.environ)
    except UnusableKey as exc:
        # A setting of the environment that cannot be used: configuration, as a missing token.
        raise ConfigProblem(str(exc)) from None
    # Each tab's TUI would refuse to start on it: said once, here, before anything is served.
    checked_data_dir()
    # The tabs' apps have no use for it.
    os.environ.pop(KEY_ENV, None)
    tls: ssl.SSLContext | None = None
    if cert is not None and key_file is not None:
        try:
            tls = tls_context(cert, key_file)
        except (ssl.SSLError, OSError):
            raise InvalidInput(
                "The certificate and key cannot be used: they must be PEM files, the key "
                "the certificate's own and not encrypted."
            ) from None
    # Checked now, in this terminal (a hidden prompt for an ad hoc target's token, exit 4 for
    # an unusable profile); each tab resolves it again in its own app.
    target = resolve_target(options, interactive=True)
    if target.profile is None:
        # The tabs inherit it through their environment, never through a command line.
        os.environ.setdefault(TOKEN_ENV, target.token.get_secret_value())
    try:
        sock = listen(host, port)
    except CannotListen as exc:
        # As `serve` says it: a port in use is this machine's state, not a mistake in the command.
        raise ConfigProblem(str(exc)) from None
    bound_port = sock.getsockname()[1]
    scheme = "https" if tls is not None else "http"
    address = (public_url or f"{scheme}://{_url_host(host)}:{bound_port}").rstrip("/")
    command = tab_command(options, target.profile, target.base_url)
    server = GatedServer(
        command,
        public_url=address,
        title="plantstore-tui",
        gates=[
            # Secure: over HTTPS, here or at the reverse proxy in front.
            key_gate(
                key,
                cookie_name=f"plantstore_web_{bound_port}",
                secure=address.startswith("https:"),
            ),
            # The page's scripts and websocket addresses are built on `address`: a tab is a
            # page there.
            origin_gate(page_origin(address), on_refused=_say),
        ],
    )

    def ready() -> None:
        click.echo(f"Serving the TUI on {address}: each browser tab runs its own, sending to")
        click.echo(f"  {visible(target.base_url)}")
        if from_env:
            click.echo(f"Open this URL, with the access key from ${KEY_ENV}:")
            click.echo(f"  {address}/?{KEY_PARAMETER}=<${KEY_ENV}>")
        else:
            click.echo("Open this URL (it holds the access key; shown once, new at each start):")
            click.echo(f"  {address}/?{KEY_PARAMETER}={key}")
        click.echo("Press Ctrl+C to stop.")

    serve(server, sock, tls, ready, _say)

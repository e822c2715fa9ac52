"""Which target wins and which token it carries: every precedence rule, headless (no click)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from pydantic import SecretStr

from plantstore_tui.core.config.options import (
    BASE_URL_ENV,
    PROFILE_ENV,
    TOKEN_ENV,
    InvalidAdHocTarget,
    NoTarget,
    TargetOptions,
    UnusableProxy,
    chosen_ad_hoc_url,
)
from plantstore_tui.core.config.profiles import InvalidProfile, Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.tokens import (
    NoToken,
    SourceKind,
    StoredTokens,
    TokenSource,
    clean_token,
    command_token,
    env_source,
    env_token,
)
from plantstore_tui.core.http.hosts import insecure_http_problem
from plantstore_tui.core.http.proxy import InvalidProxy, Proxy, choose_proxy
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.http.tls import tls_context
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url


def resolve_target(
    options: TargetOptions,
    environ: Mapping[str, str],
    *,
    prompt: Callable[[], str] | None = None,
    store: ProfileStore | None = None,
    token_needed: bool = True,
) -> Target:
    """The target that wins, its token resolved and its CA file checked (the client loads it again).
    `token_needed` False: the token is not read at all (a probe that sends none or a wrong one),
    and the target's is empty.

    First to last: `--base-url` (ad hoc), `--profile`, `PLANTSTORE_PROFILE`, `PLANTSTORE_BASE_URL`
    (ad hoc), the default profile; `--ca-bundle` wins over a profile's `ca_bundle`, `--proxy`
    over a profile's `proxy` (which wins over the environment). `prompt` asks for an ad hoc
    target's token (None: nobody to ask). Raises `NoTarget`, `InvalidAdHocTarget` (among them
    `UnusableProxy`), another `ConfigError`, or `CABundleError` for a CA file that cannot be used.
    """
    target = _named_target(options, environ, prompt if token_needed else None, store, token_needed)
    if options.proxy is not None and target.profile is not None:
        proxy = target_proxy(target.base_url, environ, options.proxy, "--proxy")
        target = replace(target, proxy=proxy)
    if options.ca_bundle is not None:
        target = replace(target, ca_bundle=options.ca_bundle)
    if target.ca_bundle is not None:
        # Loaded here so a bad CA file is a configuration problem, said before anything is sent.
        tls_context(target.ca_bundle)
    return target


def _named_target(
    options: TargetOptions,
    environ: Mapping[str, str],
    prompt: Callable[[], str] | None,
    store: ProfileStore | None,
    token_needed: bool,
) -> Target:
    ad_hoc = chosen_ad_hoc_url(options, environ)
    if ad_hoc is not None:
        base_url, on_command_line = ad_hoc
        return ad_hoc_target(
            base_url,
            environ,
            prompt=prompt,
            allow_insecure_http=options.allow_insecure_http,
            on_command_line=on_command_line,
            proxy=options.proxy,
            token_needed=token_needed,
        )
    profile = options.profile or environ.get(PROFILE_ENV)
    if store is None:
        store = ProfileStore()
    chosen = store.get(profile) if profile else default_profile(store)
    return profile_target(chosen, store.tokens, environ, token_needed=token_needed)


def default_profile(store: ProfileStore) -> Profile:
    """The profile used when none is named; `NoTarget` saying what to do when there is none."""
    saved = store.load()
    if saved.error is not None:
        raise saved.error
    if saved.default is not None:
        profile = saved.get(saved.default)
        assert profile is not None  # load() drops a default that names no usable profile
        return profile
    if saved.broken_default is not None:
        # Said as it is: "No target" would send the operator to make a profile they have.
        raise InvalidProfile(
            f"The default profile cannot be used. {saved.broken[saved.broken_default]}"
        )
    if saved.profiles:
        raise NoTarget(
            f"No target: choose a profile with --profile NAME (saved: {', '.join(saved.names)}), "
            "or make one the default with `plantstore-tui profile use NAME`."
        )
    raise NoTarget(
        f"No target: give --base-url URL (or set {BASE_URL_ENV}), or save a profile with "
        "`plantstore-tui profile add NAME --base-url URL`. "
        "To try the product without a deployment, run `plantstore-tui demo`."
    )


def ad_hoc_target(
    base_url: str,
    environ: Mapping[str, str],
    *,
    prompt: Callable[[], str] | None,
    allow_insecure_http: bool,
    on_command_line: bool,
    proxy: str | None = None,
    token_needed: bool = True,
) -> Target:
    """A target without a profile: the URL checked first, then the token from the environment
    or `prompt`; `proxy` ("none" or a URL) wins over the environment's."""
    try:
        normalized = normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        raise InvalidAdHocTarget(str(exc), on_command_line=on_command_line) from None
    through = target_proxy(normalized, environ, proxy, "--proxy")
    insecure = insecure_http_problem(
        normalized, allowed=allow_insecure_http, proxy=None if through is None else through.url
    )
    if insecure is not None:
        raise InvalidAdHocTarget(
            f"Refused: {insecure}. Use https://, or add --allow-insecure-http to allow it for "
            "this run (or save a profile with --allow-insecure-http).",
            on_command_line=on_command_line,
        )
    token, words = _token(lambda: ad_hoc_token(environ, prompt), token_needed)
    return Target(base_url=normalized, token=token, token_source=words, proxy=through)


# The token source of a target whose token was not read (`token_needed` False).
NOT_READ = "nowhere (not needed)"


def _token(
    read: Callable[[], tuple[SecretStr, TokenSource]], needed: bool
) -> tuple[SecretStr, str]:
    if not needed:
        return SecretStr(""), NOT_READ
    token, source = read()
    return token, source.words


def target_proxy(
    base_url: str, environ: Mapping[str, str], setting: str | None, given_by: str
) -> Proxy | None:
    """The proxy sends to `base_url` go through: `setting` (given by `given_by`), else the
    environment's; `UnusableProxy` in words for one that cannot be used."""
    try:
        return choose_proxy(base_url, environ, given=setting, given_by=given_by)
    except InvalidProxy as exc:
        given = setting is not None and given_by == "--proxy"
        raise UnusableProxy(str(exc), on_command_line=given) from None


def ad_hoc_token(
    environ: Mapping[str, str], prompt: Callable[[], str] | None
) -> tuple[SecretStr, TokenSource]:
    """The token of a target without a profile: `PLANTSTORE_TOKEN`, else what `prompt` reads."""
    found = _env_token(TOKEN_ENV, environ)
    if found is not None:
        return found
    if prompt is None:
        raise NoToken(f"No token: set {TOKEN_ENV} (a token is never taken on the command line).")
    source = TokenSource(SourceKind.PROMPT)
    return clean_token(prompt(), source), source


def profile_token(
    profile: Profile, tokens: StoredTokens, environ: Mapping[str, str]
) -> tuple[SecretStr, TokenSource]:
    """The token for `profile` and its source, first to last: `PLANTSTORE_TOKEN` (this run
    only), the profile's `token_env`, its `token_command`, the token plantstore-tui keeps."""
    found = _env_token(TOKEN_ENV, environ)
    if found is None and profile.token_env is not None:
        found = _env_token(profile.token_env, environ)
    if found is not None:
        return found
    if profile.token_command is not None:
        source = TokenSource(SourceKind.COMMAND, profile.token_command)
        return command_token(profile.token_command), source
    if profile.token_env is not None:
        raise NoToken(
            f"Profile {profile.name!r} takes its token from ${profile.token_env}, "
            f"which is not set (or set {TOKEN_ENV})"
        )
    found = tokens.find(profile.name)
    if found is None:
        raise NoToken(
            f"Profile {profile.name!r} has no saved token: save one by editing the "
            f"profile, or set {TOKEN_ENV}"
        )
    return found


def _env_token(variable: str, environ: Mapping[str, str]) -> tuple[SecretStr, TokenSource] | None:
    """The token in `variable` and its source, None if the variable is unset or blank."""
    token = env_token(variable, environ)
    return None if token is None else (token, env_source(variable))


def profile_target(
    profile: Profile,
    tokens: StoredTokens,
    environ: Mapping[str, str],
    *,
    token_needed: bool = True,
) -> Target:
    """Where sends to `profile` go, with its token resolved (unless not `token_needed`)."""
    token, words = _token(lambda: profile_token(profile, tokens, environ), token_needed)
    proxy = target_proxy(profile.base_url, environ, profile.proxy, f"profile {profile.name}")
    return Target(
        base_url=profile.base_url,
        token=token,
        token_source=words,
        profile=profile.name,
        protected=profile.protected,
        verify=profile.verify,
        limits=profile.limits,
        ca_bundle=profile.ca_bundle,
        proxy=proxy,
        ids=profile.id_range,
    )

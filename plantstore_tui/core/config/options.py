"""What a run says about its target (the options, the environment variables' names), and why
an ad hoc target named that way cannot be used: read before the TUI's first frame, so it loads
nothing of the clients or the token sources (the target itself is resolved in targets.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from plantstore_tui.core.config.errors import ConfigError

# The environment variables that choose a target for one run; none of them is ever saved.
BASE_URL_ENV = "PLANTSTORE_BASE_URL"
PROFILE_ENV = "PLANTSTORE_PROFILE"
TOKEN_ENV = "PLANTSTORE_TOKEN"  # noqa: S105 (the name of a variable, not a token)


class NoTarget(ConfigError):
    """Nothing names a target: no base URL, no profile chosen and no default profile."""


class InvalidAdHocTarget(ConfigError):
    """An ad hoc base URL that cannot be used: not a URL, or plain http beyond loopback."""

    def __init__(self, message: str, *, on_command_line: bool) -> None:
        super().__init__(message)
        # Given as --base-url it is a usage mistake; from PLANTSTORE_BASE_URL, configuration.
        self.on_command_line = on_command_line


class UnusableProxy(InvalidAdHocTarget):
    """A proxy setting (--proxy, a profile's, the environment's) that cannot be used."""


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What the command line said about the target; the subcommand's words win over the group's."""

    profile: str | None = None
    base_url: str | None = None
    allow_insecure_http: bool = False
    ca_bundle: str | None = None
    # A proxy URL, or "none" for none; None: the profile's setting, else the environment's.
    # Not in the repr: the URL may hold the proxy's password.
    proxy: str | None = field(default=None, repr=False)

    def merged(
        self,
        profile: str | None,
        base_url: str | None,
        allow_insecure_http: bool = False,
        ca_bundle: str | None = None,
        proxy: str | None = None,
    ) -> TargetOptions:
        """These options overridden by a subcommand's own."""
        allowed = self.allow_insecure_http or allow_insecure_http
        ca_file = ca_bundle or self.ca_bundle
        through = proxy if proxy is not None else self.proxy
        if profile is not None or base_url is not None:
            return TargetOptions(profile, base_url, allowed, ca_file, through)
        return TargetOptions(self.profile, self.base_url, allowed, ca_file, through)


def chosen_ad_hoc_url(
    options: TargetOptions, environ: Mapping[str, str]
) -> tuple[str, bool] | None:
    """The ad hoc base URL the options choose, and whether the command line gave it:
    `--base-url`, else `PLANTSTORE_BASE_URL` when no profile is named; None: a profile."""
    if options.base_url:
        return options.base_url, True
    if not (options.profile or environ.get(PROFILE_ENV)) and environ.get(BASE_URL_ENV):
        return environ[BASE_URL_ENV], False
    return None


def unprompted_ad_hoc_url(options: TargetOptions, environ: Mapping[str, str]) -> str | None:
    """The base URL of the ad hoc target the options name when its token is in the
    environment, so it can be resolved later without asking anything; else None."""
    base_url = options.base_url or environ.get(BASE_URL_ENV)
    profile = options.profile or environ.get(PROFILE_ENV)
    if base_url and environ.get(TOKEN_ENV) and not profile:
        return base_url.strip()
    return None


def named_or_kept(
    options: TargetOptions,
    environ: Mapping[str, str],
    *,
    profile: str | None,
    base_url: str,
) -> TargetOptions:
    """The target of a request sent again (`probe --again`): the one the options or the
    environment name, else where it went (its profile, else its base URL)."""
    if options.profile or options.base_url or environ.get(PROFILE_ENV) or environ.get(BASE_URL_ENV):
        return options
    if profile is not None:
        return replace(options, profile=profile)
    return replace(options, base_url=base_url)

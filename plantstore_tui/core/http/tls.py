"""TLS: the context that verifies a deployment's certificate, and a failed handshake in words."""

from __future__ import annotations

import ssl

import truststore

from plantstore_tui.core.errors import PlantStoreError

# OpenSSL's X509_V_ERR_* codes for the certificate failures a deployment really meets.
_CERT_EXPIRED, _CERT_NOT_YET_VALID = 10, 9
_UNTRUSTED_ISSUER = frozenset({2, 18, 19, 20, 21})
_NAME_MISMATCH = frozenset({62, 64})
_TRUST_ADVICE = (
    "If the deployment uses your organisation's own CA, install that CA in this machine's trust "
    "store, or give its PEM file as the profile's ca_bundle (or --ca-bundle PATH)."
)
# What to do about a CA file `tls_context` refused.
CA_BUNDLE_ADVICE = "Correct the profile's ca_bundle (or --ca-bundle)."


class CABundleError(PlantStoreError, ValueError):
    """A ca_bundle file that cannot be read as PEM CA certificates."""


def tls_context(ca_bundle: str | None = None) -> ssl.SSLContext:
    """The context that verifies a deployment's certificate: the OS trust store, or `ca_bundle`.

    The OS store (through truststore, as pip does) makes a company CA installed on the machine
    just work; a CA file given as `ca_bundle` is trusted instead of it, as curl's --cacert is.
    Raises `CABundleError` for a CA file that cannot be used.
    """
    if ca_bundle is not None:
        try:
            return ssl.create_default_context(cafile=ca_bundle)
        except (OSError, ssl.SSLError, ValueError) as exc:
            # SSLError is an OSError too, but its strerror is OpenSSL's, not words for anyone.
            reason = "no PEM certificate in it"
            if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError) and exc.strerror:
                reason = exc.strerror
            raise CABundleError(
                f"The CA file {ca_bundle} cannot be used ({reason}): it must be a readable "
                "file of PEM CA certificates"
            ) from None

    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def handshake_problem(error: ssl.SSLError) -> tuple[str, str]:
    """A failed TLS handshake in words: what went wrong, and what to try."""
    if isinstance(error, ssl.SSLCertVerificationError):
        return _certificate_problem(error)
    return (
        f"The TLS handshake failed ({error.reason or error.strerror or 'no reason given'})",
        "Check that the server speaks HTTPS on this port, or use an http:// base URL.",
    )


def _certificate_problem(error: ssl.SSLCertVerificationError) -> tuple[str, str]:
    """A refused certificate in words: what was wrong with it, and what to do."""
    detail = error.verify_message or "it could not be verified"
    # Set by the ssl module on a failed handshake; absent on one built by hand.
    code = getattr(error, "verify_code", None)
    if code == _CERT_EXPIRED:
        return (
            "The server's TLS certificate has expired",
            "Whoever runs the deployment must renew its certificate; nothing can be sent safely "
            "until then.",
        )
    if code == _CERT_NOT_YET_VALID:
        return (
            "The server's TLS certificate is not valid yet",
            "Check this machine's clock, or ask whoever runs the deployment.",
        )
    if code in _UNTRUSTED_ISSUER:
        return (
            "The server's TLS certificate is from an issuer this machine does not trust "
            f"({detail})",
            _TRUST_ADVICE,
        )
    if code in _NAME_MISMATCH:
        return (
            f"The server's TLS certificate is for another host name ({detail})",
            "Check the base URL's host: use the name the certificate was issued for.",
        )
    return (
        f"The server's TLS certificate was not accepted: {detail}",
        "Check the base URL's host name and the server's certificate.",
    )

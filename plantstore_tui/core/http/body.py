"""Reading an answer's body: capped, and decompressed here rather than by httpx."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx

from plantstore_tui.core.errors import PlantStoreError


class BodyTooLarge(PlantStoreError):
    """An answer's body past the cap; `size_hint` says how large, in words."""

    def __init__(self, size_hint: str) -> None:
        super().__init__(size_hint)
        self.size_hint = size_hint


class UnsupportedEncoding(PlantStoreError):
    """An answer in a Content-Encoding this client does not decompress."""


def _decoder(encoding: str) -> zlib._Decompress | None:
    # Decompressed here with a cap rather than by httpx, so a small gzip bomb cannot expand
    # into gigabytes in memory.
    match encoding:
        case "" | "identity":
            return None
        case "gzip" | "x-gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        case "deflate":
            return zlib.decompressobj()
        case _:
            raise UnsupportedEncoding(encoding)


async def read_capped(response: httpx.Response, cap: int) -> bytes:
    """The body, decompressed, or `BodyTooLarge` past `cap` bytes; `zlib.error` if it is cut."""
    declared = response.headers.get("Content-Length", "")
    # str.isdigit() alone says yes to "²" and "٣"; a length past 20 digits is not trusted, only
    # kept from reaching int(): the streamed read below is capped anyway.
    if declared.isascii() and declared.isdigit() and len(declared) <= 20 and int(declared) > cap:
        raise BodyTooLarge(f"{int(declared):,} bytes declared")
    encodings = [
        part.strip().lower()
        for part in response.headers.get("Content-Encoding", "").split(",")
        if part.strip()
    ]
    decoders = [_decoder(encoding) for encoding in reversed(encodings)]
    if response.is_stream_consumed:
        # A transport that built the whole body in memory (a mock, an in-process app): httpx has
        # read and decoded it already, so there is nothing left to stream or to decompress.
        if len(response.content) > cap:
            raise BodyTooLarge(f"more than {cap:,} bytes")
        return response.content
    body = bytearray()
    received = False
    raw: AsyncIterator[bytes] = response.aiter_raw()
    async for chunk in raw:
        received = received or bool(chunk)
        data = chunk
        for decoder in decoders:
            if decoder is not None:
                data = decoder.decompress(data, cap + 1 - len(body))
                if decoder.unconsumed_tail:
                    raise BodyTooLarge(f"more than {cap:,} bytes once decompressed")
        body += data
        if len(body) > cap:
            raise BodyTooLarge(f"more than {cap:,} bytes")
    # A compressed stream cut short decompresses to a plausible prefix without any error.
    if received and not all(decoder.eof for decoder in decoders if decoder is not None):
        raise zlib.error("the compressed body ends early")
    return bytes(body)

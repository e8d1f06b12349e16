"""Reading a response body under a byte cap that holds after decompression.

The body is read raw and inflated here in bounded steps, so the cap applies to the
decompressed size: a gzip bomb stops at the cap. (httpx's own decoder inflates each
network chunk whole: ~1 000 times its size, hundreds of MB for one read.)
"""

from __future__ import annotations

import zlib

import httpx

from weblens.errors import TooLargeError, UnsupportedContentError, UpstreamError
from weblens.progress import report

__all__ = ["read_answer", "read_capped"]

_GZIP_OR_ZLIB = 47  # zlib wbits: accept a gzip or a zlib header


def _too_large(url: httpx.URL, cap: int, setting: str) -> TooLargeError:
    named = f" ({setting})" if setting else ""
    return TooLargeError(
        f"the response from {url.host} is larger than the {cap:,} byte cap{named}; nothing was kept",
        details={"max_bytes": cap},
    )


async def read_capped(
    response: httpx.Response, cap: int, *, truncate: bool = False, setting: str = "", progress: bool = True
) -> bytes:
    """The decompressed body; past `cap` bytes TooLargeError (naming `setting`, the cap's
    setting), or with `truncate` its first `cap` bytes. `progress`: report bytes received."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        raise UnsupportedContentError(f"{response.url.host} sent an unsupported content encoding: {encoding}")
    declared = response.headers.get("content-length", "")
    if not truncate and encoding in ("identity", "") and declared.isdigit() and int(declared) > cap:
        raise _too_large(response.url, cap, setting)
    decoder = zlib.decompressobj(_GZIP_OR_ZLIB) if encoding not in ("identity", "") else None
    parts: list[bytes] = []
    size = 0
    total = float(declared) if declared.isdigit() and encoding in ("identity", "") else None
    try:
        async for chunk in response.aiter_raw():
            while chunk:
                if decoder is None:
                    out, chunk = chunk, b""
                else:
                    out = decoder.decompress(chunk, cap - size + 1)
                    chunk = decoder.unconsumed_tail
                size += len(out)
                if size > cap:
                    if not truncate:
                        raise _too_large(response.url, cap, setting)
                    parts.append(out[: len(out) - (size - cap)])
                    return b"".join(parts)
                parts.append(out)
            if progress:
                report(f"{response.url.host}: {size:,} bytes received", done=size, total=total)
        if decoder is not None:
            parts.append(decoder.flush())
    except zlib.error as exc:
        raise UpstreamError(f"{response.url.host} sent a body that could not be decompressed: {exc}") from None
    return b"".join(parts)


async def read_answer(response: httpx.Response, cap: int, upstream: str, what: str) -> bytes:
    """An API's answer (search, weather, Firecrawl), decompressed under `cap`: past it an UpstreamError
    saying `upstream` sent more than that, then `what` of it (not a retryable failure: it would again)."""
    try:
        return await read_capped(response, cap, progress=False)
    except TooLargeError:
        raise UpstreamError(
            f"{upstream} sent more than {cap // (1024 * 1024)} MB; {what}", status=response.status_code, retryable=False
        ) from None

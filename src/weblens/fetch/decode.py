"""Bytes to text: the charset from the headers, a BOM, the page's meta tag, or detection.

Extractors get a decoded `str`, never bytes: lxml guesses Latin-1 for UTF-8 pages that
declare no charset, and a Windows-1251 or GBK page must read as itself.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

__all__ = ["charset_from_content_type", "decode_body", "utf16_codec"]

_META_WINDOW = 4096
_DETECT_WINDOW = 64 * 1024
# Possessive spaces and a tag scan that stops at the next `<`: linear on hostile input (`charset=` and
# 20 000 spaces took 16 s with plain `\s*\s*`, each retried against the other).
_META_CHARSET = re.compile(rb"""<meta\b[^<>]*?charset\s*+=\s*+["']?+\s*+([A-Za-z0-9_.:-]++)""", re.I)
# An XML declaration's encoding (XHTML, an EPUB's chapters): `<?xml version="1.0" encoding="ISO-8859-1"?>`.
_XML_ENCODING = re.compile(rb"""\s*<\?xml\b[^<>]*?encoding\s*+=\s*+["']([A-Za-z0-9_.:-]++)""")
_CT_CHARSET = re.compile(r"""charset\s*+=\s*+["']?+\s*+([A-Za-z0-9_.:-]++)""", re.I)
# Browsers read these labels as their supersets (WHATWG Encoding Standard).
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "latin1": "cp1252", "ascii": "cp1252"}
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_UTF16_WINDOW = 1024  # bytes looked at for UTF-16 without a BOM: 512 characters
# What browsers decode (the WHATWG Encoding Standard's encodings, as Python names them, with the Windows supersets
# browsers use for Shift_JIS, EUC-KR and TIS-620). A page in another (a DOS or old Mac code page) would show garbled.
_WEB_ENCODINGS = frozenset(
    codecs.lookup(label).name
    for label in (
        "utf-8", "utf-16-le", "utf-16-be", "cp866", "iso8859-2", "iso8859-3", "iso8859-4", "iso8859-5", "iso8859-6",
        "iso8859-7", "iso8859-8", "iso8859-10", "iso8859-13", "iso8859-14", "iso8859-15", "iso8859-16", "koi8-r",
        "koi8-u", "mac-roman", "mac-cyrillic", "cp874", "tis-620", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254",
        "cp1255", "cp1256", "cp1257", "cp1258", "gbk", "gb18030", "big5", "big5hkscs", "euc-jp", "iso2022-jp",
        "shift_jis", "cp932", "euc-kr", "cp949",
    )
)  # fmt: skip


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = label.strip().lower()
    label = _SUPERSETS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def charset_from_content_type(content_type: str) -> str | None:
    match = _CT_CHARSET.search(content_type or "")
    return _codec(match.group(1)) if match else None


def _try(body: bytes, codec: str | None) -> str | None:
    if codec is None:
        return None
    try:
        return body.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def utf16_codec(body: bytes) -> str | None:
    """The UTF-16 codec a body is text in, by its BOM or, without one, by its NULs: text mostly in Latin letters
    has a NUL as every other byte (each character's high byte) and none between them, where binary has NULs
    anywhere and other text none. None for anything else."""
    if body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = body[:_UTF16_WINDOW]
    sample = sample[: len(sample) & ~1]  # whole characters
    for codec, high, low in (("utf-16-le", sample[1::2], sample[0::2]), ("utf-16-be", sample[0::2], sample[1::2])):
        if high and 0 not in low and high.count(0) * 2 >= len(high):
            return codec
    return None


def _detected(sample: bytes) -> str | None:
    """charset_normalizer's guess, made a browser's. Windows-1252 where it reads as well as the guess: Western text
    without a declared charset fits Windows-1250 and -1257 just as well, and the detector's first pick among equals
    was one of those (`Señor` as `Seńor`, `€3` as `Ä3`). A guess no browser decodes (a short Western text read as
    DOS cp857: `Se±or Garcÿa`) gives way to Windows-1252, browsers' default for such a page, when the detector
    lists it or lists no browser's encoding at all; else to the first browser's encoding it lists."""
    matches = charset_normalizer.from_bytes(sample)
    best = matches.best()
    if best is None:
        return None
    for match in matches:
        if match.encoding == "cp1252" and match.chaos <= best.chaos and match.coherence >= best.coherence:
            return "cp1252"
    guessed = _codec(best.encoding)
    if guessed in _WEB_ENCODINGS:
        return guessed
    web = [codec for match in matches if (codec := _codec(match.encoding)) in _WEB_ENCODINGS]
    if "cp1252" in web or (not web and _try(sample, "cp1252") is not None):
        return "cp1252"
    return web[0] if web else guessed


def decode_body(body: bytes, content_type: str = "", *, html: bool = False) -> tuple[str, str]:
    """(text, charset used). Never fails: undecodable bytes become U+FFFD as a last resort."""
    for bom, bom_codec in _BOMS:
        if body.startswith(bom):
            return body.decode(bom_codec, errors="replace"), bom_codec
    declared = charset_from_content_type(content_type)
    meta = None
    if html:
        match = _META_CHARSET.search(body[:_META_WINDOW]) or _XML_ENCODING.match(body[:_META_WINDOW])
        meta = _codec(match.group(1).decode("ascii", "ignore")) if match else None
        if meta is not None and meta.startswith(("utf-16", "utf-32")):
            meta = "utf-8"  # a meta tag read as ASCII is not in UTF-16: browsers take it as UTF-8 (WHATWG)
    # UTF-16 without a BOM (Excel's "Unicode text") is valid UTF-8 too, a NUL after each letter
    unmarked = None if declared or meta else utf16_codec(body)
    for codec in (declared, meta, unmarked, "utf-8"):
        text = _try(body, codec)
        if text is not None and codec is not None:
            return text, codec
    guessed = _detected(body[:_DETECT_WINDOW])
    fallback = guessed or declared or meta or "utf-8"
    return body.decode(fallback, errors="replace"), fallback

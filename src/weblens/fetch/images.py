"""Images of text a link points to — PNG, JPEG, WebP, GIF, TIFF, BMP — read by OCR (the `ocr` extra).

Recognised by content type or, under a generic or mislabelled image type, by magic bytes. SVG
is not here: it is XML, and is read as text. Decoding is bounded before a pixel is inflated:
Pillow reads the header, and an image that would decode to more than `MAX_IMAGE_PIXELS` (each
frame) is refused as `too_large` — a small file that would decode to gigabytes (a decompression
bomb) never reaches the decoder. Pillow itself refuses only above 179 megapixels and merely
warns from 89. A JPEG is decoded at a reduced scale when that suffices (its DCT can), so a
48-megapixel photo of a page decodes to 12. Then the same OCR as
a scanned PDF's pages (`weblens.fetch.ocr`): scaled to `MAX_OCR_PIXELS`, one thread, in the
worker under its extraction deadline and memory limit. A multi-page TIFF (a fax, a scan) is
read page by page, at most `MAX_OCR_PAGES`; an animation only by its first frame.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from weblens.errors import TooLargeError, UnsupportedContentError, WeblensError
from weblens.fetch.ocr import MAX_OCR_PAGES, MAX_OCR_PIXELS, OcrBudget, ocr_missing

__all__ = ["IMAGE_TYPES", "MAX_IMAGE_PIXELS", "ImageText", "image_kind", "image_to_text"]

MAX_IMAGE_PIXELS = 40_000_000
"""The most pixels an image (each frame) may declare to be decoded: 40 megapixels, e.g. 8000 x
5000, beyond any screenshot or scanned page; at 4 bytes a pixel, 160 MB in the worker."""

IMAGE_TYPES: dict[str, str] = {
    "image/png": "png",
    "image/x-png": "png",
    "image/apng": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/pjpeg": "jpeg",
    "image/webp": "webp",
    "image/gif": "gif",
    "image/tiff": "tiff",
    "image/tiff-fx": "tiff",
    "image/bmp": "bmp",
    "image/x-bmp": "bmp",
    "image/x-ms-bmp": "bmp",
}
"""Media type -> the image format weblens reads it as."""
_PILLOW_FORMATS = {"png": "PNG", "jpeg": "JPEG", "webp": "WEBP", "gif": "GIF", "tiff": "TIFF", "bmp": "BMP"}
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
)
_BMP_HEADER_SIZES = frozenset({12, 40, 52, 56, 64, 108, 124})
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
_EIGHT_BIT_MODES = frozenset({"1", "L", "LA", "P", "PA", "RGB", "RGBA", "RGBX", "CMYK", "YCbCr"})
_MAX_REASON_CHARS = 200  # of Pillow's own message in ours: enough to say what broke


class ImageText(NamedTuple):
    text: str
    note: str


def _magic(body: bytes) -> str | None:
    for prefix, kind in _MAGIC:
        if body.startswith(prefix):
            return kind
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "webp"
    if body[:2] == b"BM" and int.from_bytes(body[14:18], "little") in _BMP_HEADER_SIZES:
        return "bmp"
    return None


def image_kind(body: bytes, media_type: str) -> str | None:
    """The image format of a body — by its magic bytes under an image or generic type, or under any
    type when the body is binary (an image served as text/plain or text/csv), else by its image
    type — or None when it is no image weblens reads."""
    imagelike = media_type in IMAGE_TYPES or media_type in _GENERIC_TYPES or media_type.startswith("image/")
    magic = _magic(body)
    if magic is not None and (imagelike or b"\x00" in body[:64]):  # text may begin "GIF89a"; no text holds NUL
        return magic
    return IMAGE_TYPES.get(media_type)


@contextmanager
def _reading(kind: str, media_type: str) -> Iterator[None]:
    """Pillow's errors for a damaged file as one typed error: they have no common base (a TIFF with a few header
    bytes changed raised TypeError). Our own errors, and the worker's memory limit, pass as they are."""
    from PIL import Image, UnidentifiedImageError

    try:
        yield
    except (WeblensError, MemoryError):
        raise
    except Image.DecompressionBombError as exc:
        raise TooLargeError(f"the image was not decoded: {exc} (a decompression bomb?)") from None
    except UnidentifiedImageError:  # its message names the in-memory buffer it was given
        raise _unreadable(kind, media_type, "Pillow does not recognise it (a damaged file?)") from None
    except Exception as exc:
        said = str(exc)[:_MAX_REASON_CHARS]
        raise _unreadable(kind, media_type, f"it looks damaged ({type(exc).__name__}: {said})") from None


def _unreadable(kind: str, media_type: str, reason: str) -> UnsupportedContentError:
    return UnsupportedContentError(
        f"the body ({media_type or 'untyped'}) could not be read as a {kind.upper()} image: {reason}",
        details={"type": media_type, "format": kind},
    )


def _check_size(image: Any, download: int) -> None:
    width, height = image.size
    if width * height > MAX_IMAGE_PIXELS:
        raise TooLargeError(
            f"the image is {width:,} x {height:,} pixels ({width * height / 1e6:,.0f} megapixels from a "
            f"{download:,}-byte file); at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels are decoded, so it was "
            "not opened (a decompression bomb?)",
            details={"width": width, "height": height, "limit_pixels": MAX_IMAGE_PIXELS},
        )


def _eight_bit(image: Any) -> Any:
    """16-bit, 32-bit and float images stretched to 8-bit grey (Pillow's convert would clip them white)."""
    if image.mode in _EIGHT_BIT_MODES:
        return image
    import numpy
    from PIL import Image

    values = numpy.asarray(image, dtype=numpy.float32)
    low, high = float(values.min()), float(values.max())
    scaled = (values - low) * (255.0 / (high - low)) if high > low else numpy.zeros_like(values)
    return Image.fromarray(scaled.astype(numpy.uint8), "L")


def _frame(image: Any, download: int, budget: OcrBudget) -> str:
    """The OCR text of the image's current frame, decoded as small as OCR needs it, if that is
    at most `MAX_IMAGE_PIXELS`."""
    from PIL import ImageOps

    width, height = image.size
    if image.format == "JPEG" and width * height > MAX_OCR_PIXELS:
        scale = (MAX_OCR_PIXELS / (width * height)) ** 0.5
        image.draft("RGB", (int(width * scale), int(height * scale)))  # DCT scaling: 1/2, 1/4 or 1/8
    _check_size(image, download)  # the size it will decode to (each page of a TIFF declares its own)
    image.load()
    ImageOps.exif_transpose(image, in_place=True)  # a phone's photo of a page, upright (no copy of the pixels)
    return budget.read(_eight_bit(image))


def image_to_text(body: bytes, kind: str, media_type: str = "", budget: OcrBudget | None = None) -> ImageText:
    """The text in an image by OCR, with a note saying so. Without OCR here, or unreadable →
    UnsupportedContentError; larger than `MAX_IMAGE_PIXELS` → TooLargeError."""
    missing = ocr_missing()
    if missing is not None:
        raise UnsupportedContentError(
            f"reading the text in a {kind.upper()} image needs OCR: {missing}", details={"type": media_type}
        )
    texts = []
    budget = budget or OcrBudget()
    with warnings.catch_warnings(), _reading(kind, media_type):
        warnings.simplefilter("ignore")  # Pillow warns of oddities it reads past (corrupt EXIF, ...); bombs: our bound
        from PIL import Image

        image = Image.open(io.BytesIO(body), formats=list(_PILLOW_FORMATS.values()))  # the header; nothing decoded
        frames = getattr(image, "n_frames", 1) if kind == "tiff" else 1
        for number in range(min(frames, MAX_OCR_PAGES)):
            if not budget.allows():
                break
            image.seek(number)
            texts.append(_frame(image, len(body), budget))
    if frames > 1:
        from weblens.fetch.pdf import page_sections

        text = page_sections(texts)
    else:
        text = texts[0]
    note = f"The text was read by OCR (rapidocr) from a {kind.upper()} image: expect misread words and spacing."
    if budget.stopped:
        note += f" OCR stopped after {len(texts)} of its {frames} pages, to finish within fetch.extract_timeout."
    elif frames > MAX_OCR_PAGES:
        note += f" Only the first {MAX_OCR_PAGES} of its {frames} pages were read."
    if not any(texts):
        note = f"OCR (rapidocr) found no text in the {kind.upper()} image."
    return ImageText(text, note)

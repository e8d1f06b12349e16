"""Text in images by OCR (the `ocr` extra: rapidocr on onnxruntime): scanned PDFs' pages, and
images a link points to (`weblens.fetch.images`).

Its detection and recognition models ship inside its PyPI wheel (PP-OCRv6 small, about 31 MB), so
nothing is downloaded at run time. Used only where there is no text layer to read; bounded:
at most `MAX_OCR_PAGES` pages and `MAX_IMAGES_PER_PAGE` images a page, each scaled down to
`MAX_OCR_PIXELS`, all within the worker's extraction deadline (onnxruntime runs on one
thread, so the deadline's CPU time is the page's wall time). The engine loads once per worker.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from weblens.errors import UnsupportedContentError
from weblens.fetch.ocr_spacing import spaced_line

__all__ = [
    "MAX_IMAGES_PER_PAGE",
    "MAX_OCR_PAGES",
    "MAX_OCR_PIXELS",
    "OCR_INSTALL",
    "OCR_NOTE",
    "ocr_available",
    "ocr_engine_loaded",
    "ocr_missing",
    "ocr_pdf_pages",
    "read_image",
]

OCR_INSTALL = "pip install 'weblens[ocr]'"
MAX_OCR_PAGES = 20
OCR_TIME_SHARE = 0.8
"""The share of the extraction's time limit OCR may fill before it stops starting pages."""
MAX_IMAGES_PER_PAGE = 4
MAX_OCR_PIXELS = 4_000_000
"""An image larger than this (about 2000 x 2000) is scaled down before it is read."""
OCR_NOTE = "The text was read by OCR (rapidocr) from images: expect misread words and spacing."


def ocr_missing() -> str | None:
    """None when the OCR engine loads here; else what to do about it (install the extra, or why its
    native libraries do not load)."""
    try:
        ocr_engine_loaded()
    except ModuleNotFoundError:
        return f"install the ocr extra: {OCR_INSTALL}"
    except ImportError as exc:  # installed, but a native library does not load
        return f"the OCR engine is installed but does not load ({exc})"
    return None


def ocr_available() -> bool:
    """Whether the OCR engine loads here (installed, and its native libraries present)."""
    return ocr_missing() is None


@functools.cache
def ocr_engine_loaded() -> Any:
    """The OCR engine, loaded once per process (about half a second); ImportError without the extra.
    onnxruntime is installed beside rapidocr by the extra: without it rapidocr would not load a model."""
    import onnxruntime  # noqa: F401  (rapidocr imports its engine only when asked; fail here, clearly)
    from rapidocr import RapidOCR

    return RapidOCR(
        params={
            "Global.log_level": "error",
            # detection at the image's own size (at most 2000 px a side): its default enlarges the short
            # side to 736 px, which made a two-line banner 7 times the pixels and the read 5 times slower
            "Det.limit_type": "max",
            "Det.limit_side_len": 2000,
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
    )


def read_image(image: Any) -> str:
    """The lines OCR finds in a PIL image, top to bottom; scaled down to `MAX_OCR_PIXELS` first,
    and a transparent background made white (text drawn on transparency is often black on black)."""
    import numpy
    from PIL import Image

    width, height = image.size
    if width * height > MAX_OCR_PIXELS:
        scale = (MAX_OCR_PIXELS / (width * height)) ** 0.5
        size = (max(1, int(width * scale)), max(1, int(height * scale)))
        image = image.convert("RGBA" if _transparent(image) else "RGB") if image.mode in ("P", "1") else image
        image = image.resize(size)
    if _transparent(image):
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, rgba)
    rgb = image.convert("RGB")
    try:
        found = ocr_engine_loaded()(numpy.asarray(rgb), return_word_box=True, return_single_char_box=True)
    except MemoryError:
        raise
    except Exception as exc:  # the engine's own errors (an image too thin to scale, ...) name no common base
        said = [line for line in str(exc).splitlines() if line.strip()]  # onnxruntime's carry a traceback
        last = said[-1].strip()[:300] if said else type(exc).__name__
        if "bad_alloc" in last or "Failed to allocate" in last:  # onnxruntime ran out of the worker's memory
            raise MemoryError(last) from None
        raise UnsupportedContentError(f"OCR could not read the image: {last}") from None
    gray = numpy.asarray(rgb.convert("L"))
    texts = found.txts or ()
    if not texts:
        return ""
    boxes, letters = found.boxes, found.word_results or ()
    if len(letters) != len(texts):  # no letter boxes to put spaces back from
        letters = ((),) * len(texts)
    lines = (spaced_line(gray, box, str(text), row) for box, text, row in zip(boxes, texts, letters, strict=False))
    return "\n".join(line for line in lines if line.strip())


def _transparent(image: Any) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)


class OcrBudget:
    """Whether another page may be read by OCR: not one that, at the last page's pace, would end past a share of
    the extraction's time limit (a full-page scan takes seconds: three of them passed the 10 s default, and the
    worker was stopped with none of the document's text). Without a limit, every page may."""

    def __init__(self, seconds: float | None = None) -> None:
        self.until = None if seconds is None else time.monotonic() + OCR_TIME_SHARE * seconds
        self.last = 0.0
        self.stopped = False

    def allows(self) -> bool:
        if self.until is not None and time.monotonic() + self.last > self.until:
            self.stopped = True
        return not self.stopped

    def read(self, image: Any) -> str:
        started = time.monotonic()
        text = read_image(image)
        self.last = max(self.last, time.monotonic() - started)
        return text


def ocr_pdf_pages(reader: Any, numbers: list[int] | None = None, budget: OcrBudget | None = None) -> list[str]:
    """The OCR text of each of a pypdf reader's first `MAX_OCR_PAGES` pages (or of those of `numbers`, counted
    from 0), from their images; fewer when `budget` stops it first."""
    budget = budget or OcrBudget()
    chosen = list(range(len(reader.pages))) if numbers is None else numbers
    texts = []
    for page in (reader.pages[number] for number in chosen[:MAX_OCR_PAGES]):
        if not budget.allows():
            break
        lines = []
        for number, picture in enumerate(page.images):
            if number >= MAX_IMAGES_PER_PAGE:
                break
            lines.append(budget.read(picture.image))
        texts.append("\n".join(line for line in lines if line))
    return texts

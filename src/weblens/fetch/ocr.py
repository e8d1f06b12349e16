"""Text from scanned PDFs (pages that are images), by OCR (the `ocr` extra: rapidocr-onnxruntime).

Its detection and recognition models ship inside its PyPI wheel (PP-OCRv4, about 16 MB), so
nothing is downloaded at run time. Used only where there is no text layer to read; bounded:
at most `MAX_OCR_PAGES` pages and `MAX_IMAGES_PER_PAGE` images a page, each scaled down to
`MAX_OCR_PIXELS`, all within the worker's extraction deadline (onnxruntime runs on one
thread, so the deadline's CPU time is the page's wall time). The engine loads once per worker.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = [
    "MAX_IMAGES_PER_PAGE",
    "MAX_OCR_PAGES",
    "MAX_OCR_PIXELS",
    "OCR_INSTALL",
    "OCR_NOTE",
    "ocr_available",
    "ocr_engine_loaded",
    "ocr_pdf_pages",
]

OCR_INSTALL = "pip install 'weblens[ocr]'"
MAX_OCR_PAGES = 20
MAX_IMAGES_PER_PAGE = 4
MAX_OCR_PIXELS = 4_000_000
"""An image larger than this (about 2000 x 2000) is scaled down before it is read."""
OCR_NOTE = "The text was read by OCR (rapidocr) from images: expect misread words and lost spacing."


def ocr_available() -> bool:
    """Whether the OCR engine loads here (installed, and its native libraries present)."""
    try:
        ocr_engine_loaded()
    except ImportError:  # not installed, or OpenCV without the system's libGL
        return False
    return True


@functools.cache
def ocr_engine_loaded() -> Any:
    """The OCR engine, loaded once per process (about half a second); ImportError without the extra."""
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


def _read(image: Any) -> str:
    """The lines OCR finds in a PIL image, top to bottom."""
    import numpy

    width, height = image.size
    if width * height > MAX_OCR_PIXELS:
        scale = (MAX_OCR_PIXELS / (width * height)) ** 0.5
        image = image.resize((max(1, int(width * scale)), max(1, int(height * scale))))
    found, _ = ocr_engine_loaded()(numpy.asarray(image.convert("RGB")))
    return "\n".join(str(line[1]) for line in found or [] if str(line[1]).strip())


def ocr_pdf_pages(reader: Any) -> list[str]:
    """The OCR text of each of a pypdf reader's first `MAX_OCR_PAGES` pages, from their images."""
    texts = []
    for page in list(reader.pages)[:MAX_OCR_PAGES]:
        lines = []
        for number, picture in enumerate(page.images):
            if number >= MAX_IMAGES_PER_PAGE:
                break
            lines.append(_read(picture.image))
        texts.append("\n".join(line for line in lines if line))
    return texts

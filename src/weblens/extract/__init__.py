"""Typed data from pages: markup first, the model for the rest, every value checked against the page."""

from weblens.extract.extractor import (
    MAX_URLS,
    Extraction,
    FieldResult,
    SlotError,
    extract_many,
    extract_page,
    model_from,
)
from weblens.extract.verify import Evidence

__all__ = ["MAX_URLS", "Evidence", "Extraction", "FieldResult", "SlotError", "extract_many", "extract_page",
           "model_from"]  # fmt: skip

"""Adversarial pages for hardening tests: floods that once stalled parsers, and a page whose
reading outlasts any short deadline.

    with FakeServer() as server:
        for path, reply in hostile_pages().items():
            server.route("GET", path, reply)
"""

from __future__ import annotations

from weblens.testing.pages import pdf_file
from weblens.testing.server import Reply

__all__ = ["SLOW_PDF_PATH", "hostile_pages", "slow_pdf"]

_MIB = 1024 * 1024
SLOW_PDF_PATH = "/slow.pdf"


def slow_pdf(text_operators: int = 200_000) -> bytes:
    """A valid one-page PDF whose page draws `text_operators` words one by one: pypdf (pure
    Python) needs tens of seconds for 200 000 of them (3 MB), so it outlasts a short deadline."""
    stream = b"BT /F1 12 Tf 72 720 Td " + b"(word) Tj 1 0 Td " * text_operators + b"ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    return pdf_file(objects)


def hostile_pages() -> dict[str, Reply]:
    """Path -> reply: comment floods, unclosed tags, 10 MiB of nesting, attribute floods, and
    `SLOW_PDF_PATH` (a page whose text takes longer to read than a short deadline)."""
    html = "text/html; charset=utf-8"
    attributes = " ".join(f"a{i}=x" for i in range(200_000))
    return {
        "/comment-flood": Reply(body="<!--" * 250_000, content_type=html),
        "/unclosed-tags": Reply(body="<div>" * 200_000 + "text", content_type=html),
        "/nesting-10mib": Reply(body="<div><span>" * (10 * _MIB // 11), content_type=html),
        "/attribute-flood": Reply(body=f"<html><body><div {attributes}>hi</div></body></html>", content_type=html),
        "/bare-less-thans": Reply(body="<" * 1_000_000, content_type=html),
        SLOW_PDF_PATH: Reply(body=slow_pdf(), content_type="application/pdf"),
    }

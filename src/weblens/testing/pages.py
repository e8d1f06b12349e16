"""A web of test pages on a `FakeServer`, and a Firecrawl fake, for fetch tests and benchmarks.

    with PageServer() as pages:
        settings = Settings(fetch={"allowed_hosts": [pages.host]})
        page = await weblens.fetch(pages.url("/article"), settings=settings)

Pages: an article, plain text, markdown, JSON, a PDF, Windows-1251 and GBK pages, an
empty JavaScript shell, an image, 404/500, redirects (a chain, a loop, one to a cloud
metadata address), a slow drip, an oversized body and a gzip bomb; the long pages of
`weblens.testing.long_pages` (a forum thread, a docs page, a product page, a listing);
and, hand-written in `fixtures/page_*.html`, a forum thread, a documentation page, a
Next.js shell whose content is in `__NEXT_DATA__`, a Cloudflare-style bot check and a
captcha wall.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterator
from importlib import resources
from typing import Any

from weblens.testing.long_pages import LONG_PAGES
from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = ["ARTICLE_PARAGRAPHS", "FirecrawlFake", "PageServer", "article_html", "gzip_bomb", "make_pdf", "page_fixture"]

ARTICLE_PARAGRAPHS = [
    f"Paragraph {i}: the lighthouse keeper of Skerryvore logged the weather every hour, "
    f"noting wind, swell and visibility in a ledger that survived {i + 1} winters of salt air."
    for i in range(12)
]
_MIB = 1024 * 1024
# path on the PageServer -> hand-written page in fixtures/
_FIXTURE_PAGES = {
    "/forum-thread": "page_forum_thread.html",
    "/docs": "page_docs.html",
    "/next-shell": "page_next_shell.html",
    "/bot-check": "page_bot_check.html",
    "/captcha-wall": "page_captcha_wall.html",
    "/listing": "page_listing.html",
}


def page_fixture(name: str) -> bytes:
    """A hand-written page from `weblens/testing/fixtures/` (e.g. `page_forum_thread.html`)."""
    return (resources.files("weblens.testing") / "fixtures" / name).read_bytes()


def article_html(title: str = "The Skerryvore Ledger", paragraphs: list[str] | None = None) -> str:
    """A news-like page: navigation, header, article with byline and date, footer."""
    body = "".join(f"<p>{p}</p>" for p in (paragraphs or ARTICLE_PARAGRAPHS))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{title}</title><meta name='author' content='Ada Stevenson'>"
        "<meta property='article:published_time' content='2026-03-01T09:00:00Z'>"
        "<script>var tracking = 'do not show';</script></head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/about'>About</a></nav>"
        f"<main><article><h1>{title}</h1>{body}"
        "<table><tr><th>Year</th><th>Storms</th></tr><tr><td>1844</td><td>31</td></tr></table>"
        "</article></main><footer>Copyright Lighthouse Gazette</footer></body></html>"
    )


def make_pdf(pages: list[str], title: str = "Test PDF") -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for text in pages:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content_ref = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>" % content_ref
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    objects.append(f"<< /Title ({title}) >>".encode("latin-1"))
    return pdf_file(objects, info=len(objects))


def pdf_file(objects: list[bytes], *, info: int | None = None) -> bytes:
    """PDF objects (numbered from 1; 1 is the catalog) with their cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    info_ref = b" /Info %d 0 R" % info if info is not None else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info_ref, xref)
    return bytes(out)


@functools.cache
def gzip_bomb(decompressed_bytes: int) -> bytes:
    """A gzip body of zeros that inflates to `decompressed_bytes` (about 1000:1)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\0" * _MIB
    parts = [compressor.compress(block) for _ in range(decompressed_bytes // _MIB)]
    parts.append(compressor.flush())
    return b"".join(parts)


def _zeros(total: int) -> Iterator[bytes]:
    block = b"a" * (64 * 1024)
    for _ in range(total // len(block)):
        yield block


class PageServer(FakeServer):
    """A FakeServer preloaded with the pages above; add your own with `route`."""

    def __init__(self, *, latency_s: float = 0.0, oversized_bytes: int = 11 * _MIB) -> None:
        super().__init__(latency_s=latency_s)
        html = "text/html; charset=utf-8"
        self.route("GET", "/article", Reply(body=article_html(), content_type=html))
        self.route("GET", "/plain.txt", Reply(body="line one\n\nline two <b>not html</b>\n"))
        self.route("GET", "/readme.md", Reply(body="# Title\n\n*emphasis* kept as is\n", content_type="text/markdown"))
        self.route("GET", "/data.json", Reply(body={"name": "weblens", "tags": ["fetch", "safe"]}))
        self.route("GET", "/doc.pdf", Reply(body=make_pdf(["First page text", "Second page text"]),
                                            content_type="application/pdf"))  # fmt: skip
        russian = article_html("Новости", [f"Абзац {i}: съешь же ещё этих мягких французских булок." * 3
                                           for i in range(8)])  # fmt: skip
        self.route("GET", "/cp1251", Reply(body=russian.replace("utf-8", "windows-1251").encode("cp1251"),
                                           content_type="text/html; charset=windows-1251"))  # fmt: skip
        sentence = "敏捷的棕色狐狸跳过了懒狗，然后继续在森林里奔跑。"
        chinese = article_html("新闻", [f"第{i}段：{sentence * 4}" for i in range(8)])
        self.route("GET", "/gbk", Reply(body=chinese.replace("utf-8", "gbk").encode("gbk"), content_type="text/html"))
        self.route("GET", "/spa", Reply(body="<!DOCTYPE html><html><head><title>App</title></head><body>"
                                        "<div id='root'></div><script src='/app.js'></script></body></html>",
                                        content_type=html))  # fmt: skip
        self.route("GET", "/image.png", Reply(body=b"\x89PNG\r\n\x1a\n" + b"\0" * 64, content_type="image/png"))
        self.route("GET", "/missing", Reply(status=404, body="<h1>Not found</h1>", content_type=html))
        self.route("GET", "/broken", Reply(status=500, body="oops", content_type="text/plain"))
        self.route("GET", "/slow", Reply(body=article_html(), content_type=html, drip=(64, 0.2)))
        self.route("GET", "/huge", Reply(chunks=lambda: _zeros(oversized_bytes), content_type="text/plain"))
        self.route("GET", "/bomb", Reply(body=gzip_bomb(64 * _MIB), content_type="text/plain",
                                         headers={"Content-Encoding": "gzip"}))  # fmt: skip
        self.route("GET", "/gzipped", Reply(body=article_html(), content_type=html, gzip=True))
        self.route("GET", "/redirect", self._redirect)
        self.route("GET", "/to-metadata", Reply(status=302, headers={"Location": "http://169.254.169.254/latest/"}))
        self.route("GET", "/loop", Reply(status=302, headers={"Location": "/loop"}))
        for long_page in LONG_PAGES:
            self.route("GET", long_page.path, Reply(body=long_page.html, content_type=html))
        for path, name in _FIXTURE_PAGES.items():
            self.route("GET", path, Reply(body=page_fixture(name), content_type=html))

    @staticmethod
    def _redirect(request: RecordedRequest) -> Reply:
        """`/redirect?n=3` redirects three times, then lands on the article; `?to=URL` goes there."""
        if "to" in request.query:
            return Reply(status=302, headers={"Location": request.query["to"]})
        left = int(request.query.get("n", "1"))
        target = "/article" if left <= 1 else f"/redirect?n={left - 1}"
        return Reply(status=302, headers={"Location": target})

    @property
    def host(self) -> str:
        """`127.0.0.1:PORT`, for `fetch.allowed_hosts`."""
        return f"127.0.0.1:{self.port}"


class FirecrawlFake(FakeServer):
    """Firecrawl's `/v1/scrape` and `/v2/scrape`: a success built from the request; `queue` errors."""

    def __init__(self) -> None:
        super().__init__()
        for path in ("/v1/scrape", "/v2/scrape"):
            self.route("POST", path, self._scrape)

    @staticmethod
    def _scrape(request: RecordedRequest) -> Reply:
        if request.headers.get("authorization", "") in ("", "Bearer "):
            return Reply(status=401, body={"success": False, "error": "Unauthorized: Token missing"})
        payload: dict[str, Any] = request.json() or {}
        url = payload.get("url")
        if not url:
            return Reply(status=400, body={"success": False, "code": "BAD_REQUEST", "error": "Bad Request"})
        data: dict[str, Any] = {
            "markdown": f"# Scraped\n\nContent of {url}\n",
            "metadata": {"title": "Scraped page", "sourceURL": url, "url": url, "statusCode": 200},
        }
        if "links" in payload.get("formats", []):
            data["links"] = [f"{url.rstrip('/')}/a", f"{url.rstrip('/')}/b"]
        return Reply(body={"success": True, "data": data})

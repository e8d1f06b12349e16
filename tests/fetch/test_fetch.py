"""`weblens.fetch` against a real local page server: content types, limits, errors."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import weblens
from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import (
    BlockedError,
    NotFoundError,
    TooLargeError,
    ToolTimeoutError,
    ToolValidationError,
    UnsupportedContentError,
    UpstreamError,
)
from weblens.fetch import Page, fetch
from weblens.testing import FakeServer, Reply
from weblens.testing.pages import ARTICLE_PARAGRAPHS, PageServer, make_pdf


async def test_an_article_becomes_markdown_with_its_metadata(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/article"), settings=settings, cache=cache)
    assert page.status == 200
    assert page.extractor == "trafilatura"
    assert page.title == "The Skerryvore Ledger"
    assert page.byline == "Ada Stevenson"
    assert page.date == "2026-03-01T09:00:00Z"
    assert ARTICLE_PARAGRAPHS[0] in page.content and ARTICLE_PARAGRAPHS[-1] in page.content
    assert "| 1844 | 31 |" in page.content  # tables are kept
    for boilerplate in ("do not show", "About", "Copyright"):
        assert boilerplate not in page.content
    assert page.total_length == len(page.content)
    assert page.truncated is False and page.next_start_index is None


async def test_without_allowed_hosts_the_local_server_is_blocked(pages: PageServer, cache: Cache):
    with pytest.raises(BlockedError, match="loopback"):
        await fetch(pages.url("/article"), settings=Settings(), cache=cache)
    assert pages.requests == []


async def test_weblens_fetch_is_callable_at_the_top_level(pages: PageServer, settings: Settings, cache: Cache):
    page = await weblens.fetch(pages.url("/plain.txt"), settings=settings, cache=cache)
    assert isinstance(page, Page)


@pytest.mark.parametrize(
    ("path", "extractor", "expected"),
    [
        ("/plain.txt", "text", "line one\n\nline two <b>not html</b>\n"),
        ("/readme.md", "text", "# Title\n\n*emphasis* kept as is\n"),
        ("/data.json", "json", '{\n  "name": "weblens",\n  "tags": [\n    "fetch",\n    "safe"\n  ]\n}'),
    ],
)
async def test_text_markdown_and_json(pages: PageServer, settings: Settings, cache: Cache, path, extractor, expected):
    page = await fetch(pages.url(path), settings=settings, cache=cache)
    assert page.extractor == extractor
    assert page.content == expected


async def test_a_pdf_reads_page_by_page(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/doc.pdf"), settings=settings, cache=cache)
    assert page.extractor == "pypdf"
    assert page.title == "Test PDF"
    assert page.content.index("## Page 1") < page.content.index("First page text") < page.content.index("## Page 2")
    assert "Second page text" in page.content


async def test_a_broken_pdf_is_a_clear_error(pages: PageServer, settings: Settings, cache: Cache):
    pages.route("GET", "/bad.pdf", Reply(body=b"%PDF-1.4 garbage", content_type="application/pdf"))
    with pytest.raises(UnsupportedContentError, match="PDF"):
        await fetch(pages.url("/bad.pdf"), settings=settings, cache=cache)


def _permissions_only_pdf(text: str) -> bytes:
    """A PDF encrypted with AES and an empty user password, as "permissions-only" PDFs are: every viewer opens it."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([text]))))
    writer.encrypt(user_password="", owner_password="owner-secret", algorithm="AES-128")
    saved = io.BytesIO()
    writer.write(saved)
    return saved.getvalue()


async def test_an_aes_encrypted_pdf_with_an_empty_password_reads(pages: PageServer, settings: Settings, cache: Cache):
    pages.route("GET", "/report.pdf", Reply(body=_permissions_only_pdf("Revenue rose"), content_type="application/pdf"))
    page = await fetch(pages.url("/report.pdf"), settings=settings, cache=cache)  # needs `cryptography`, now declared
    assert page.extractor == "pypdf" and "Revenue rose" in page.content


def test_without_cryptography_an_aes_pdf_is_a_typed_error_saying_what_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(_permissions_only_pdf("Revenue rose"))
    script = (  # pypdf picks its AES provider on import: a fresh interpreter without `cryptography`
        "import sys\nsys.modules['cryptography'] = None\n"
        "from weblens.errors import WeblensError\nfrom weblens.fetch.extract import extract\n"
        f"try:\n    extract(open({str(path)!r}, 'rb').read(), 'application/pdf')\n"
        "except WeblensError as exc:\n    print(exc.code, exc.message)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    said = "unsupported_content the PDF could not be read: it needs a package not installed here (cryptography"
    assert done.stdout.startswith(said), done.stdout + done.stderr  # was pypdf's DependencyError, untyped


@pytest.mark.parametrize(("path", "words"), [("/cp1251", "съешь же ещё этих"), ("/gbk", "敏捷的棕色狐狸")])
async def test_non_utf8_pages_read_correctly(pages: PageServer, settings: Settings, cache: Cache, path, words):
    page = await fetch(pages.url(path), settings=settings, cache=cache)
    assert words in page.content
    assert "\ufffd" not in page.content


async def test_an_undeclared_charset_is_detected(pages: PageServer, settings: Settings, cache: Cache):
    text = "Съешь же ещё этих мягких французских булок, да выпей чаю. " * 20
    pages.route("GET", "/guess", Reply(body=text.encode("cp1251"), content_type="text/plain"))
    page = await fetch(pages.url("/guess"), settings=settings, cache=cache)
    assert page.content == text


async def test_an_empty_javascript_shell_says_so(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/spa"), settings=settings, cache=cache)
    assert page.content == ""
    assert page.note is not None and "JavaScript" in page.note


async def test_binary_types_are_refused_by_name(pages: PageServer, settings: Settings, cache: Cache):
    with pytest.raises(UnsupportedContentError, match=r"(?i)png"):  # "image/png", or "a PNG image" without OCR
        await fetch(pages.url("/image.png"), settings=settings, cache=cache)


async def test_http_errors_carry_the_status(pages: PageServer, settings: Settings, cache: Cache):
    with pytest.raises(NotFoundError, match="HTTP 404") as missing:
        await fetch(pages.url("/missing"), settings=settings, cache=cache)
    assert missing.value.details["status"] == 404
    with pytest.raises(UpstreamError, match="HTTP 500") as broken:
        await fetch(pages.url("/broken"), settings=settings, cache=cache)
    assert broken.value.retryable


async def test_redirects_are_followed_up_to_the_limit(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/redirect?n=3"), settings=settings, cache=cache)
    assert page.final_url == pages.url("/article")
    assert page.url == pages.url("/redirect?n=3")
    with pytest.raises(UpstreamError, match="more than 5"):
        await fetch(pages.url("/loop"), settings=settings, cache=cache)
    assert pages.count("/loop") == 6


async def test_a_redirect_to_a_blocked_address_is_refused(pages: PageServer, settings: Settings, cache: Cache):
    with pytest.raises(BlockedError, match="metadata"):
        await fetch(pages.url("/to-metadata"), settings=settings, cache=cache)
    target = "http://10.0.0.1/admin"
    with pytest.raises(BlockedError, match=r"10\.0\.0\.1 is a private address"):
        await fetch(pages.url(f"/redirect?to={target}"), settings=settings, cache=cache)


async def test_a_redirect_to_a_name_resolving_privately_is_refused(pages: PageServer, cache: Cache):
    async def resolver(host: str, port: int) -> list[str]:
        return {"evil.example": ["127.0.0.1"]}[host]

    settings = Settings(fetch={"allowed_hosts": [pages.host]})
    url = pages.url(f"/redirect?to=http://evil.example:{pages.port}/article")
    with pytest.raises(BlockedError, match=r"evil\.example resolves to 127\.0\.0\.1"):
        await fetch(url, settings=settings, cache=cache, resolver=resolver)
    assert pages.count("/article") == 0


async def test_a_callers_own_redirect_following_client_still_checks_every_hop(
    pages: PageServer, settings: Settings, cache: Cache
):
    async with FakeServer() as internal:  # not in allowed_hosts: a loopback service the guard must refuse
        internal.route("GET", "/admin", Reply(body="internal secrets"))
        url = pages.url(f"/redirect?to={internal.url('/admin')}")
        async with httpx.AsyncClient(follow_redirects=True) as client:
            with pytest.raises(BlockedError, match="loopback"):
                await fetch(url, settings=settings, cache=cache, client=client)
        assert internal.requests == []


async def test_an_oversized_body_stops_at_the_cap(pages: PageServer, settings: Settings, cache: Cache):
    with pytest.raises(TooLargeError, match="10,485,760 byte cap"):
        await fetch(pages.url("/huge"), settings=settings, cache=cache)


async def test_a_gzip_bomb_stops_at_the_decompressed_cap(pages: PageServer, cache: Cache):
    settings = Settings(fetch={"allowed_hosts": [pages.host], "max_bytes": 1024 * 1024})
    with pytest.raises(TooLargeError):
        await fetch(pages.url("/bomb"), settings=settings, cache=cache)


async def test_gzip_pages_are_decompressed(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/gzipped"), settings=settings, cache=cache)
    assert ARTICLE_PARAGRAPHS[3] in page.content


async def test_a_slow_drip_hits_the_total_timeout(pages: PageServer, cache: Cache):
    settings = Settings(fetch={"allowed_hosts": [pages.host], "timeout": 0.6})
    with pytest.raises(ToolTimeoutError, match=r"longer than 0\.6 s"):
        await fetch(pages.url("/slow"), settings=settings, cache=cache)


async def test_a_per_call_timeout_may_lower_but_not_raise_the_ceiling(pages: PageServer, cache: Cache):
    settings = Settings(fetch={"allowed_hosts": [pages.host], "timeout": 0.6})
    with pytest.raises(ToolTimeoutError, match=r"longer than 0\.6 s"):
        await fetch(pages.url("/slow"), settings=settings, cache=cache, timeout=60)
    with pytest.raises(ToolTimeoutError, match=r"longer than 0\.3 s"):
        await fetch(pages.url("/slow"), settings=settings, cache=cache, timeout=0.3, use_cache=False)


async def test_raw_returns_the_source(pages: PageServer, settings: Settings, cache: Cache):
    page = await fetch(pages.url("/article"), settings=settings, cache=cache, raw=True)
    assert page.extractor == "raw"
    assert page.content.startswith("<!DOCTYPE html>") and "<nav>" in page.content


async def test_bad_arguments_are_validation_errors(settings: Settings, cache: Cache):
    with pytest.raises(ToolValidationError):
        await fetch("ftp://example.com/x", settings=settings, cache=cache)
    with pytest.raises(ToolValidationError):
        await fetch("https://example.com/", settings=settings, cache=cache, max_length=0)
    with pytest.raises(ToolValidationError):
        await fetch("https://example.com/", settings=settings, cache=cache, start_index=-1)


async def test_the_user_agent_is_configurable(pages: PageServer, cache: Cache):
    settings = Settings(fetch={"allowed_hosts": [pages.host], "user_agent": "my-agent/1.0"})
    await fetch(pages.url("/plain.txt"), settings=settings, cache=cache)
    assert pages.requests[-1].headers["user-agent"] == "my-agent/1.0"

"""DuckDuckGo's HTML endpoint: `POST /html/` with form `q=`; no key.

An own client rather than `ddgs`: that library turns HTTP 202 (DuckDuckGo's rate-limit
page) into "No results found.", the very confusion an agent must not see. Here a 202 or
an anomaly page is `rate_limited`, an explicit "no results" page is an empty answer, and
a page we cannot recognise is an upstream error.

Time range (`df`) and safe search (`kp`) are form fields of the HTML endpoint; its
regions (`kl`) pair a country with one language each, so country and language are not
applied, and domains are filtered by weblens.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import lxml.etree  # type: ignore[import-untyped]
import lxml.html  # type: ignore[import-untyped]

from weblens.errors import RateLimitedError, UpstreamError, WeblensError
from weblens.search.advice import ANOTHER_PROVIDER
from weblens.search.models import ProviderAnswer, SearchRequest, clean_text
from weblens.search.providers.base import HttpProvider, HttpReply, register

__all__ = ["DuckDuckGoProvider", "parse_page", "unwrap_link", "without_bangs"]

_RESULTS = lxml.etree.XPath('//div[contains(concat(" ", normalize-space(@class), " "), " result ")]')
_TITLE = lxml.etree.XPath('.//a[contains(concat(" ", normalize-space(@class), " "), " result__a ")]')
_SNIPPET = lxml.etree.XPath('.//*[contains(concat(" ", normalize-space(@class), " "), " result__snippet ")]')
_NO_RESULTS = lxml.etree.XPath('boolean(//*[@id="links" or contains(@class, "no-results")])')
_RELIABLE = "DuckDuckGo sends many servers bot checks after a few queries; for reliable search set " + ANOTHER_PROVIDER
_ANOMALY_MARKERS = ("anomaly-modal", "anomaly.js", "challenge-form", "bots use DuckDuckGo")
_ALL_REGIONS = "wt-wt"
_BLOCKED_STATUSES = frozenset({403, 418})
_TIME = {"day": "d", "week": "w", "month": "m", "year": "y"}
_SAFESEARCH = {"strict": "1", "moderate": "-1", "off": "-2"}


def without_bangs(query: str) -> str:
    """`query` without DuckDuckGo's redirect syntax: a `!w` or `w!` bang, a lone `!` or a leading
    backslash makes it answer with a redirect to another site (or the first hit) instead of results."""
    words = [bare for word in query.lstrip("\\").split() if (bare := word.strip("!"))]
    return " ".join(words) or query


def unwrap_link(href: str) -> str:
    """The target of a DuckDuckGo redirect link (`//duckduckgo.com/l/?uddg=...`), else `href`."""
    parts = urlsplit(href)
    if parts.path.startswith("/l/") and "duckduckgo.com" in parts.netloc:
        target = parse_qs(parts.query).get("uddg")
        if target:
            return target[0]
    return "https:" + href if href.startswith("//") else href


def parse_page(page: str, limit: int) -> list[dict[str, Any]] | None:
    """Organic results as title/url/snippet dicts; None when the page is not a results page."""
    if not page.strip():
        return None
    try:
        tree = lxml.html.fromstring(page)
    except (lxml.etree.ParserError, ValueError):  # e.g. only a comment, or an XML encoding declaration
        return None
    found: list[dict[str, Any]] = []
    for node in _RESULTS(tree):
        if "result--ad" in (node.get("class") or "").split():
            continue
        links = _TITLE(node)
        if not links:
            continue
        url = unwrap_link(links[0].get("href") or "")
        if not url.startswith(("http://", "https://")) or "duckduckgo.com/y.js" in url:
            continue
        snippets = _SNIPPET(node)
        snippet = snippets[0].text_content() if snippets else ""
        found.append({"title": links[0].text_content(), "url": url, "snippet": clean_text(snippet)})
        if len(found) >= limit:
            break
    if found or _NO_RESULTS(tree):
        return found
    return None


@register
class DuckDuckGoProvider(HttpProvider):
    name = "duckduckgo"
    requires = None
    auth_statuses = frozenset()
    quota_statuses = frozenset()
    native = frozenset({"time_range", "safesearch"})

    def error(self, reply: HttpReply) -> WeblensError:
        if reply.status in _BLOCKED_STATUSES:  # there is no key: a refusal is bot protection
            return RateLimitedError(
                f"duckduckgo refused the request (HTTP {reply.status}); this is not 'no results'. {_RELIABLE}"
            )
        return super().error(reply)

    def redirected(self, reply: HttpReply) -> WeblensError:
        return UpstreamError(
            f"duckduckgo answered with a redirect (HTTP {reply.status}) instead of results, as it does for a "
            "query it reads as a !bang; rephrase the query without '!' or '\\'",
            status=reply.status,
            retryable=False,
            details={"status": reply.status},
        )

    async def ask(self, request: SearchRequest, key: str | None) -> ProviderAnswer:
        form = {"q": without_bangs(request.query), "kl": _ALL_REGIONS, "b": ""}
        if request.time_range:
            form["df"] = _TIME[request.time_range]
        if request.safesearch:
            form["kp"] = _SAFESEARCH[request.safesearch]
        reply = await self.send("POST", "/html/", data=form, headers={"Referer": "https://html.duckduckgo.com/"})
        count = self.upstream_count(request)
        items = parse_page(reply.text, count) if reply.status != 202 else None
        # a page of results is one, even when a result mentions `anomaly.js`; the bot check has none
        if reply.status == 202 or (not items and any(marker in reply.text for marker in _ANOMALY_MARKERS)):
            raise RateLimitedError(
                f"duckduckgo is rate limiting requests (HTTP {reply.status}, anomaly page); this is not 'no results'. "
                + _RELIABLE
            )
        if items is None:
            raise UpstreamError(
                f"duckduckgo sent a page that is not a results page (HTTP {reply.status})", status=reply.status
            )
        return ProviderAnswer(results=self.results(items, count))

"""What a page says it is: an article, a product, or something else (a listing, a collection, a service page).

Read from the page's own declarations, the ones search engines and link previews read: the
JSON-LD `@type`s and `og:type`. Main-content extraction is built for articles; on a page that
declares no article the main content is often the page itself (a grid of items, a list of
services), and the extractor's cut loses most of it. Names are schema.org's and Open
Graph's, never a site's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from lxml import etree  # type: ignore[import-untyped]

from weblens.fetch.posts import ld_objects

__all__ = ["PageKind", "page_kind"]

PageKind = Literal["article", "product", "other"]

# schema.org types of a piece of writing (and posts, which the thread reader handles).
_ARTICLE_TYPES = frozenset(
    {"Article", "NewsArticle", "BlogPosting", "TechArticle", "ReportageNewsArticle", "AnalysisNewsArticle",
     "OpinionNewsArticle", "BackgroundNewsArticle", "ReviewNewsArticle", "ScholarlyArticle", "Report",
     "LiveBlogPosting", "SocialMediaPosting", "DiscussionForumPosting"}
)  # fmt: skip
_PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel", "ItemPage", "Offer"})
_MAX_LD_CHARS = 1024 * 1024


def _types(data: Any) -> Iterator[str]:
    """Every `@type` named at the top of a JSON-LD payload, its `@graph` and its `mainEntity`."""
    for item in ld_objects(data):
        kinds = item.get("@type")
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            if isinstance(kind, str):
                yield kind.rsplit("/", 1)[-1]


def _declared_types(tree: etree._Element) -> set[str]:
    found: set[str] = set()
    for script in tree.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        if len(script.text) > _MAX_LD_CHARS:
            continue
        try:
            found.update(_types(json.loads(script.text)))
        except (ValueError, RecursionError):
            continue
    return found


def page_kind(tree: etree._Element, og_type: str | None) -> PageKind:
    """'article' when the page declares a piece of writing, 'product' a product, else 'other'."""
    og = (og_type or "").strip().lower()
    declared = _declared_types(tree)
    if declared & _ARTICLE_TYPES or og == "article":
        return "article"
    if declared & _PRODUCT_TYPES or og.startswith("product"):
        return "product"
    return "other"

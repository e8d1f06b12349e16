"""What a page says it is: an article, a product, or something else (a listing, a collection, a service page).

Read from the page's own declarations, the ones search engines and link previews read: the
JSON-LD `@type`s and `og:type`. Main-content extraction is built for articles; on a page that
declares no article the main content is often the page itself (a grid of items, a list of
services), and the extractor's cut loses most of it. Names are schema.org's and Open
Graph's, never a site's.

One declaration is weak: WordPress' SEO plugins put `og:type=article` on every page of a site, its
service, shop and documentation pages too. When that is all a page says, two things the site says
too overrule it: its address filing it under a section that is not writing (`/services/`, `/shop/`,
`/docs/`...), and WordPress' own mark of a static page rather than a post (the body classes `page`
and `page-id-N`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import urlsplit

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
# Path segments that file a page under a section of the site that is not writing: what it offers, sells or
# documents. bench/extraction.py, on pages that declare only `og:type=article`: documentation +0.004 F1, services
# +0.002, collections +0.012; it fires on no 2019 article and on no modern article.
_NOT_WRITING = frozenset(
    {"services", "service", "solutions", "solution", "products", "shop", "store", "category", "categories",
     "collections", "collection", "docs", "doc", "documentation", "glossary", "pricing", "features"}
)  # fmt: skip
# ... unless a segment files it under writing as well (`/services/blog/...`).
_WRITING = frozenset({"blog", "blogs", "news", "article", "articles", "post", "posts", "story", "stories"})
# WordPress marks a static page's body `page page-id-N` (a post's is `single single-post postid-N`). On pages that
# declare only `og:type=article`, bench/extraction.py: services 0.762 -> 0.775, listings 0.662 -> 0.665, products
# 0.617 -> 0.613 (one page of 141 words), articles level (eight WordPress pages that are articles read the same
# either way: the pass keeps most of an article's page), both modern folds up; no 2019 article is a WordPress page.
_BODY_CLASSES = etree.XPath("/*/body/@class")
_WORDPRESS_PAGE_ID = re.compile(r"page-id-\d+")


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


def _filed_elsewhere(url: str | None) -> bool:
    """Whether the page's address files it under a section of the site that is not writing."""
    try:
        segments = set(urlsplit(url or "").path.lower().split("/"))
    except ValueError:  # not an address (an unclosed `[` in the host): nothing to overrule with
        return False
    return bool(segments & _NOT_WRITING) and not segments & _WRITING


def _wordpress_page(tree: etree._Element) -> bool:
    """Whether WordPress marks the page a static page (a service, about or landing page), not a post."""
    classes = [value.split() for value in _BODY_CLASSES(tree)[:1]]
    return bool(classes) and "page" in classes[0] and any(map(_WORDPRESS_PAGE_ID.fullmatch, classes[0]))


def page_kind(tree: etree._Element, og_type: str | None, url: str | None = None) -> PageKind:
    """'article' when the page declares a piece of writing, 'product' a product, else 'other'; `url`, the page's
    address, and WordPress' mark of a static page overrule a bare `og:type=article`."""
    og = (og_type or "").strip().lower()
    declared = _declared_types(tree)
    if declared & _ARTICLE_TYPES or (og == "article" and not _filed_elsewhere(url) and not _wordpress_page(tree)):
        return "article"
    if declared & _PRODUCT_TYPES or og.startswith("product"):
        return "product"
    return "other"

"""Whole sites over the fetcher: `map_site` lists a site's URLs, `crawl` reads its pages."""

from weblens.sites.crawl import Crawl, CrawledPage, CrawlResult, FailedPage, crawl
from weblens.sites.map import MappedUrl, SiteMap, map_site

__all__ = ["Crawl", "CrawlResult", "CrawledPage", "FailedPage", "MappedUrl", "SiteMap", "crawl", "map_site"]

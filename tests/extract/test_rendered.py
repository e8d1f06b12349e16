"""A product page whose script writes its JSON-LD and text: read as a browser renders it, behind the guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import weblens
from weblens.config import Settings
from weblens.testing.chromium import INSTALL_HINT, chromium_path
from weblens.testing.extract_pages import PRODUCT_SCHEMA

from .conftest import Site

PRODUCT = {"@context": "https://schema.org", "@type": "Product", "name": "Copper Kettle K-9",
           "offers": {"@type": "Offer", "price": "1309.00", "priceCurrency": "EUR"}}  # fmt: skip
SHELL = """<!doctype html><html><head><title>Shop</title></head><body><div id="root"></div>
<script>
const data = DATA;
const ld = document.createElement("script");
ld.type = "application/ld+json";
ld.textContent = JSON.stringify(data);
document.head.appendChild(ld);
document.getElementById("root").innerHTML =
  "<h1>Copper Kettle K-9</h1><p>Price: 1,309.00 EUR. A kettle of hammered copper that boils a litre " +
  "in four minutes.</p>";
</script></body></html>""".replace("DATA", json.dumps(PRODUCT))


def _with_browser(settings: Settings, path: str | None) -> Settings:
    return settings.model_copy(update={"browser": settings.browser.model_copy(update={"path": path})})


@pytest.mark.skipif(chromium_path() is None, reason=INSTALL_HINT)
@pytest.mark.timeout(120)
async def test_a_page_its_script_writes_is_read_as_rendered(site: Site, tmp_path: Path) -> None:
    url = site.page("/kettle", SHELL)
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=_with_browser(site.settings(tmp_path),
                                                                                       chromium_path()))
    assert result.data["name"] == "Copper Kettle K-9" and result.fields["name"].source == "json-ld"
    assert result.fields["price"].verified and float(result.data["price"]) == 1309


async def test_without_a_browser_the_plain_read_stands(site: Site, tmp_path: Path) -> None:
    url = site.page("/kettle", SHELL)
    settings = _with_browser(site.settings(tmp_path), str(tmp_path / "no-such-browser"))
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=settings)
    assert result.data.get("name") is None and "name" in result.missing

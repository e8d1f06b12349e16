"""From a page's markup alone, no model: what a user gets from `weblens.extract` and `web_extract`."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from pydantic import BaseModel

import weblens
from weblens.errors import ToolValidationError
from weblens.extract import page_text
from weblens.runtime import Runtime
from weblens.testing.extract_pages import PRODUCT_SCHEMA, product_page, products
from weblens.tools.extract import WebExtract

from .conftest import Site

PRODUCT = products(2)[1]  # a price over a thousand, written "1,309.00" on the page


async def test_json_ld_product_gives_name_price_currency_availability_without_a_model(
    site: Site, tmp_path: Path
) -> None:
    url = site.page("/p", product_page(PRODUCT, "agreeing"))
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert result.data == {"name": PRODUCT.name, "price": 1309, "currency": "USD", "availability": "OutOfStock",
                           "sku": PRODUCT.sku}  # fmt: skip
    price = result.fields["price"]
    assert (price.source, price.verified) == ("json-ld", True)
    assert price.evidence[0].quote == "1,309.00"  # the number as the page writes it
    html = await weblens.fetch(url, settings=site.settings(tmp_path), raw=True, max_length=100_000)
    assert page_text(html.content)[price.evidence[0].start : price.evidence[0].end] == "1,309.00"
    assert result.fields["availability"].evidence[0].quote == "Out of stock"
    assert result.missing == ["weight"]
    assert result.hint is not None and "WEBLENS_LLM_BASE_URL" in result.hint


async def test_markup_the_page_does_not_show_is_unverified_and_strict_nulls_it(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "markup_only"))
    loose = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert loose.data["price"] == 1309
    assert not loose.fields["price"].verified
    assert "does not show it" in (loose.fields["price"].note or "")
    strict = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path), strict=True)
    assert "price" not in strict.data and "price" in strict.missing
    assert strict.fields["price"].value is None
    assert (strict.fields["price"].note or "").startswith("null because unverified")


async def test_a_stale_json_ld_price_is_reported(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "disagreeing"))
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    price = result.fields["price"]
    assert not price.verified and price.value == 1309
    assert "json-ld markup says 1309" in (price.note or "")
    assert result.fields["name"].verified  # the rest of the markup is on the page


async def test_a_json_ld_block_nested_past_the_parsers_depth_is_skipped(site: Site, tmp_path: Path) -> None:
    bomb = '<script type="application/ld+json">' + "[" * 200_000 + "</script>"
    html = product_page(PRODUCT, "agreeing").replace("<head>", "<head>" + bomb, 1)
    assert bomb in html
    result = await weblens.extract(site.page("/p", html), schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert result.data["price"] == 1309 and result.fields["price"].source == "json-ld"


async def test_json_ld_nan_is_no_value(site: Site, tmp_path: Path) -> None:
    html = """<html><head><script type="application/ld+json">{"@type": "Product", "name": "Lumen lamp",
    "offers": {"price": NaN}}</script></head><body><h1>Lumen lamp</h1><p>Call us for a price.</p></body></html>"""
    result = await weblens.extract(site.page("/p", html), schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert result.data == {"name": "Lumen lamp"} and "price" in result.missing


async def test_tables_and_definition_lists(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "tables_prose"))
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert {k: result.data.get(k) for k in ("price", "currency", "sku", "weight")} == {
        "price": 1309, "currency": "USD", "sku": PRODUCT.sku, "weight": PRODUCT.weight}  # fmt: skip
    assert all(result.fields[k].source == "table" and result.fields[k].verified for k in ("price", "sku", "weight"))


MIXED = """<html><head>
<meta property="og:title" content="Lantern festival on the quay">
<meta property="og:site_name" content="Harbour events">
</head><body>
<div itemscope itemtype="https://schema.org/Event">
  <h1 itemprop="name">Lantern festival on the quay</h1>
  <p>Starts <time itemprop="startDate" datetime="2026-03-14T18:00">14 March 2026, 6 pm</time>
  at <span itemprop="location">Pier Four</span>.</p>
</div>
<div vocab="https://schema.org/" typeof="Offer">
  <p>Tickets <span property="price" content="12.5">12,50</span> <span property="priceCurrency">EUR</span></p>
</div>
</body></html>"""


async def test_microdata_rdfa_and_opengraph(site: Site, tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {
        "title": {"type": "string"}, "start_date": {"type": "string", "format": "date"},
        "venue": {"type": "string"}, "price": {"type": "number"}, "currency": {"type": "string"},
        "site_name": {"type": "string"}}}  # fmt: skip
    url = site.page("/e", MIXED)
    result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path))
    got = {name: (field.value, field.source, field.verified) for name, field in result.fields.items()}
    assert got == {
        "title": ("Lantern festival on the quay", "microdata", True),
        "start_date": ("2026-03-14", "microdata", True),  # `2026-03-14T18:00` in markup, "14 March 2026" shown
        "venue": ("Pier Four", "microdata", True),
        "price": (12.5, "rdfa", True),  # written 12,50
        "currency": ("EUR", "rdfa", True),
        "site_name": ("Harbour events", "opengraph", False),  # only in the head
    }
    assert result.fields["start_date"].evidence[0].quote == "14 March 2026"


class Item(BaseModel):
    name: str
    price: float
    currency: str | None = None


async def test_a_pydantic_model_gives_its_instance(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "agreeing"))
    result = await weblens.extract(url, schema=Item, settings=site.settings(tmp_path))
    assert result.instance == Item(name=PRODUCT.name, price=1309, currency="USD")


async def test_fields_without_a_type_take_the_markups_values(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "agreeing"))
    schema = {"type": "object", "properties": {"name": {"description": "the product's name"}, "sku": {}}}
    result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path))
    assert result.data == {"name": PRODUCT.name, "sku": PRODUCT.sku}
    assert result.fields["sku"].verified


async def test_an_enum_of_snake_case_members_is_verified_by_the_words_shown(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "agreeing"))  # JSON-LD `schema.org/OutOfStock`, shown "Out of stock"
    schema = {"type": "object", "properties": {"availability": {"enum": ["in_stock", "out_of_stock"]}}}
    result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path), strict=True)
    assert result.data == {"availability": "out_of_stock"}
    assert result.fields["availability"].evidence[0].quote == "Out of stock"


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "object", "properties": {"price": {"type": "nonsense"}}}, "not valid JSON Schema"),
        ({"type": "string"}, 'must be an object with "properties"'),
        ({"type": "object", "properties": {f"f{i}": {"type": "string", "description": "x" * 400} for i in range(60)}},
         "too large"),
        ({"type": "object", "properties": {"maker": {"$ref": "#/$defs/Maker"}}}, "$ref '#/$defs/Maker'"),
        ({"type": "object", "properties": {"maker": {"$ref": "http://127.0.0.1:9/maker.json"}}}, "own $defs"),
    ],
)
async def test_a_bad_schema_is_a_validation_error_naming_the_problem(
    site: Site, tmp_path: Path, schema: dict[str, object], says: str
) -> None:
    url = site.page("/p", product_page(PRODUCT, "agreeing"))
    async with Runtime.from_settings(site.settings(tmp_path)) as runtime:
        result = await WebExtract(runtime).execute({"url": url, "schema": schema})
    assert result.error is not None and result.error.code == "validation_error"
    assert says in result.error.message
    assert not site.server.requests  # refused before anything was fetched


async def test_a_deeply_nested_schema_from_python_is_a_validation_error(site: Site, tmp_path: Path) -> None:
    tags: dict[str, object] = {"type": "string"}
    for _ in range(300):  # small enough for the size limit, deep enough to exhaust the validator's recursion
        tags = {"type": "array", "items": tags}
    url = site.page("/p", product_page(PRODUCT, "agreeing"))
    schema = {"type": "object", "properties": {"tags": tags}}
    with pytest.raises(ToolValidationError, match="nested too deeply"):
        await weblens.extract(url, schema=schema, settings=site.settings(tmp_path))
    assert not site.server.requests


async def test_many_urls_one_failing_is_an_error_in_its_slot(site: Site, tmp_path: Path) -> None:
    good = site.page("/p", product_page(PRODUCT, "agreeing"))
    gone = site.page("/gone", "<p>no</p>", status=404)
    blocked = "http://169.254.169.254/latest/meta-data/"
    async with Runtime.from_settings(site.settings(tmp_path)) as runtime:
        result = await WebExtract(runtime).execute({"urls": [gone, good, blocked], "schema": PRODUCT_SCHEMA})
    assert result.ok
    slots = result.data["results"]
    assert slots[0]["code"] == "not_found" and slots[0]["url"] == gone
    assert slots[1]["data"]["price"] == 1309
    assert slots[2]["code"] == "blocked"
    assert result.brief.startswith("1/3 pages")


async def test_a_bot_check_served_instead_of_the_page_is_blocked(site: Site, tmp_path: Path) -> None:
    good = site.page("/p", product_page(PRODUCT, "agreeing"))
    wall = site.page("/wall", (resources.files("weblens.testing") / "fixtures" / "page_bot_check.html").read_text())
    async with Runtime.from_settings(site.settings(tmp_path)) as runtime:
        result = await WebExtract(runtime).execute({"urls": [good, wall], "schema": PRODUCT_SCHEMA})
    slots = result.data["results"]
    assert slots[0]["data"]["price"] == 1309
    assert slots[1]["code"] == "blocked" and "bot check" in slots[1]["message"]


async def test_the_tool_tells_the_model_what_is_verified(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(PRODUCT, "disagreeing"))
    async with Runtime.from_settings(site.settings(tmp_path)) as runtime:
        result = await WebExtract(runtime).execute({"url": url, "schema": PRODUCT_SCHEMA})
    assert result.ok
    assert '- price: 1309 [json-ld; NOT verified]' in result.text
    assert '- sku: "SKU-4101" [json-ld; verified: "SKU-4101" at' in result.text
    assert "untrusted data" in result.text


async def test_the_main_item_answers_not_the_site_around_it(site: Site, tmp_path: Path) -> None:
    graph = {"@context": "https://schema.org", "@graph": [
        {"@type": "Organization", "name": "Harbor Goods"},
        {"@type": "Product", "name": "Harbor insulated kettle", "brand": {"@type": "Brand", "name": "Harbor"},
         "offers": {"@type": "Offer", "price": "49.50", "priceCurrency": "EUR"}}]}  # fmt: skip
    html = (f'<html><head><script type="application/ld+json">{json.dumps(graph)}</script></head><body>'
            "<p>Harbor Goods</p><h1>Harbor insulated kettle</h1><p>EUR 49.50</p></body></html>")  # fmt: skip
    url = site.page("/g", html)
    result = await weblens.extract(url, schema=PRODUCT_SCHEMA, settings=site.settings(tmp_path))
    assert result.data == {"name": "Harbor insulated kettle", "price": 49.5, "currency": "EUR"}
    assert all(result.fields[name].verified for name in result.data)

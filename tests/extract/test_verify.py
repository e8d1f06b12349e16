"""Checking values against the text a page shows: formats pages write, and what a reader cannot see."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import weblens
from weblens.extract.fields import fields_of
from weblens.extract.numbers import parse_number
from weblens.extract.verify import PageText, find_evidence
from weblens.testing.llm import ScriptedLLM

from .conftest import Site
from .test_model import answering

SCHEMA = {"type": "object", "properties": {
    "price": {"type": "number"}, "released": {"type": "string", "format": "date"},
    "summary": {"type": "string"}, "currency": {"type": "string"}, "in_stock": {"type": "boolean"}}}  # fmt: skip
FIELDS = {f.name: f for f in fields_of(SCHEMA)}


@pytest.mark.parametrize(("written", "value"), [("$1,299.00", 1299), ("1.299,00 €", 1299), ("1 299", 1299),
                                                ("12,5", 12.5), ("0.75", 0.75)])  # fmt: skip
def test_a_number_is_found_however_the_page_writes_it(written: str, value: float) -> None:
    page = PageText(f"Our price today: {written} per unit.")
    evidence = find_evidence(page, FIELDS["price"], value)
    assert evidence is not None and written.strip("$€ ").startswith(evidence[0].quote)
    assert find_evidence(page, FIELDS["price"], value + 1) is None
    assert parse_number(written) == pytest.approx(value)


@pytest.mark.parametrize("written", ["14 March 2026", "March 14, 2026", "2026-03-14", "14/03/2026", "Mar 14 2026"])
def test_a_date_is_found_in_common_forms(written: str) -> None:
    page = PageText(f"Released on {written} to all stores.")
    evidence = find_evidence(page, FIELDS["released"], "2026-03-14")
    assert evidence is not None and evidence[0].quote == written
    assert find_evidence(page, FIELDS["released"], "2026-03-15") is None


def test_long_strings_match_loosely_but_keep_every_word() -> None:
    page = PageText("The kettle keeps water hot for twelve full hours, even on a cold morning at the harbour.")
    field = FIELDS["summary"]
    assert find_evidence(page, field, "keeps water hot for twelve hours even on a cold morning") is not None
    assert find_evidence(page, field, "keeps water hot for twelve hours even on a warm morning") is None
    assert find_evidence(page, field, "water hot") is not None
    assert find_evidence(page, field, "hot water") is None  # a short string matches exactly, in order


def test_booleans_and_currency_signs_need_a_passage() -> None:
    page = PageText("Price: $40. This lamp is not in stock until May.")
    assert find_evidence(page, FIELDS["in_stock"], False) is not None
    assert find_evidence(page, FIELDS["in_stock"], True) is None
    assert find_evidence(page, FIELDS["currency"], "USD") is not None
    assert find_evidence(PageText("Price: 40."), FIELDS["in_stock"], False) is None
    assert find_evidence(PageText("Price: 40."), FIELDS["currency"], "USD") is None


HIDDEN = """<html><head><script type="application/ld+json">
{"@type": "Product", "name": "Lumen reading lamp", "offers": {"price": "89.00", "priceCurrency": "EUR"}}
</script><style>.p{}</style></head><body><h1>Lumen reading lamp</h1>
<div style="display: none">Price 89.00 EUR</div><p hidden>89.00</p>
<script>var price = "89.00";</script><p>Call us for today's price.</p></body></html>"""


async def test_text_a_reader_cannot_see_does_not_verify(site: Site, tmp_path: Path) -> None:
    url = site.page("/lamp", HIDDEN)
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}}
    result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path))
    assert result.fields["name"].verified
    assert result.fields["price"].value == 89 and not result.fields["price"].verified


WORLD = """<html><body><h1>Lakeside e-bike</h1>
<p>Price in India: ₹1,29,999</p><p>Annual revenue: $1.2 million, 3.5万 users</p><p>Spring sale: 15% off</p>
<p>Tested down to −5 °C.</p><p>发布日期：2026年3月14日</p><p>Erscheinungsdatum: 14. März 2026</p>
<p>Disponible le 2 avril 2026</p><p>Actualizado: 5 de mayo de 2026</p><p>Updated 2026/04/01</p></body></html>"""
WORLD_SCHEMA = {"type": "object", "properties": {
    "price_inr": {"type": "integer"}, "revenue": {"type": "number"}, "users": {"type": "integer"},
    "discount": {"type": "number", "description": "as a fraction"}, "lowest_temperature": {"type": "number"},
    **{name: {"type": "string", "format": "date"} for name in ("published", "de_date", "fr_date", "es_date",
                                                               "updated")},
}}  # fmt: skip
WORLD_RIGHT = {"price_inr": 129999, "revenue": 1_200_000, "users": 35_000, "discount": 0.15, "lowest_temperature": -5,
               "published": "2026-03-14", "de_date": "2026-03-14", "fr_date": "2026-04-02", "es_date": "2026-05-05",
               "updated": "2026-04-01"}  # fmt: skip
WORLD_WRONG = {"price_inr": 139999, "revenue": 1_300_000, "users": 36_000, "discount": 0.25, "lowest_temperature": -6,
               "published": "2026-03-15", "de_date": "2026-03-15", "fr_date": "2026-04-03", "es_date": "2026-05-06",
               "updated": "2026-04-09"}  # fmt: skip


@pytest.mark.parametrize(("answer", "shown"), [(WORLD_RIGHT, True), (WORLD_WRONG, False)])
async def test_numbers_and_dates_as_pages_around_the_world_write_them(
    site: Site, tmp_path: Path, answer: dict[str, object], shown: bool
) -> None:
    url = site.page("/bike", WORLD)
    with ScriptedLLM(responder=answering(answer)) as model:
        result = await weblens.extract(url, schema=WORLD_SCHEMA, settings=site.settings(tmp_path, model.base_url))
    assert result.data == answer
    assert {name: field.verified for name, field in result.fields.items()} == dict.fromkeys(answer, shown)
    if shown:
        assert [result.fields[name].evidence[0].quote for name in ("revenue", "users", "discount", "published")] == [
            "1.2 million", "3.5万", "15%", "2026年3月14日"]  # fmt: skip


async def test_a_page_repeating_a_long_values_words_does_not_stall_the_check(site: Site, tmp_path: Path) -> None:
    value = "the a " * 800 + "b"  # nearly on the page, 1,601 words: each of 50,000 starts matches far before failing
    html = (f'<html><head><script type="application/ld+json">{json.dumps({"@type": "Product", "description": value})}'
            f"</script></head><body><p>{'the a ' * 50_000}</p></body></html>")  # fmt: skip
    url = site.page("/echo", html)
    schema = {"type": "object", "properties": {"description": {"type": "string"}}}
    # the check runs on the event loop: unbounded, it held it for ~40 s; bounded, well under a second
    result = await asyncio.wait_for(weblens.extract(url, schema=schema, settings=site.settings(tmp_path)), 15)
    assert result.data["description"].endswith("the a b") and not result.fields["description"].verified


SOFT = """<html><head><script type="application/ld+json">{"@type": "Product", "name": "Kaffeemaschine Deluxe"}</script>
</head><body><h1>Kaffee&shy;maschine Deluxe</h1><p>Marke: <span itemscope itemtype="https://schema.org/Brand">
<span itemprop="brand">Kaffee&shy;werk&#8203;</span></span></p></body></html>"""


async def test_soft_hyphens_and_zero_width_spaces_inside_words(site: Site, tmp_path: Path) -> None:
    url = site.page("/de", SOFT)
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "brand": {"type": "string"}}}
    result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path), strict=True)
    assert result.data == {"name": "Kaffeemaschine Deluxe", "brand": "Kaffeewerk"}
    assert result.fields["name"].evidence[0].quote == "Kaffeemaschine Deluxe"

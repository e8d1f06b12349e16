"""Schemas as clients send them: pydantic models with nested models, `X | None`, enums and `$defs`;
draft-07 `definitions`; recursive models. The scripted model answers over real HTTP."""

from __future__ import annotations

import datetime
import enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import weblens
from weblens.testing.llm import ScriptedLLM

from .conftest import Site
from .test_model import answering

SHOP = """<html><body><h1>Acme Tools</h1><p>Family business with 1,250 employees.</p>
<p>Head office: Berlin, Germany. We sell hardware.</p>
<h2>Founders</h2><ul><li>Ada Byron, engineer</li><li>Karl Benz, mechanic</li></ul></body></html>"""


class Kind(enum.Enum):
    HARDWARE = "hardware"
    SOFTWARE = "software"


class Address(BaseModel):
    city: str
    country: str


class Person(BaseModel):
    name: str
    role: str | None = None


class Shop(BaseModel):
    name: str
    employees: int | None = None
    kind: Kind | None = None
    address: Address | None = None
    founders: list[Person] = []


ANSWER = {"name": "Acme Tools", "employees": 1250, "kind": "hardware",
          "address": {"city": "Berlin", "country": "Germany"},
          "founders": [{"name": "Ada Byron", "role": "engineer"}, {"name": "Karl Benz", "role": None}]}  # fmt: skip


async def test_a_pydantic_model_with_nested_models_optionals_and_enums(site: Site, tmp_path: Path) -> None:
    url = site.page("/shop", SHOP)
    with ScriptedLLM(responder=answering(ANSWER)) as model:
        result = await weblens.extract(url, schema=Shop, settings=site.settings(tmp_path, model.base_url))
        sent = model.sent
    asked = sent[0]["response_format"]["json_schema"]["schema"]
    assert len(sent) == 1  # the answer fit what was asked: no repair round
    assert {"type": "integer"} in asked["properties"]["employees"]["anyOf"]  # `int | None` asked as a number
    assert set(asked["$defs"]) == {"Address", "Kind", "Person"}
    assert result.hint is None and result.schema_errors == []
    founders = [Person(name="Ada Byron", role="engineer"), Person(name="Karl Benz")]
    assert result.instance == Shop(name="Acme Tools", employees=1250, kind=Kind.HARDWARE,
                                   address=Address(city="Berlin", country="Germany"), founders=founders)  # fmt: skip


async def test_draft_07_definitions_and_a_recursive_model(site: Site, tmp_path: Path) -> None:
    url = site.page("/shop", SHOP)
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "definitions": {"place": {"type": "object", "properties": {"city": {"type": "string"}}}},
              "properties": {"name": {"type": "string"}, "address": {"$ref": "#/definitions/place"}}}  # fmt: skip
    tree = {"$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"},
                                                                  "parts": {"type": "array",
                                                                            "items": {"$ref": "#/$defs/Node"}}}}},
            "$ref": "#/$defs/Node"}  # fmt: skip
    answers: list[dict[str, Any]] = [{"name": "Acme Tools", "address": {"city": "Berlin"}},
                                     {"name": "Acme Tools", "parts": [{"name": "Ada Byron", "parts": []}]}]  # fmt: skip
    for schema, answer in zip((draft7, tree), answers, strict=True):
        with ScriptedLLM(responder=answering(answer)) as model:
            result = await weblens.extract(url, schema=schema, settings=site.settings(tmp_path, model.base_url))
        assert result.data == answer
        assert result.schema_errors == [] and result.hint is None


async def test_nested_values_are_checked_part_by_part(site: Site, tmp_path: Path) -> None:
    url = site.page("/shop", SHOP)
    invented = {**ANSWER, "address": {"city": "Berlin", "country": "Austria"},
                "founders": [{"name": "Ada Byron", "role": "engineer"}, {"name": "Grace Hopper"}]}  # fmt: skip
    for answer, shown in ((ANSWER, True), (invented, False)):
        with ScriptedLLM(responder=answering(answer)) as model:
            settings = site.settings(tmp_path, model.base_url)
            result = await weblens.extract(url, schema=Shop, settings=settings)
            strict = await weblens.extract(url, schema=Shop, settings=settings, strict=True)
        for name in ("address", "founders"):
            assert result.fields[name].verified is shown
            assert (name in strict.data) is shown
        if shown:
            quotes = [e.quote for e in result.fields["founders"].evidence]
            assert quotes == ["Ada Byron", "engineer", "Karl Benz"]  # every stated part, with its own quote
        else:
            assert "possibly invented" in (result.fields["address"].note or "")


class Article(BaseModel):
    headline: str
    published: datetime.date


NEWS = """<html><head><script type="application/ld+json">{"@type": "NewsArticle", "headline": "Harbour reopens",
"datePublished": "2026-03-14T09:30:00+01:00"}</script></head><body><h1>Harbour reopens</h1>
<p>Published March 14, 2026, 09:30</p></body></html>"""


async def test_a_date_field_gets_the_day_of_a_date_time_and_a_model_instance(site: Site, tmp_path: Path) -> None:
    url = site.page("/news", NEWS)
    result = await weblens.extract(url, schema=Article, settings=site.settings(tmp_path))
    assert result.instance == Article(headline="Harbour reopens", published=datetime.date(2026, 3, 14))
    assert result.fields["published"].verified


async def test_why_the_data_is_no_instance_of_the_model_is_said(site: Site, tmp_path: Path) -> None:
    url = site.page("/news", NEWS.replace("datePublished", "dateCreated"))
    with ScriptedLLM(responder=answering({"published": "March 14, 2026"})) as model:
        result = await weblens.extract(url, schema=Article, settings=site.settings(tmp_path, model.base_url))
    assert result.data["published"] == "March 14, 2026" and result.fields["published"].verified
    assert result.instance is None
    assert result.schema_errors and result.schema_errors[0].startswith("published: ")

"""`web_extract` measured: markup-only accuracy, flagging of wrong and invented model values, tokens sent.

1. Generated product pages (`weblens.testing.extract_pages`) with known values, five kinds
   (markup only, visible text only, both agreeing, both disagreeing, tables and prose):
   field accuracy with no model, and the share of values verified.
2. The same pages with a scripted model (real HTTP) answering the fields the markup left
   unverified: correctly, wrongly (a number moved, a word changed, another enum member) and
   inventing values for fields the page does not state. Aim: every invented value flagged
   (not verified), no correct value flagged. The markup-only kind is left out here: its
   values are not on the visible page, so flagging them is right.
3. The product pages of ../shared/data/web-extraction-2026 that carry schema.org Product
   JSON-LD (when the corpus is present): fields found from markup alone and how many of them
   the visible text confirms; and, with a model that answers null, the tokens of page text
   sent per field asked, beside the tokens of the whole visible text per field (the baseline:
   sending the page).

    python bench/extract.py [--products 12]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import re
import statistics
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from weblens.cache import Cache
from weblens.config import Settings
from weblens.extract import Extraction, extract_page, page_text
from weblens.fetch.fetcher import Fetcher
from weblens.fetch.tokens import o200k
from weblens.llm import ChatModel
from weblens.testing.extract_pages import KINDS, PRODUCT_SCHEMA, Product, product_page, products
from weblens.testing.llm import ScriptedLLM, Turn
from weblens.testing.server import FakeServer, Reply

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "web-extraction-2026"
CORPUS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "price": {"type": "number"},
        "currency": {"type": "string"},
        "availability": {"type": "string", "description": "schema.org availability"},
    },
}
_ENUM = ("InStock", "OutOfStock", "PreOrder")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(float(a) - float(b)) < 1e-9
    return bool(a == b)


def wrong(value: Any) -> Any:
    """A plausible wrong value: a number moved, a word swapped, another enum member."""
    if isinstance(value, int | float):
        return value + 7
    if value in _ENUM:
        return _ENUM[(_ENUM.index(value) + 1) % 3]
    if isinstance(value, str) and re.fullmatch(r"[A-Z]{3}", value):
        return "GBP" if value != "GBP" else "JPY"
    words = str(value).split()
    return " ".join([*words[:-1], "Deluxe"]) if len(words) > 1 else f"{value}-X"


class Script:
    """What the scripted model says for the page being read: set before each extraction."""

    def __init__(self) -> None:
        self.answer: dict[str, Any] = {}

    def __call__(self, body: dict[str, Any]) -> Turn:
        asked = body["response_format"]["json_schema"]["schema"]["properties"]
        return Turn(text=json.dumps({name: self.answer.get(name) for name in asked}))


async def generated(count: int) -> None:
    items = products(count)
    script = Script()
    with tempfile.TemporaryDirectory() as data, ScriptedLLM(responder=script) as llm:
        async with FakeServer() as server:
            for index, product in enumerate(items):
                for kind in KINDS:
                    server.route("GET", f"/{kind}/{index}", Reply(body=product_page(product, kind),
                                                                  content_type="text/html; charset=utf-8"))  # fmt: skip
            settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{server.port}"]}, data_dir=data,
                                cache={"enabled": False})  # fmt: skip
            async with Fetcher.from_settings(settings, cache=Cache(None)) as fetcher:
                print(f"1. markup only, no model ({count} products per kind)")
                print(f"   {'kind':<14}{'fields right':>14}{'verified':>10}{'wrong':>7}")
                for kind in KINDS:
                    right = total = verified = bad = 0
                    for index, product in enumerate(items):
                        got = await extract_page(fetcher, server.url(f"/{kind}/{index}"), PRODUCT_SCHEMA, model=None)
                        for name, value in product.expected(kind).items():
                            total += 1
                            field = got.fields[name]
                            right += _same(field.value, value)
                            bad += field.value is not None and not _same(field.value, value)
                            verified += field.verified and _same(field.value, value)
                    print(f"   {kind:<14}{right:>8}/{total:<5}{verified:>10}{bad:>7}")
                model = ChatModel(base_url=llm.base_url, model="scripted", timeout=30)
                try:
                    await _with_model(fetcher, server, items, script, model)
                finally:
                    await model.aclose()


async def _with_model(fetcher: Fetcher, server: FakeServer, items: list[Product], script: Script,
                      model: ChatModel) -> None:  # fmt: skip
    print("2. the model for what the markup left unverified (markup_only excluded)")
    flagged: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for mode in ("correct", "wrong", "invented"):
        for kind in KINDS[1:]:
            for index, product in enumerate(items):
                truth = product.expected(kind)
                if mode == "correct":
                    script.answer = dict(truth)
                elif mode == "wrong":
                    script.answer = {name: wrong(value) for name, value in truth.items()}
                else:  # a value for a field the page does not state (or a made-up one), truth for the rest
                    made_up = {"weight": "2.4 kg"} if "weight" not in truth else {"sku": "ZX-77"}
                    script.answer = {**truth, **made_up}
                got = await extract_page(fetcher, server.url(f"/{kind}/{index}"), PRODUCT_SCHEMA, model=model)
                for name, field in got.fields.items():
                    if field.source != "model":
                        continue
                    if mode == "invented" and name in ("weight", "sku") and script.answer[name] != truth.get(name):
                        label = "invented"
                    elif mode == "wrong":
                        label = "wrong"
                    elif _same(field.value, truth.get(name)):
                        label = "correct"
                    else:
                        continue
                    counts[label] += 1
                    flagged[label] += not field.verified
    for label, aim in (("invented", "aim 100 %"), ("wrong", "as many as possible"), ("correct", "aim 0 %")):
        share = 100 * flagged[label] / counts[label] if counts[label] else 0.0
        print(f"   {label:<9} values flagged: {flagged[label]:>3}/{counts[label]:<4} = {share:5.1f} %  ({aim})")


def _corpus_products() -> list[tuple[str, str]]:
    truth = json.loads((CORPUS / "ground-truth.json").read_text())
    pages = []
    for page_id, entry in sorted(truth.items()):
        if entry.get("type") != "product":
            continue
        html = gzip.decompress((CORPUS / "html" / f"{page_id}.html.gz").read_bytes()).decode("utf-8", "replace")
        if re.search(r'application/ld\+json[^>]*>[^<]*"@type"\s*:\s*"Product"', html):
            pages.append((page_id, html))
    return pages


async def corpus() -> None:
    if not (CORPUS / "ground-truth.json").exists():
        print("3. corpus: ../shared/data/web-extraction-2026 not present, skipped")
        return
    pages = _corpus_products()
    counter = o200k()
    found: Counter[str] = Counter()
    confirmed: Counter[str] = Counter()
    sent: list[float] = []
    whole: list[float] = []
    script = Script()  # answers null for everything: only what is sent is measured
    with tempfile.TemporaryDirectory() as data, ScriptedLLM(responder=script) as llm:
        async with FakeServer() as server:
            for page_id, html in pages:
                server.route("GET", f"/{page_id}", Reply(body=html, content_type="text/html; charset=utf-8"))
            settings = Settings(fetch={"allowed_hosts": [f"127.0.0.1:{server.port}"]}, data_dir=data,
                                cache={"enabled": False})  # fmt: skip
            async with Fetcher.from_settings(settings, cache=Cache(None)) as fetcher:
                model = ChatModel(base_url=llm.base_url, model="scripted", timeout=30)
                try:
                    for page_id, _ in pages:
                        url = server.url(f"/{page_id}")
                        plain: Extraction = await extract_page(fetcher, url, CORPUS_SCHEMA, model=None)
                        for name, field in plain.fields.items():
                            found[name] += field.value is not None
                            confirmed[name] += field.verified
                        asked = [n for n, f in plain.fields.items() if not f.verified]
                        if not asked:
                            continue
                        with_model = await extract_page(fetcher, url, CORPUS_SCHEMA, model=model)
                        raw, _ = await fetcher.document(url, raw=True)
                        sent.append(with_model.model_tokens / len(asked))
                        whole.append(counter.count(page_text(raw.content)) / len(asked))
                finally:
                    await model.aclose()
    print(f"3. corpus product pages with Product JSON-LD: {len(pages)}")
    print(f"   {'field':<14}{'from markup':>12}{'confirmed by visible text':>28}")
    for name in CORPUS_SCHEMA["properties"]:
        print(f"   {name:<14}{found[name]:>8}/{len(pages):<3}{confirmed[name]:>20}/{found[name]}")
    if sent:
        print(f"   tokens sent to the model per field asked: median {statistics.median(sent):,.0f} "
              f"(baseline, the whole visible text: median {statistics.median(whole):,.0f}; "
              f"{statistics.median(w / max(s, 1) for s, w in zip(sent, whole, strict=True)):.1f}x less) "
              f"over {len(sent)} pages")  # fmt: skip


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", type=int, default=12)
    args = parser.parse_args()
    await generated(args.products)
    await corpus()


if __name__ == "__main__":
    asyncio.run(main())

"""Product pages with known field values, for `web_extract` tests and `bench/extract.py`.

Each kind puts the same facts in a different place: markup only (JSON-LD, the visible
text says nothing), visible text only, both agreeing, both disagreeing (the JSON-LD price
is stale), and values spread over a table, a definition list and prose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "PRODUCT_SCHEMA", "Product", "product_page", "products"]

KINDS = ("markup_only", "visible_only", "agreeing", "disagreeing", "tables_prose")
PRODUCT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "the product's name"},
        "price": {"type": "number", "description": "current price"},
        "currency": {"type": "string", "description": "ISO 4217 code, schema.org priceCurrency"},
        "availability": {"type": "string", "enum": ["InStock", "OutOfStock", "PreOrder"]},
        "sku": {"type": "string"},
        "weight": {"type": "string", "description": "shipping weight"},
    },
    "required": ["name", "price"],
}
_NAMES = ("Trailrunner Pro 3 hiking boot", "Harbor insulated kettle", "Alder oak writing desk", "Nimbus rain shell",
          "Quarry cast iron skillet", "Lumen reading lamp", "Summit trekking poles", "Basil herb planter")  # fmt: skip


@dataclass(frozen=True)
class Product:
    """The truth a page was generated from, and the page's visible price when it differs (stale JSON-LD)."""

    name: str
    price: float
    currency: str
    availability: str
    sku: str
    weight: str
    shown_price: float | None = None

    def expected(self, kind: str) -> dict[str, Any]:
        """What an extractor should return from the page of `kind` (the visible price wins a disagreement)."""
        values = {"name": self.name, "price": self.price, "currency": self.currency,
                  "availability": self.availability, "sku": self.sku, "weight": self.weight}  # fmt: skip
        if kind == "disagreeing" and self.shown_price is not None:
            values["price"] = self.shown_price
        if kind != "tables_prose":
            values.pop("weight")  # only the tables and prose kind states it
        return values


def products(count: int = 8) -> list[Product]:
    return [
        Product(
            name=_NAMES[i % len(_NAMES)],
            price=1299.0 + 10 * i if i % 2 else 49.5 + i,
            currency="USD" if i % 3 else "EUR",
            availability=("InStock", "OutOfStock", "PreOrder")[i % 3],
            sku=f"SKU-{4100 + i}",
            weight=f"{1.2 + i / 10:.1f} kg",
            shown_price=1199.0 + i,
        )
        for i in range(count)
    ]


def _json_ld(product: Product, price: float) -> str:
    data = {"@context": "https://schema.org", "@type": "Product", "name": product.name, "sku": product.sku,
            "offers": {"@type": "Offer", "price": f"{price:.2f}", "priceCurrency": product.currency,
                       "availability": f"https://schema.org/{product.availability}"}}  # fmt: skip
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def _stock(availability: str) -> str:
    return {"InStock": "In stock", "OutOfStock": "Out of stock", "PreOrder": "Pre-order now"}[availability]


def product_page(product: Product, kind: str) -> str:
    """The HTML of one page of `kind` (see `KINDS`)."""
    price = f"{product.price:,.2f}"
    shown = f"{product.shown_price:,.2f}" if product.shown_price is not None else price
    filler = ("<p>Free returns within thirty days. Our team packs every order by hand in a workshop "
              "powered by solar panels, and ships it in recycled cardboard.</p>") * 3  # fmt: skip
    head = body = ""
    if kind == "markup_only":
        head = _json_ld(product, product.price)
        body = f"<h1>Our catalogue</h1>{filler}"
    elif kind == "visible_only":
        body = (f"<h1>{product.name}</h1><p>Price: {product.currency} {price}</p><p>{_stock(product.availability)}."
                f" Item code {product.sku}.</p>{filler}")  # fmt: skip
    elif kind in ("agreeing", "disagreeing"):
        head = _json_ld(product, product.price)
        visible = price if kind == "agreeing" else shown
        body = (f"<h1>{product.name}</h1><p>Now {product.currency} {visible}</p><p>{_stock(product.availability)}."
                f" SKU {product.sku}</p>{filler}")  # fmt: skip
    elif kind == "tables_prose":
        body = (f"<h1>{product.name}</h1>{filler}<table><tr><th>Price</th><td>{price}</td></tr>"
                f"<tr><th>Currency</th><td>{product.currency}</td></tr></table>"
                f"<dl><dt>SKU</dt><dd>{product.sku}</dd><dt>Shipping weight</dt><dd>{product.weight}</dd></dl>"
                f"<p>Availability: {_stock(product.availability)}, ships tomorrow.</p>")  # fmt: skip
    else:
        raise ValueError(f"unknown kind {kind!r}")
    title = f"<title>{product.name}</title>"
    return f"<!doctype html><html><head>{title}{head}</head><body><main>{body}</main></body></html>"

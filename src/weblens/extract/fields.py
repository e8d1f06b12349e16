"""The schema's fields, checked, and which markup value answers which field.

A field is matched by its name, by the schema.org property it usually carries
(`currency` -> `priceCurrency`), or by a schema.org property its description names. A
value is then coerced to the field's type (numbers as written on pages, schema.org
enumeration URLs to the field's enum), or dropped when it does not fit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import jsonschema

from weblens.errors import ToolValidationError
from weblens.extract.markup import Candidate
from weblens.extract.numbers import parse_number

__all__ = ["MAX_FIELDS", "MAX_SCHEMA_CHARS", "FieldSpec", "coerce", "fields_of", "matches", "norm"]

MAX_SCHEMA_CHARS = 20_000
MAX_FIELDS = 50
_SCALARS = ("string", "number", "integer", "boolean")
# field name (normalised) -> schema.org properties that usually carry it
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "title": ("name", "headline", "title"),
    "name": ("name", "headline", "title"),
    "productname": ("name",),
    "currency": ("pricecurrency", "currency"),
    "price": ("price", "lowprice", "amount"),
    "instock": ("availability",),
    "stock": ("availability",),
    "author": ("author", "creator"),
    "authors": ("author", "creator"),
    "date": ("datepublished", "startdate", "dateposted", "date"),
    "published": ("datepublished", "publishedtime"),
    "publishedat": ("datepublished", "publishedtime"),
    "publisheddate": ("datepublished", "publishedtime"),
    "startdate": ("startdate",),
    "location": ("location", "address"),
    "venue": ("location",),
    "rating": ("ratingvalue",),
    "reviews": ("reviewcount", "ratingcount"),
    "reviewcount": ("reviewcount", "ratingcount"),
    "salary": ("basesalary",),
    "company": ("hiringorganization", "organization", "publisher"),
    "image": ("image",),
    "brand": ("brand",),
    "sku": ("sku",),
    "description": ("description",),
}
_CARRIERS = {"name", "value", "amount", "text"}
"""A leaf that only carries its parent's value (`author.name`, `price:amount`)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def norm(name: str) -> str:
    """`priceCurrency`, `price_currency`, `Price currency:` -> `pricecurrency`."""
    return re.sub(r"[\W_]+", "", name.casefold())


def words_of(name: str) -> list[str]:
    """`priceCurrency` -> ["price", "currency"]."""
    return [w for w in re.split(r"[\W_]+", _CAMEL.sub(" ", name).casefold()) if w]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One top-level property of the schema."""

    name: str
    schema: dict[str, Any]
    types: tuple[str, ...]
    enum: tuple[Any, ...] = ()
    description: str = ""
    item_types: tuple[str, ...] = ()

    @property
    def is_array(self) -> bool:
        return "array" in self.types

    @property
    def scalar_types(self) -> tuple[str, ...]:
        return self.item_types if self.is_array else self.types

    @property
    def keys(self) -> set[str]:
        """The normalised property names that answer this field."""
        own = norm(self.name)
        keys = {own, *_SYNONYMS.get(own, ())}
        named = re.findall(r"schema\.org/(\w+)|\b([a-z]+[A-Z]\w*)\b", self.description)  # `priceCurrency`
        keys |= {norm(word) for pair in named for word in pair if word}
        if 0 < len(self.description.split()) <= 4:  # a short description is another name ("shipping weight")
            keys.add(norm(self.description))
        return keys


def _types(schema: dict[str, Any]) -> tuple[str, ...]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(k for k in kind if isinstance(k, str))
    if "enum" in schema:
        return tuple(sorted({_json_type(v) for v in schema["enum"]}))
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return tuple(t for sub in schema[key] if isinstance(sub, dict) for t in _types(sub))
    return ("object",)


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(type(value), "null")


def fields_of(schema: dict[str, Any]) -> list[FieldSpec]:
    """The schema's fields; a `validation_error` naming what is wrong with it otherwise."""
    size = len(json.dumps(schema))
    if size > MAX_SCHEMA_CHARS:
        raise ToolValidationError(f"the schema is too large: {size:,} characters (at most {MAX_SCHEMA_CHARS:,})")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "the top level"
        raise ToolValidationError(f"the schema is not valid JSON Schema at {where}: {exc.message}") from None
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, dict) or not properties:
        raise ToolValidationError('the schema must be an object with "properties" (the fields to extract)')
    if len(properties) > MAX_FIELDS:
        raise ToolValidationError(f"the schema has {len(properties)} fields; at most {MAX_FIELDS} are extracted")
    fields = []
    for name, sub in properties.items():
        sub = sub if isinstance(sub, dict) else {}
        items = sub.get("items") if isinstance(sub.get("items"), dict) else {}
        enum = sub.get("enum") or (items.get("enum") if items else None) or ()
        types = tuple(t for t in _types(sub) if t != "null") or ("string",)
        description = str(sub.get("description") or "")
        fields.append(FieldSpec(name=name, schema=sub, types=types, enum=tuple(enum), description=description,
                                item_types=_types(items) if items else ()))  # fmt: skip
    return fields


def matches(field: FieldSpec, candidate: Candidate) -> bool:
    """Whether the candidate's property (or its parent's, for `author.name`) is one the field answers to."""
    keys = field.keys
    leaf = norm(candidate.path[-1])
    if leaf in keys:
        return True
    if len(candidate.path) > 1:
        parent = norm(candidate.path[-2])
        if leaf in _CARRIERS and parent in keys:
            return True
        if norm(candidate.path[-2] + candidate.path[-1]) in keys:  # `price:currency` -> pricecurrency
            return True
    return False


def _enum_value(field: FieldSpec, value: Any) -> Any:
    """The enum member `value` names: `https://schema.org/InStock` -> `in_stock` / `InStock`."""
    wanted = norm(str(value).rstrip("/").rsplit("/", 1)[-1])
    for member in field.enum:
        if norm(str(member)) == wanted:
            return member
    return None


def _scalar(field: FieldSpec, value: Any) -> Any:
    types = field.scalar_types
    if field.enum:
        return _enum_value(field, value)
    if isinstance(value, bool):
        return value if "boolean" in types else None
    if "number" in types or "integer" in types:
        number = value if isinstance(value, int | float) else parse_number(str(value))
        if number is None:
            return None
        if isinstance(number, Decimal):
            number = int(number) if number == number.to_integral_value() else float(number)
        if "integer" in types and "number" not in types:
            return int(number) if float(number).is_integer() else None
        return number
    if "boolean" in types:
        text = str(value).strip().casefold()
        if text.rsplit("/", 1)[-1] in ("true", "yes", "instock"):
            return True
        if text.rsplit("/", 1)[-1] in ("false", "no", "outofstock", "soldout"):
            return False
        return None
    if "string" in types:
        text = str(value)
        return text.rsplit("/", 1)[-1] if text.startswith(("http://schema.org/", "https://schema.org/")) else text
    return None


def coerce(field: FieldSpec, values: list[Any]) -> Any:
    """The field's value from the markup values matched to it, or None when none fits its type."""
    if field.is_array:
        out: list[Any] = []
        for value in values:
            item = _scalar(field, value)
            if item is not None and item not in out:
                out.append(item)
        return out or None
    if not set(field.types) & set(_SCALARS):
        return None  # objects come from the model, not from loose markup values
    for value in values:
        item = _scalar(field, value)
        if item is not None:
            return item
    return None

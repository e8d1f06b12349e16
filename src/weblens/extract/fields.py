"""The schema's fields, checked, and which markup value answers which field.

A field is matched by its name, by the schema.org property it usually carries
(`currency` -> `priceCurrency`), or by a schema.org property its description names. A
value is then coerced to the field's type (numbers as written on pages, schema.org
enumeration URLs to the field's enum), or dropped when it does not fit.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import jsonschema

from weblens.errors import ToolValidationError
from weblens.extract.markup import Candidate
from weblens.extract.numbers import parse_number

__all__ = ["MAX_DEPTH", "MAX_FIELDS", "MAX_SCHEMA_CHARS", "FieldSpec", "coerce", "depth_of", "fields_of", "matches",
           "norm", "schema_nodes"]  # fmt: skip

MAX_SCHEMA_CHARS = 20_000
MAX_FIELDS = 50
MAX_DEPTH = 64
"""JSON nesting (objects and lists) a schema or a model's value may have: far beyond any real record,
well within what the validator's recursion can walk (a few hundred levels raise RecursionError)."""
_DEFS = ("$defs", "definitions")
_DATA_KEYWORDS = ("enum", "const", "default", "examples")
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
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*")


def norm(name: str) -> str:
    """`priceCurrency`, `price_currency`, `Price currency:` -> `pricecurrency`."""
    return re.sub(r"[\W_]+", "", name.casefold())


def words_of(name: str) -> list[str]:
    """`priceCurrency` -> ["price", "currency"]."""
    return [w for w in re.split(r"[\W_]+", _CAMEL.sub(" ", name).casefold()) if w]


@dataclasses.dataclass(frozen=True, slots=True)
class FieldSpec:
    """One top-level property of the schema."""

    name: str
    schema: dict[str, Any]
    types: tuple[str, ...]
    enum: tuple[Any, ...] = ()
    description: str = ""
    item_types: tuple[str, ...] = ()
    format: str = ""
    definitions: dict[str, Any] = dataclasses.field(default_factory=dict)
    """The schema's `$defs` (and draft-07 `definitions`), which `$ref`s in `schema` point into."""

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


def _types(schema: dict[str, Any], defs: dict[str, Any]) -> tuple[str, ...]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return (kind,)
    if isinstance(kind, list):
        return tuple(k for k in kind if isinstance(k, str))
    if "enum" in schema:
        return tuple(sorted({_json_type(v) for v in schema["enum"]}))
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return tuple(t for sub in schema[key] if isinstance(sub, dict) for t in _types(_view(sub, defs), defs))
    if "properties" in schema or "additionalProperties" in schema:
        return ("object",)
    return ("array",) if "items" in schema else ()  # no type at all: any value (`fields_of` reads it as text)


def _view(schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """What a (sub)schema asks for, seen through `$ref` and a nullable `anyOf [X, null]` (pydantic's
    `X | None`): X, with the outer keywords (description) over it."""
    for _ in range(MAX_DEPTH):  # a chain of references that loops ends here
        if not isinstance(schema, dict):
            return {}
        outer = {k: v for k, v in schema.items() if k not in ("$ref", "anyOf", "oneOf", "allOf")}
        ref = schema.get("$ref")
        branches = [b for key in ("anyOf", "oneOf", "allOf") for b in schema.get(key) or () if b != {"type": "null"}]
        if isinstance(ref, str):
            target = defs.get(_def_name(ref), {})
        elif len(branches) == 1 and isinstance(branches[0], dict):
            target = branches[0]
        else:
            return schema
        schema = {**target, **outer}
    return {}


def _def_name(ref: str) -> str:
    """`#/$defs/Address` -> `Address` (a JSON pointer's escapes undone)."""
    return unquote(ref.split("/", 2)[2]).replace("~1", "/").replace("~0", "~") if ref.count("/") >= 2 else ""


def depth_of(value: Any) -> int:
    """How deeply `value` nests lists and objects, counted without recursion (a hostile value may be deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def schema_nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every object in a schema, its data (`enum`, `const`, `default`, `examples`) left out; without recursion."""
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            yield node
            stack.extend(v for k, v in node.items() if k not in _DATA_KEYWORDS)


def _check_refs(schema: dict[str, Any], defs: dict[str, Any]) -> None:
    """Every `$ref` points into the schema's own `$defs`/`definitions`; others (remote, `#`) are refused."""
    for node in schema_nodes(schema):
        ref = node.get("$ref")
        if isinstance(ref, str) and not (ref.startswith(("#/$defs/", "#/definitions/")) and _def_name(ref) in defs):
            raise ToolValidationError(
                f"the schema's $ref {ref[:200]!r} does not point to one of its own $defs "
                "(only references into its $defs or definitions are supported)"
            )


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(type(value), "null")


def fields_of(schema: dict[str, Any]) -> list[FieldSpec]:
    """The schema's fields; a `validation_error` naming what is wrong with it otherwise."""
    if depth_of(schema) > MAX_DEPTH:
        raise ToolValidationError(f"the schema is nested too deeply (more than {MAX_DEPTH} levels)")
    size = len(json.dumps(schema))
    if size > MAX_SCHEMA_CHARS:
        raise ToolValidationError(f"the schema is too large: {size:,} characters (at most {MAX_SCHEMA_CHARS:,})")
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "the top level"
        raise ToolValidationError(f"the schema is not valid JSON Schema at {where}: {exc.message}") from None
    defs = {name: sub for key in reversed(_DEFS) if isinstance(schema.get(key), dict)
            for name, sub in schema[key].items()}  # fmt: skip
    _check_refs(schema, defs)
    if "properties" not in schema:
        schema = _view(schema, defs)  # pydantic writes a recursive model as a `$ref` to its definition
    properties = schema.get("properties")
    if schema.get("type", "object") != "object" or not isinstance(properties, dict) or not properties:
        raise ToolValidationError('the schema must be an object with "properties" (the fields to extract)')
    if len(properties) > MAX_FIELDS:
        raise ToolValidationError(f"the schema has {len(properties)} fields; at most {MAX_FIELDS} are extracted")
    fields = []
    definitions = {k: _refs_to_defs(v) for k, v in defs.items()}
    for name, sub in properties.items():
        sub = _refs_to_defs(sub) if isinstance(sub, dict) else {}
        view = _view(sub, defs)
        items = _view(view.get("items"), defs) if isinstance(view.get("items"), dict) else {}
        enum = view.get("enum") or (items.get("enum") if items else None) or ()
        types = tuple(t for t in _types(view, defs) if t != "null") or ("string",)
        description = str(view.get("description") or "")
        fields.append(FieldSpec(name=name, schema=sub, types=types, enum=tuple(enum), description=description,
                                item_types=_types(items, defs) if items else (), format=str(view.get("format") or ""),
                                definitions=definitions))  # fmt: skip
    return fields


def _refs_to_defs(schema: Any) -> Any:
    """A copy whose draft-07 `#/definitions/X` references read `#/$defs/X`, where `definitions` are kept."""
    if isinstance(schema, list):
        return [_refs_to_defs(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    out = {k: (v if k in _DATA_KEYWORDS else _refs_to_defs(v)) for k, v in schema.items()}
    if isinstance(ref, str) and ref.startswith("#/definitions/"):
        out["$ref"] = "#/$defs/" + ref.removeprefix("#/definitions/")
    return out


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
        if field.format == "date" and _ISO_DATE_TIME.fullmatch(text.strip()):
            return text.strip()[:10]  # `datePublished` is mostly a date-time; the field asks for the day
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

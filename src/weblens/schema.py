"""Turn one params model into each model API's tool declaration.

The dialects differ in what they reject: Gemini refuses `$ref`, `additionalProperties`
and titles; OpenAI strict mode wants every property required (optional ones become
nullable) and `additionalProperties: false` on every object. Everything starts from
the pydantic JSON schema, so the declarations never drift apart.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from weblens.tool import Tool

__all__ = [
    "DIALECTS",
    "close_objects",
    "compact_schema",
    "export",
    "gemini_schema",
    "inline_refs",
    "is_open",
    "is_recursive",
    "strict_schema",
    "without_absent",
]

Schema = dict[str, Any]

_NOISE = ("title",)
_OPENAI_STRICT_UNSUPPORTED = ("default", "minLength", "maxLength", "format")
_GEMINI_UNSUPPORTED = ("additionalProperties", "default", "$schema", "exclusiveMinimum", "exclusiveMaximum")


_MAP_KEYS = ("properties", "$defs", "patternProperties")
_LIST_KEYS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NODE_KEYS = ("items", "additionalProperties", "not")


def _walk(node: Any, fn: Callable[[Schema], None]) -> None:
    """Apply `fn` to every schema node (never to a `properties` map itself)."""
    if not isinstance(node, dict):
        return
    fn(node)
    for key in _MAP_KEYS:
        for child in (node.get(key) or {}).values():
            _walk(child, fn)
    for key in _LIST_KEYS:
        for child in node.get(key) or []:
            _walk(child, fn)
    for key in _NODE_KEYS:
        _walk(node.get(key), fn)


def _drop(keys: tuple[str, ...]) -> Callable[[Schema], None]:
    def drop(node: Schema) -> None:
        for key in keys:
            node.pop(key, None)

    return drop


def _default_into_description(node: Schema) -> None:
    if "default" in node and node["default"] is not None:
        note = f"(default: {json.dumps(node['default'], ensure_ascii=False)})"
        node["description"] = f"{node['description']} {note}" if node.get("description") else note


def _is_model_object(node: Schema) -> bool:
    return node.get("type") == "object" and "properties" in node


def is_open(schema: Schema) -> bool:
    """True when some object in `schema` declares that it takes properties it does not name."""
    found: list[bool] = []
    _walk(schema, lambda node: found.append(_is_model_object(node) and node.get("additionalProperties") is True))
    return any(found)


def close_objects(schema: Schema) -> Schema:
    """A copy of `schema` whose objects say `additionalProperties: false` unless they already say otherwise."""

    def close(node: Schema) -> None:
        if _is_model_object(node):
            node.setdefault("additionalProperties", False)

    out = copy.deepcopy(schema)
    _walk(out, close)
    return out


def inline_refs(schema: Schema) -> Schema:
    """A copy of `schema` with every local `$ref` replaced by its definition."""
    defs = schema.get("$defs", {})

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in seen:  # recursive model: stop instead of looping forever
                return {"type": "object", "description": f"(recursive {name})"}
            merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return resolve(merged, (*seen, name))
        return {k: resolve(v, seen) for k, v in node.items() if k != "$defs"}

    result: Schema = resolve(schema, ())
    return result


def _ref_names(schema: Schema) -> set[str]:
    """The `$defs` names that `schema` refers to, at any depth."""
    refs: list[Any] = []
    _walk(schema, lambda node: refs.append(node.get("$ref")))
    return {ref.removeprefix("#/$defs/") for ref in refs if isinstance(ref, str) and ref.startswith("#/$defs/")}


def is_recursive(schema: Schema) -> bool:
    """True when some definition in `schema` refers to itself, directly or through others."""
    edges = {name: _ref_names(node) for name, node in (schema.get("$defs") or {}).items()}

    def cycles(name: str, path: tuple[str, ...]) -> bool:
        return any(nxt in path or cycles(nxt, (*path, nxt)) for nxt in edges.get(name, ()))

    return any(cycles(name, (name,)) for name in edges)


def _nullable_branch(prop: Any) -> Schema | None:
    """X when `prop` is `anyOf [X, null]` (in either order), else None."""
    options = prop.get("anyOf") if isinstance(prop, dict) else None
    if not (isinstance(options, list) and len(options) == 2 and {"type": "null"} in options):
        return None
    other = options[0] if options[1] == {"type": "null"} else options[1]
    return other if isinstance(other, dict) else None


def _absent_when_null(node: Schema) -> None:
    props = node.get("properties")
    if not isinstance(props, dict):
        return
    required = set(node.get("required") or ())
    for name, prop in list(props.items()):
        other = _nullable_branch(prop)
        if other is None or name in required or "default" not in prop or prop["default"] is not None:
            continue
        outer = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
        props[name] = {**other, **outer}  # the outer description says more than the inner one


def compact_schema(schema: Schema) -> Schema:
    """A copy of `schema` with fewer subschemas, for MCP output schemas: local refs inlined
    (unless recursive), and an optional property whose default is null, `anyOf [X, null]`,
    written X: such a null is sent as an absent property (`without_absent`), which says the same.
    Every other nullable stays `anyOf [X, null]`, never `type: [X, "null"]`.

    A client compiles each tool's outputSchema once per session, and jsonschema's 2020-12
    metaschema costs ~0.2 ms of CPU per subschema (web_search's: 8 → 5 ms); some clients also
    fail on `$ref` in an outputSchema, and clients that map schemas onto a single-`type`
    dialect (Gemini's) refuse or drop type lists (the MCP Inspector warns about them)."""
    out = copy.deepcopy(schema) if is_recursive(schema) else inline_refs(schema)
    _walk(out, _absent_when_null)
    return out


_CONSTRAINTS = frozenset({"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref"})
_JSON_TYPES: tuple[tuple[type, tuple[str, ...]], ...] = (
    (bool, ("boolean",)),
    (int, ("integer", "number")),
    (float, ("number",)),
    (str, ("string",)),
    (list, ("array",)),
    (dict, ("object",)),
)


def _accepts_null(schema: Schema) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (schema.get("enum") or ()) or ("const" in schema and schema["const"] is None):
        return True
    options = [o for o in (schema.get("anyOf") or schema.get("oneOf") or ()) if isinstance(o, dict)]
    return any(_accepts_null(o) for o in options) or not (_CONSTRAINTS & set(schema))


def _resolve(schema: Any, root: Schema) -> Schema:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return {**root.get("$defs", {}).get(ref.removeprefix("#/$defs/"), {}), **schema}
    return schema if isinstance(schema, dict) else {}


def _branch_for(instance: Any, schema: Schema, root: Schema) -> Schema:
    """The `anyOf` branch of `schema` that `instance`'s JSON type selects (or `schema` itself)."""
    options = schema.get("anyOf")
    if not isinstance(options, list):
        return schema
    names = next((names for kind, names in _JSON_TYPES if isinstance(instance, kind)), ())
    for option in options:
        branch = _resolve(option, root)
        if branch.get("type") in names:
            return branch
    return schema


def without_absent(instance: Any, schema: Schema, root: Schema | None = None) -> Any:
    """`instance` without the nulls that `compact_schema` writes as absent properties (a copy;
    the instance itself is not changed): what is sent against a compact schema."""
    root = schema if root is None else root
    schema = _branch_for(instance, _resolve(schema, root), root)
    if isinstance(instance, list):
        items = schema.get("items")
        return [without_absent(item, items, root) for item in instance] if isinstance(items, dict) else instance
    if not isinstance(instance, dict):
        return instance
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    others = schema.get("additionalProperties")
    out: dict[str, Any] = {}
    for key, value in instance.items():
        sub = props.get(key, others)
        if not isinstance(sub, dict):
            out[key] = value
        elif value is None and key in props and key not in required and not _accepts_null(_resolve(sub, root)):
            continue
        else:
            out[key] = without_absent(value, sub, root)
    return out


def _nullable_for_gemini(node: Schema) -> None:
    options = node.get("anyOf")
    if isinstance(options, list):
        rest = [o for o in options if o != {"type": "null"}]
        if len(rest) < len(options):
            node["nullable"] = True
            if len(rest) == 1:
                node.pop("anyOf")
                for key, value in rest[0].items():
                    node.setdefault(key, value)
            else:
                node["anyOf"] = rest
    if "const" in node:
        node["enum"] = [node.pop("const")]


def gemini_schema(schema: Schema) -> Schema:
    """Gemini-safe: refs inlined, no additionalProperties, no titles, nullable instead of null."""
    out = inline_refs(schema)
    _walk(out, _default_into_description)
    _walk(out, _nullable_for_gemini)
    _walk(out, _drop(_GEMINI_UNSUPPORTED + _NOISE))
    return out


def _make_nullable(prop: Schema) -> Schema:
    if "anyOf" in prop:
        if {"type": "null"} not in prop["anyOf"]:
            prop["anyOf"].append({"type": "null"})
        return prop
    kind = prop.get("type")
    if isinstance(kind, str):
        prop["type"] = [kind, "null"]
        if "enum" in prop and None not in prop["enum"]:
            prop["enum"].append(None)
        return prop
    if isinstance(kind, list):
        if "null" not in kind:
            kind.append("null")
        return prop
    return {"anyOf": [prop, {"type": "null"}]}


def _strict_object(node: Schema) -> None:
    if node.get("type") != "object" and "properties" not in node:
        return
    props: dict[str, Schema] = node.setdefault("properties", {})
    required = set(node.get("required", []))
    for name, prop in list(props.items()):
        if name not in required:
            props[name] = _make_nullable(prop)
    node["required"] = list(props)
    node["additionalProperties"] = False


def strict_schema(schema: Schema) -> Schema:
    """OpenAI strict mode: all properties required, optional ones nullable, closed objects."""
    out = copy.deepcopy(schema)
    _walk(out, _default_into_description)
    _walk(out, _drop(_OPENAI_STRICT_UNSUPPORTED + _NOISE))
    _walk(out, _strict_object)
    return out


def _plain(schema: Schema) -> Schema:
    out = copy.deepcopy(schema)
    _walk(out, _drop(_NOISE))
    return out


def _openai(tool: Tool[Any], strict: bool) -> Schema:
    params = strict_schema(tool.json_schema) if strict else _plain(tool.json_schema)
    function: Schema = {"name": tool.name, "description": tool.description, "parameters": params}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _mcp(tool: Tool[Any]) -> Schema:
    declared: Schema = {
        "name": tool.name,
        "description": tool.description,
        # compact too: Cursor refuses every tool of a server when one inputSchema holds `anyOf`, and
        # an optional argument sent as null means its default anyway (`Tool.validate`)
        "inputSchema": compact_schema(_plain(tool.json_schema)),
    }
    if tool.output_schema is not None:
        declared["outputSchema"] = compact_schema(_plain(tool.output_schema))
    return declared


_EXPORTERS: dict[str, Callable[[Tool[Any]], Schema]] = {
    "json": lambda t: {"name": t.name, "description": t.description, "parameters": t.json_schema},
    "openai": lambda t: _openai(t, strict=False),
    "openai-strict": lambda t: _openai(t, strict=True),
    "anthropic": lambda t: {
        "name": t.name,
        "description": t.description,
        "input_schema": _plain(t.json_schema),
    },
    "gemini": lambda t: {
        "name": t.name,
        "description": t.description,
        "parameters": gemini_schema(t.json_schema),
    },
    "mcp": _mcp,
}
DIALECTS: tuple[str, ...] = tuple(_EXPORTERS)


def export(tool: Tool[Any], dialect: str) -> Schema:
    """`tool`'s declaration in `dialect` (one of `DIALECTS`)."""
    try:
        exporter = _EXPORTERS[dialect]
    except KeyError:
        raise ValueError(f"unknown schema dialect {dialect!r}; choose one of {', '.join(DIALECTS)}") from None
    return exporter(tool)

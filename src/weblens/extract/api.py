"""`weblens.extract(url, schema=...)`: the library call, usable without any Tool."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ValidationError

from weblens.config import Settings, get_settings
from weblens.errors import ToolValidationError
from weblens.extract.extractor import Extraction, SlotError, extract_many, extract_page, model_from
from weblens.fetch.fetcher import Fetcher
from weblens.llm import ChatModel

__all__ = ["extract", "json_schema_of"]

Schema = dict[str, Any] | type[BaseModel]


def json_schema_of(schema: Schema) -> dict[str, Any]:
    """A pydantic model class's JSON Schema, or the dict as given."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, dict):
        return schema
    raise ToolValidationError("schema must be a JSON Schema object or a pydantic model class")


@contextlib.asynccontextmanager
async def _parts(
    settings: Settings, fetcher: Fetcher | None, model: ChatModel | None
) -> AsyncIterator[tuple[Fetcher, ChatModel | None, str | None]]:
    """The fetcher and model given, or ones built from settings for this call and closed after it."""
    async with contextlib.AsyncExitStack() as stack:
        if fetcher is None:
            fetcher = await stack.enter_async_context(Fetcher.from_settings(settings))
        hint = None
        if model is None:
            model, hint = model_from(settings)
            if model is not None:
                stack.push_async_callback(model.aclose)
        yield fetcher, model, hint


async def extract(
    url: str | list[str],
    *,
    schema: Schema,
    instructions: str | None = None,
    strict: bool = False,
    settings: Settings | None = None,
    fetcher: Fetcher | None = None,
    model: ChatModel | None = None,
) -> Any:
    """The schema's fields from `url`: an `Extraction` (`.data`, `.fields` with provenance, and
    `.instance` when `schema` is a pydantic model and the data validates). A list of URLs (1–10)
    gives a list, a failing URL a `SlotError` in its place. Pass `fetcher=runtime.fetcher` to share
    a runtime's client and cache; the model is `WEBLENS_LLM_*` unless `model` is given.
    """
    as_dict = json_schema_of(schema)
    async with _parts(settings or get_settings(), fetcher, model) as (using, chat, hint):
        options: dict[str, Any] = {"model": chat, "instructions": instructions, "strict": strict,
                                   "not_configured": hint}  # fmt: skip
        if isinstance(url, str):
            results: list[Extraction | SlotError] = [await extract_page(using, url, as_dict, **options)]
        else:
            results = await extract_many(using, list(url), as_dict, **options)
    if isinstance(schema, type):
        for result in results:
            if isinstance(result, Extraction) and not result.schema_errors:
                try:
                    result._instance = schema.model_validate(result.data)
                except ValidationError as exc:  # the model checks more than its JSON Schema says (a date's form)
                    result.schema_errors = [f"{'/'.join(map(str, e['loc'])) or 'data'}: {e['msg']}"
                                            for e in exc.errors()][:20]  # fmt: skip
    return results[0] if isinstance(url, str) else results

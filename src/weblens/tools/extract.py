"""`web_extract`: a JSON Schema's fields from 1–10 pages, each value with its source and the page text that shows it."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from weblens.context import ToolContext
from weblens.extract import MAX_URLS, Extraction, SlotError, extract_many, model_from
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.tool import Tool
from weblens.tools.fetch import untrusted_block

__all__ = ["EXTRACT_FACTORIES", "ExtractOutput", "ExtractParams", "WebExtract", "render_extractions"]

DESCRIPTION = (
    "Extract typed fields (a JSON Schema) from one web page (url) or several (urls, up to 10): e.g. a "
    "product's price and availability, an event's date, a job's salary. Values come from the page's own "
    "markup (JSON-LD, microdata, RDFa, OpenGraph, tables) first, then from the configured model; every value "
    "is checked against the page's visible text and reported with its source, evidence and verified flag. "
    "strict=true returns null for values that could not be verified."
)
_QUOTE_CHARS = 120
_MODEL_MARGIN_S = 60.0
"""On top of the fetch timeout: up to four model calls (fallbacks and a repair round)."""


class ExtractParams(BaseModel):
    url: str | None = Field(default=None, description="The http(s) URL to read")
    urls: list[str] | None = Field(default=None, min_length=1, max_length=MAX_URLS,
                                   description=f"Several URLs (1-{MAX_URLS}) read at once, instead of url")  # fmt: skip
    schema_: dict[str, Any] = Field(
        alias="schema", description='JSON Schema of an object whose "properties" are the fields to extract'
    )
    instructions: str | None = Field(default=None, max_length=2_000, description="What to look for, for the model")
    strict: bool = Field(default=False, description="Return null for any value not found in the page's visible text")

    model_config = {"populate_by_name": True}

    @model_validator(mode="after")
    def _one_of(self) -> ExtractParams:
        if (self.url is None) == (self.urls is None):
            raise ValueError("give either url or urls")
        return self


class ExtractOutput(BaseModel):
    results: list[Extraction | SlotError]


def _field_line(name: str, extraction: Extraction) -> str:
    result = extraction.fields[name]
    value = json.dumps(result.value, ensure_ascii=False)
    where = ", ".join(f'"{e.quote[:_QUOTE_CHARS]}" at {e.start}-{e.end}' for e in result.evidence)
    state = f"verified: {where}" if result.verified else "NOT verified"
    note = f" ({result.note})" if result.note else ""
    return f"- {name}: {value} [{result.source or 'none'}; {state}]{note}"


def render_extractions(results: list[Extraction | SlotError]) -> str:
    """What the model reads: per page, the data, then each field's provenance, the page's words fenced."""
    blocks = []
    for result in results:
        if isinstance(result, SlotError):
            blocks.append(f"## {result.url}\nerror {result.code}: {result.message}")
            continue
        lines = [json.dumps(result.data, ensure_ascii=False), "", *(_field_line(n, result) for n in result.fields)]
        if result.hint:  # it may quote what the model said, which the page may have written
            lines += ["", f"note: {result.hint}"]
        head = f"## {result.final_url}"
        if result.missing:
            head += f"\nmissing: {', '.join(result.missing)}"
        blocks.append(head + "\n" + untrusted_block("\n".join(lines), "the extracted page"))
    return "\n\n".join(blocks)


class WebExtract(Tool[ExtractParams]):
    """The extract library behind the tool contract; the model is the configured one, when there is one."""

    name = "web_extract"
    description = DESCRIPTION
    params = ExtractParams
    output = ExtractOutput
    key_param: ClassVar[str | None] = "url"

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(timeout=runtime.settings.fetch.timeout + _MODEL_MARGIN_S)
        self._runtime = runtime

    async def run(self, params: ExtractParams, ctx: ToolContext) -> ToolResult:
        urls = params.urls if params.urls is not None else [params.url or ""]
        model, hint = model_from(self._runtime.settings)
        try:
            results = await extract_many(self._runtime.fetcher, urls, params.schema_, model=model,
                                         instructions=params.instructions, strict=params.strict,
                                         not_configured=hint)  # fmt: skip
        finally:
            if model is not None:
                await model.aclose()
        done = [r for r in results if isinstance(r, Extraction)]
        if len(results) == 1 and isinstance(results[0], SlotError):
            return ToolResult.failure(results[0].code, results[0].message)  # type: ignore[arg-type]
        fields = sum(len(r.fields) for r in done)
        verified = sum(f.verified for r in done for f in r.fields.values())
        return ToolResult.success(
            render_extractions(results),
            data=ExtractOutput(results=results).model_dump(mode="json"),
            sources=[Source(title=r.final_url, url=r.final_url) for r in done],
            brief=f"{len(done)}/{len(results)} pages, {verified}/{fields} values verified",
        )


def _extract(runtime: Runtime) -> Tool[Any]:
    return WebExtract(runtime)


EXTRACT_FACTORIES = [_extract]

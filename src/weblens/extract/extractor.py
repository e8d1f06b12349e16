"""`extract(url, schema)`: typed fields from a page, markup first, the model for the rest, every value checked.

The page comes through the fetcher (guard, policy, robots, cache) as its raw HTML, once;
its visible text is read from that HTML in a worker, as `fetch` reads pages.
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, Field, PrivateAttr

from weblens.errors import NotConfiguredError, ToolTimeoutError, ToolValidationError, WeblensError
from weblens.extract.fields import FieldSpec, coerce, fields_of, matches
from weblens.extract.markup import Candidate, read_html
from weblens.extract.model import ModelAnswer, ask_model
from weblens.extract.verify import Evidence, PageText, find_evidence
from weblens.fetch.document import Document
from weblens.fetch.fetcher import Fetcher
from weblens.fetch.html import SHELL_VISIBLE_CHARS, wall_error
from weblens.fetch.reading import read_page
from weblens.llm import ChatModel
from weblens.workers import WorkerCrashedError, WorkerTimeoutError

__all__ = ["MAX_URLS", "Extraction", "FieldResult", "SlotError", "extract_many", "extract_page", "model_from"]

MAX_URLS = 10
MODEL_TOKEN_BUDGET = 1_500
"""At most this many tokens (o200k) of passages go to the model for the missing fields..."""
TOKENS_PER_FIELD = 250
"""...and this many per field asked: a field rarely needs more than a passage or two."""
Source = Literal["json-ld", "microdata", "rdfa", "opengraph", "table", "model"]


class FieldResult(BaseModel):
    """One field: its value, where it came from, the page text that shows it, and whether it was found there."""

    value: Any = None
    source: Source | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    verified: bool = False
    note: str | None = None
    """Why a value is unverified or null, or how markup and visible text disagree."""


class Extraction(BaseModel):
    """The fields of one page, as data (`data`) and with their provenance (`fields`)."""

    url: str
    final_url: str
    data: dict[str, Any]
    fields: dict[str, FieldResult]
    missing: list[str] = Field(default_factory=list)
    """Fields with no value."""
    schema_errors: list[str] = Field(default_factory=list)
    """Where `data` does not validate against the schema (a required field missing, ...)."""
    model: str | None = None
    """How the model was asked (`json_schema`, `tool_call`, `text`), when it was."""
    model_tokens: int = 0
    """Tokens of page text sent to the model."""
    hint: str | None = None
    _instance: Any = PrivateAttr(default=None)

    @property
    def instance(self) -> Any:
        """The pydantic model instance, when the schema was a model class and the data validates."""
        return self._instance


class SlotError(BaseModel):
    """One URL of many that failed: its typed error, in its place."""

    url: str
    code: str
    message: str


def _main_item(fields: list[FieldSpec], candidates: list[Candidate]) -> str | None:
    """The item type that answers most of the schema's fields (`Product`, not the `Organization` beside it);
    of types answering as many, the first the page declares (a set here made the choice differ run to run)."""
    answers: Counter[str] = Counter()
    for field in fields:
        answers.update(dict.fromkeys((c.path[0] for c in candidates if len(c.path) > 1 and matches(field, c)), 1))
    return answers.most_common(1)[0][0] if answers else None


def _from_markup(field: FieldSpec, candidates: list[Candidate], page: PageText, main: str | None) -> FieldResult | None:
    """The best markup value for the field: the first one the page shows, else the first at all (flagged)."""
    first: FieldResult | None = None
    for source in ("json-ld", "microdata", "rdfa", "opengraph", "table"):
        # the main item's own property (`Product.name`) before another's or a nested one's (`Product.brand.name`)
        found = sorted((c for c in candidates if c.source == source and matches(field, c)),
                       key=lambda c: (c.path[0] != main, len(c.path)))  # fmt: skip
        values = [c.value for c in found]
        value = coerce(field, values) if values else None
        if value is None:
            continue
        evidence = find_evidence(page, field, value)
        result = FieldResult(value=value, source=source, evidence=evidence or [], verified=evidence is not None)
        if evidence is not None:
            if first is not None and first.value != value:
                result.note = f"the {first.source} markup says {first.value!r}, which the visible text does not show"
            return result
        first = first or result
    if first is not None:
        first.note = f"the {first.source} markup says {first.value!r}, but the page's visible text does not show it"
    return first


async def _read(fetcher: Fetcher, raw: Document) -> tuple[list[Candidate], str, str | None]:
    """(markup values, visible text, the kind of wall it is) of a raw HTML document, read in a worker."""
    limit = fetcher.settings.fetch.extract_timeout
    try:
        return await fetcher.workers.run(functools.partial(read_html, raw.content), timeout=limit)
    except WorkerTimeoutError:
        raise ToolTimeoutError(f"reading the markup of {raw.final_url} took longer than {limit:g} s, so it was "
                               "stopped", retryable=False) from None  # fmt: skip
    except WorkerCrashedError as exc:
        raise WeblensError(f"reading the markup of {raw.final_url}: {exc.message}") from None


def _is_shell(raw: Document, candidates: list[Candidate], visible: str) -> bool:
    """A page whose scripts write its content: next to no text, no markup values, and scripts."""
    return not candidates and len(visible.strip()) < SHELL_VISIBLE_CHARS and "<script" in raw.content.lower()


async def _page(fetcher: Fetcher, url: str) -> tuple[Document, list[Candidate], str]:
    """(document, markup values, visible text) through the one guarded fetch path; the page is read in a worker.

    A page that is an empty JavaScript shell is read again as a browser renders it (the rendering
    tier, behind the same guard) when a browser is available; else the plain read stands."""
    raw, _ = await fetcher.document(url, raw=True)
    if not raw.content_type.startswith(("text/html", "application/xhtml")):
        return raw, [], raw.content
    candidates, text, wall = await _read(fetcher, raw)
    if _is_shell(raw, candidates, text):
        try:
            raw, _ = await fetcher.document(url, raw=True, render="always")
            candidates, text, wall = await _read(fetcher, raw)
        except NotConfiguredError:
            pass  # no browser here: the plain read, as web_fetch's auto does
    if wall is not None:  # as web_fetch reports it: the site's check, not a page without the fields
        raise wall_error(wall, raw.final_url)
    return raw, candidates, text


def _query(fields: list[FieldSpec]) -> str:
    return " ".join(f"{f.name.replace('_', ' ')} {f.description}" for f in fields)[:900]


async def extract_page(
    fetcher: Fetcher,
    url: str,
    schema: dict[str, Any],
    *,
    model: ChatModel | None,
    instructions: str | None = None,
    strict: bool = False,
    not_configured: str | None = None,
) -> Extraction:
    """One page's fields; see the module docstring. `not_configured` says how to set a model up when there is none."""
    fields = fields_of(schema)
    document, candidates, visible = await _page(fetcher, url)
    page = PageText(visible)
    results: dict[str, FieldResult] = {}
    main = _main_item(fields, candidates)
    for spec in fields:
        found = _from_markup(spec, candidates, page, main)
        results[spec.name] = found or FieldResult(note="no markup on the page gives this field")
    extraction = Extraction(url=url, final_url=document.final_url, data={}, fields=results)
    ask = [f for f in fields if not results[f.name].verified]
    if ask and model is not None:
        token_budget = min(MODEL_TOKEN_BUDGET, TOKENS_PER_FIELD * (len(ask) + 1))
        text_doc = Document(url=url, final_url=document.final_url, status=document.status,
                            content_type="text/markdown", content=visible, extractor="web_extract",
                            total_length=len(visible))  # fmt: skip
        counter = await fetcher.tokenizer()
        passages = await asyncio.to_thread(
            functools.partial(read_page, text_doc, False, start_index=0, max_length=None, default_length=len(visible),
                              query=_query(ask), max_tokens=token_budget, query_tokens=token_budget, counter=counter)
        )  # fmt: skip
        try:
            answer = await ask_model(model, ask, passages.content, instructions)
        except WeblensError as exc:  # the markup's values stand, as with no model at all
            answer = ModelAnswer(problems=[f"the model could not be asked ({exc.code}: {exc.message})"])
        extraction.model = answer.mode or None
        extraction.model_tokens = counter.count(passages.content)
        for spec in ask:
            value = answer.values.get(spec.name)
            if value is None:
                continue
            evidence = find_evidence(page, spec, value)
            before = results[spec.name]
            if evidence is None and before.value is not None:
                continue  # an unshown markup value stays; the model's unshown one adds nothing
            note = ("the model's value is not in the page's visible text (possibly invented)" if evidence is None
                    else (f"the {before.source} markup says {before.value!r}; the page shows {value!r}"
                          if before.value is not None and before.value != value else None))  # fmt: skip
            results[spec.name] = FieldResult(value=value, source="model", evidence=evidence or [],
                                             verified=evidence is not None, note=note)  # fmt: skip
        for problem in answer.problems:
            extraction.hint = (extraction.hint + "; " if extraction.hint else "") + problem
    elif ask and model is None and not_configured:
        extraction.hint = f"no model is configured to look for the fields the markup lacks: {not_configured}"
    for spec in fields:
        result = results[spec.name]
        if strict and result.value is not None and not result.verified:
            result.note = f"null because unverified: {result.note or 'not found in the visible text'}"
            result.value = None
            result.source = None
        if result.value is None:
            extraction.missing.append(spec.name)
        else:
            extraction.data[spec.name] = result.value
    extraction.fields = results  # pydantic copied the dict it was built with
    validator = jsonschema.validators.validator_for(schema)(schema)
    extraction.schema_errors = [f"{'/'.join(map(str, e.path)) or 'data'}: {e.message}"
                                for e in validator.iter_errors(extraction.data)][:20]  # fmt: skip
    return extraction


async def extract_many(
    fetcher: Fetcher,
    urls: list[str],
    schema: dict[str, Any],
    *,
    model: ChatModel | None,
    instructions: str | None = None,
    strict: bool = False,
    not_configured: str | None = None,
) -> list[Extraction | SlotError]:
    """Every URL at once through the same fetcher; a failing one is a `SlotError` in its place."""
    if not 1 <= len(urls) <= MAX_URLS:
        raise ToolValidationError(f"give between 1 and {MAX_URLS} URLs (got {len(urls)})")
    fields_of(schema)  # a bad schema fails the whole call once, not every slot

    async def one(url: str) -> Extraction | SlotError:
        try:
            return await extract_page(fetcher, url, schema, model=model, instructions=instructions, strict=strict,
                                      not_configured=not_configured)  # fmt: skip
        except WeblensError as exc:
            return SlotError(url=url, code=exc.code, message=exc.message)

    return list(await asyncio.gather(*(one(url) for url in urls)))


def model_from(settings: Any) -> tuple[ChatModel | None, str | None]:
    """The configured model, or None and what to set to configure one."""
    try:
        return ChatModel.from_settings(settings), None
    except NotConfiguredError as exc:
        return None, exc.message

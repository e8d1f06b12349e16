"""Crawl jobs over HTTP, behind the same guard and token as the rest of `/api/`.

`POST /api/crawls` starts one (the parameters of `web_crawl`, max_pages up to the operator's
`crawl.job_max_pages`); `GET /api/crawls/{id}` gives its progress and a page of its results
(`offset`, `limit` ≤ 100, `kind=pages|failed`), so a 3 000-page job is read in pieces;
`DELETE /api/crawls/{id}` cancels a running job (200 with the job) and removes one that ended
(204; 404 from then on); `GET /api/crawls` lists the newest.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from weblens.app.responses import error_response
from weblens.errors import ToolValidationError, UpstreamError
from weblens.redact import redact_text
from weblens.sites.jobs import CrawlJob, CrawlJobs, JobSpec
from weblens.sites.jobs.models import FINISHED

__all__ = ["CrawlApi"]

ReadJson = Callable[[Request], Awaitable[dict[str, Any]]]
DEFAULT_LIMIT = 20


def _invalid(message: str) -> JSONResponse:
    return error_response(422, "validation_error", message)


def _int_param(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or len(text) > 9:
        raise ToolValidationError(f"`{name}` must be a whole number")
    return int(text)


Handler = Callable[[Request], Awaitable[Response]]


def _unavailable_as_503(handler: Handler) -> Handler:
    """The jobs' store down (Redis unreachable) is a 503 saying so, not a 500."""

    async def handle(request: Request) -> Response:
        try:
            return await handler(request)
        except UpstreamError as exc:
            return error_response(503, exc.code, redact_text(exc.message))

    return handle


class CrawlApi:
    def __init__(self, jobs: CrawlJobs, read_json: ReadJson) -> None:
        self.jobs = jobs
        self.read_json = read_json

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/crawls", _unavailable_as_503(self.create), methods=["POST"]),
            Route("/api/crawls", _unavailable_as_503(self.list), methods=["GET"]),
            Route("/api/crawls/{job_id}", _unavailable_as_503(self.get), methods=["GET"]),
            Route("/api/crawls/{job_id}", _unavailable_as_503(self.delete), methods=["DELETE"]),
        ]

    async def create(self, request: Request) -> Response:
        body = await self.read_json(request)
        try:
            spec = JobSpec.model_validate(body)
            job = await self.jobs.create(spec)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
            return _invalid(problems)
        except ToolValidationError as exc:
            return _invalid(exc.message)
        return JSONResponse(job.model_dump(), status_code=201, headers={"Location": f"/api/crawls/{job.id}"})

    async def list(self, request: Request) -> Response:
        return JSONResponse({"crawls": [job.model_dump() for job in await self.jobs.jobs()]})

    async def get(self, request: Request) -> Response:
        job_id = request.path_params["job_id"]
        kind = request.query_params.get("kind", "pages")
        if kind not in ("pages", "failed"):
            return _invalid("`kind` must be 'pages' or 'failed'")
        try:
            offset = _int_param(request, "offset", 0)
            limit = _int_param(request, "limit", DEFAULT_LIMIT)
            job = await self.jobs.get(job_id)
            items = await self.jobs.results(job_id, kind, offset, limit)  # type: ignore[arg-type]
        except ToolValidationError as exc:
            return _invalid(exc.message)
        return JSONResponse({**job.model_dump(), "results": _page(job, kind, offset, items)})

    async def delete(self, request: Request) -> Response:
        job = await self.jobs.delete(request.path_params["job_id"])
        return Response(status_code=204) if job is None else JSONResponse(job.model_dump())


def _page(job: CrawlJob, kind: str, offset: int, items: list[dict[str, Any]]) -> dict[str, Any]:
    """One page of results; `next_offset` is None once a finished job has no more to give."""
    end = offset + len(items)
    total = job.pages if kind == "pages" else job.failed
    more = job.state not in FINISHED or end < total
    return {"kind": kind, "offset": offset, "items": items, "next_offset": end if more else None}

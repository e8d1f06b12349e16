"""The page's tools panel: run an enabled tool by name and get exactly what a model would get.

`GET /api/tools` lists the chat's enabled tools (`llm.tools`) with their input schemas;
`POST /api/tools/{name}` `{"arguments": {...}}` runs one and answers its `ToolResult`
(`ok`, `text`, `data`, `sources`, `error`, ...). A tool's own failure is a 200 with
`ok: false`, as a model would see it; only an unknown or disabled name is a 404. This
is what makes the page useful before a model is configured.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weblens.app.responses import error_response
from weblens.context import ToolContext
from weblens.toolset import Toolset

__all__ = ["PAGE_AGENT", "ToolPanel"]

PAGE_AGENT = "page"
"""The agent name tool calls from the panel carry (logs tell them from the model's)."""
ReadJson = Callable[[Request], Awaitable[dict[str, Any]]]


class ToolPanel:
    def __init__(self, toolset: Toolset, read_json: ReadJson) -> None:
        self.toolset = toolset
        self.read_json = read_json

    async def list(self, request: Request) -> JSONResponse:
        tools = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.schema("mcp")["inputSchema"]}
            for tool in self.toolset
        ]
        return JSONResponse({"tools": tools})

    async def run(self, request: Request) -> Response:
        name = request.path_params["name"]
        if self.toolset.get(name) is None:
            known = ", ".join(self.toolset.names) or "none"
            return error_response(404, "not_found", f"no enabled tool named {name!r} (enabled: {known})")
        body = await self.read_json(request)
        arguments = body.get("arguments", {})
        if not isinstance(arguments, dict):
            return error_response(400, "validation_error", "`arguments` must be a JSON object")
        result = await self.toolset.call(name, arguments, ToolContext(agent_name=PAGE_AGENT))
        return JSONResponse(result.model_dump(mode="json"))

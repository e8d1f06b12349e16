"""The page's tools panel API: run an enabled tool by name, get what a model would get."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from weblens import Settings


async def test_without_a_model_the_enabled_tools_still_run(
    serve: Callable[..., Any], make_settings: Callable[..., Settings]
) -> None:
    server = serve(make_settings(with_llm=False, llm={"tools": ["web_search"]}))
    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as http:
        status = (await http.get("/api/status")).json()
        listed = (await http.get("/api/tools")).json()["tools"]
        ran = await http.post("/api/tools/web_search", json={"arguments": {"query": "AI news"}})
        invalid = await http.post("/api/tools/web_search", json={"arguments": {}})
        unknown = await http.post("/api/tools/get_weather", json={"arguments": {"location": "Paris"}})
        not_object = await http.post("/api/tools/web_search", json={"arguments": [1]})

    assert status["chat"] is False
    assert [recipe["name"] for recipe in status["connect"]] == ["OpenAI", "Ollama", "vLLM"]
    assert [tool["name"] for tool in listed] == ["web_search"]
    assert listed[0]["input_schema"]["required"] == ["query"]
    assert ran.status_code == 200
    result = ran.json()
    assert result["ok"] is True and result["text"] == "results for AI news"  # the model's text, as is
    assert result["sources"][0] == {"title": "AI News Daily", "url": "https://news.example/ai"}
    assert invalid.status_code == 200 and invalid.json()["error"]["code"] == "validation_error"
    assert unknown.status_code == 404 and "enabled: web_search" in unknown.json()["error"]["message"]
    assert not_object.status_code == 400

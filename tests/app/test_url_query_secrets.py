"""A key in the model's base URL query string is sent to the model, and reaches neither the chat
stream nor the saved messages when the model echoes it (an unreachable model: test_url_passwords)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from weblens import Settings
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM, Turn

KEY = "llm-QueryKey-0c77e1"


async def test_a_failing_model_with_a_key_in_its_url_query_leaks_it_nowhere(
    llm: ScriptedLLM, serve: Callable[..., ServedApp], tmp_path: Path, sse: Callable[[str], Any]
) -> None:
    llm.add(Turn(status=400, error=f"api-key {KEY} has no access to this model"))  # the provider echoes it
    settings = Settings(
        data_dir=tmp_path / "data",
        cache={"enabled": False},
        llm={"base_url": f"{llm.base_url}?api-key={KEY}", "model": "scripted-model"},
    )
    server = serve(settings)

    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as client:
        response = await client.post("/api/chat", json={"message": "hello"})
        events = sse(response.text)
        saved = (await client.get(f"/api/sessions/{events[0].data['session_id']}")).text

    asked = [r.query for r in llm.server.requests if r.path.endswith("/chat/completions")]
    assert asked and asked[0].get("api-key") == KEY  # the key still reaches the model
    error = events[-1]
    assert error.event == "error" and "has no access to this model" in error.data["message"]
    assert KEY not in response.text
    assert "has no access to this model" in saved and KEY not in saved
    stored = b"".join(path.read_bytes() for path in (tmp_path / "data").rglob("*") if path.is_file())
    assert b"has no access to this model" in stored and KEY.encode() not in stored

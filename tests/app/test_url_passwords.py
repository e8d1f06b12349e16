"""A password (or a key in the query string) of the model's base URL reaches neither the chat
stream nor the sessions database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from weblens import Settings
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM, Turn

PASSWORD = "llm-Passw0rd-7f3a91"


def _with_password(url: str) -> str:
    return url.replace("http://", f"http://bob:{PASSWORD}@", 1)


async def test_a_failing_model_with_a_password_in_its_url_leaks_it_nowhere(
    llm: ScriptedLLM, serve: Callable[..., ServedApp], tmp_path: Path, sse: Callable[[str], Any]
) -> None:
    # the model names the password in its own error text, and weblens names the model's URL
    llm.add(Turn(status=400, error=f"no such user bob with password {PASSWORD}"))
    settings = Settings(
        data_dir=tmp_path / "data",
        cache={"enabled": False},
        llm={"base_url": _with_password(llm.base_url), "model": "scripted-model"},
    )
    server = serve(settings)

    async with httpx.AsyncClient(base_url=server.url(), timeout=10) as client:
        response = await client.post("/api/chat", json={"message": "hello"})
        events = sse(response.text)
        session_id = events[0].data["session_id"]
        saved = (await client.get(f"/api/sessions/{session_id}")).text

    error = events[-1]
    assert error.event == "error" and error.data["code"] == "upstream_error"
    assert "no such user bob" in error.data["message"]
    assert "bob:***@127.0.0.1" in error.data["message"]  # which model failed is still said
    assert PASSWORD not in response.text
    assert "no such user bob" in saved and PASSWORD not in saved
    stored = b"".join(path.read_bytes() for path in (tmp_path / "data").rglob("*") if path.is_file())
    assert b"no such user bob" in stored
    assert PASSWORD.encode() not in stored


SECRET_SPELLINGS = {  # (the URL with the secret, as weblens shows it)
    "userinfo": (lambda url: _with_password(url), lambda url: url.replace("http://", "http://bob:***@", 1)),
    "query": (lambda url: f"{url}?token={PASSWORD}&deployment=small", lambda url: f"{url}?token=***&deployment=small"),
}


@pytest.mark.parametrize("spelling", list(SECRET_SPELLINGS))
async def test_an_unreachable_model_with_a_secret_in_its_url_leaks_it_nowhere(
    serve: Callable[..., ServedApp], tmp_path: Path, sse: Callable[[str], Any], spelling: str
) -> None:
    with ScriptedLLM() as gone:
        url = gone.base_url  # a port nothing listens on once the server stops
    with_secret, shown = SECRET_SPELLINGS[spelling]
    settings = Settings(
        data_dir=tmp_path / "data",
        cache={"enabled": False},
        llm={"base_url": with_secret(url), "model": "scripted-model", "timeout": 5},
    )
    server = serve(settings)

    async with httpx.AsyncClient(base_url=server.url(), timeout=30) as client:
        response = await client.post("/api/chat", json={"message": "hello"})
        session_id = sse(response.text)[0].data["session_id"]
        saved = (await client.get(f"/api/sessions/{session_id}")).text

    error = sse(response.text)[-1]
    assert error.event == "error" and f"could not reach the model at {shown(url)}" in error.data["message"]
    assert PASSWORD not in response.text
    assert "could not reach the model" in saved and PASSWORD not in saved

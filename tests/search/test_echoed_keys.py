"""A provider that echoes its API key in a successful answer: the key reaches neither the model,
the structured data, the sources nor the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from weblens.runtime import Runtime
from weblens.testing.providers import ProviderFake
from weblens.tools import default_toolset

from .conftest import settings_for


@pytest.mark.parametrize("name", ["tavily", "brave", "serper"])
async def test_an_echoed_key_is_masked_in_results_and_in_the_cache(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    fake: ProviderFake = request.getfixturevalue(name)
    settings = settings_for(fake, data_dir=tmp_path, cache={"enabled": True}, search={"provider": name})
    key = fake.api_key
    fake.echo_key()

    async with Runtime(settings) as runtime:
        search = default_toolset(runtime).get("web_search")
        assert search is not None
        first = await search.execute({"query": "rain barrels"})
        again = await search.execute({"query": "rain barrels"})

    assert len(fake.requests) == 1  # the second answer came from the cache
    for result in (first, again):
        assert result.ok, result.error
        seen = result.model_dump_json()
        assert key not in seen
        assert "Signed in with ***" in result.text  # the hit itself is kept, only the key is masked
        assert any(source.url == "https://echo.example/?api_key=***" for source in result.sources)
        assert json.dumps(result.data).count("***") >= 2
    stored = b"".join(path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())
    assert b"Signed in with ***" in stored
    assert key.encode() not in stored

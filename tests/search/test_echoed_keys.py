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


@pytest.mark.parametrize("name", ["tavily", "brave", "serper"])
async def test_huge_snippets_are_cut_without_leaving_half_a_key(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Ten 200 kB snippets reached the model whole (2 MB of text from one search); each is now cut
    to 2 000 characters, and a key the provider echoed across the cut is masked, not halved."""
    fake: ProviderFake = request.getfixturevalue(name)
    key = fake.api_key
    across_the_cut = "x" * 1990 + key + "y" * 200_000  # no space near the cut: cut inside the key
    fake.answer_with(
        [{"title": "T" * 5000, "url": f"https://site{i}.example/", "snippet": across_the_cut} for i in range(10)]
    )
    settings = settings_for(fake, data_dir=tmp_path, search={"provider": name})
    async with Runtime(settings) as runtime:
        search = default_toolset(runtime).get("web_search")
        assert search is not None
        result = await search.execute({"query": "rain barrels", "max_results": 10})

    assert result.ok, result.error
    assert len(result.text) < 30_000
    assert key[: len(key) // 2] not in result.model_dump_json()
    for hit in result.data["results"]:
        assert len(hit["snippet"]) <= 2000 and hit["snippet"].endswith("…")
        assert len(hit["title"]) <= 300

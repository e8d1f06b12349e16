"""One-off calls (`weblens.search(q)`, `weblens.fetch(url)`, `weblens.get_weather(place)`)
share their parts within one event loop and close them when `asyncio.run` ends it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer
from weblens.testing.providers import FakeDuckDuckGo

SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, multiprocessing, sys, weblens

    async def main(round):
        same = await asyncio.gather(*(weblens.search("lantern festival " + round) for _ in range(10)))
        other = await asyncio.gather(*(weblens.search(f"query {round} {i}") for i in range(5)))
        pages = await asyncio.gather(*(weblens.fetch(sys.argv[1] + "?round=" + round) for _ in range(3)))
        weather = await weblens.get_weather("Beijing")
        return len(same + other), pages[0].title, weather.location.name

    for round in ("a", "b"):  # two loops, one after the other: nothing may carry over
        print(asyncio.run(main(round)))
    gc.collect()
    print("children", len(multiprocessing.active_children()))
    """
)


def test_one_off_calls_share_one_set_of_parts_per_loop_and_close_it(tmp_path: Path) -> None:
    with FakeDuckDuckGo() as ddg, PageServer() as pages, FakeOpenMeteo() as meteo:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WEBLENS_")}
        env.update(
            XDG_DATA_HOME=str(tmp_path / "data"),
            XDG_CONFIG_HOME=str(tmp_path / "config"),
            WEBLENS_DUCKDUCKGO_BASE_URL=ddg.url(),
            WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND="1000",
            WEBLENS_SEARCH_PROVIDER="duckduckgo",
            WEBLENS_FETCH_ALLOWED_HOSTS=pages.host,
            WEBLENS_WEATHER_GEOCODING_BASE_URL=meteo.url(),
            WEBLENS_WEATHER_FORECAST_BASE_URL=meteo.url(),
        )
        done = subprocess.run(
            [sys.executable, "-W", "always::ResourceWarning", "-c", SCRIPT, pages.url("/article")],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[:2] == [
            "(15, 'The Skerryvore Ledger', 'Beijing')",
            "(15, 'The Skerryvore Ledger', 'Beijing')",
        ]
        assert lines[2] == "children 0"  # the fetch workers were stopped with their loop
        for leak in ("Unclosed", "ResourceWarning", "was never retrieved", "Task was destroyed"):
            assert leak not in done.stderr, done.stderr
        # ten identical searches in one loop met in one router: one upstream request each round
        asked = [ddg.received(request)["query"] for request in ddg.requests]
        assert asked.count("lantern festival a") == 1 and asked.count("lantern festival b") == 1
        assert len(asked) == 12
        # three fetches of one page in one loop shared one fetcher (and its single-flight)
        assert pages.count("/article") == 2

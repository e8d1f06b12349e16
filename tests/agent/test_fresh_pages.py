"""The agent's web_fetch call asks for freshness like any client: the model sees max_age and
stale_if_error in the tool's schema, and reads how old a stale copy is and why it was served."""

from __future__ import annotations

from typing import Any

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.pages import PageServer
from weblens.testing.server import Reply
from weblens.tools.fetch import FetchTool


async def test_the_model_asks_for_a_fresh_page_and_is_told_it_got_a_stale_copy(llm: ScriptedLLM, ask: Any) -> None:
    with PageServer() as pages:
        url = pages.url("/timetable.txt")
        pages.route("GET", "/timetable.txt", Reply(body="last ferry 22:40", content_type="text/plain"))
        async with Runtime(settings=Settings(fetch={"allowed_hosts": [pages.host]}), cache=Cache(None)) as runtime:
            tool = FetchTool(runtime)
            assert (await tool.execute({"url": url})).ok  # read earlier: the copy in the cache
            pages.route("GET", "/timetable.txt", Reply(body="down", status=503, content_type="text/plain"))
            llm.add(
                Turn(tool_calls=[call("web_fetch", {"url": url, "max_age": 0, "stale_if_error": True})]),
                Turn(text="The last ferry leaves at 22:40, from a copy the site could not refresh [1]."),
            )
            answer = await ask(f"When is the last ferry? Check {url} now.", [tool])
    [result] = answer.results
    assert result.ok and result.outcome == "ok"
    first, second = llm.sent
    [declared] = [t["function"] for t in first["tools"] if t["function"]["name"] == "web_fetch"]
    assert {"max_age", "stale_if_error"} <= set(declared["parameters"]["properties"])
    [read] = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert "STALE COPY" in read and "HTTP 503" in read and "last ferry 22:40" in read
    assert pages.count("/timetable.txt") == 2  # the earlier read and the failed refresh, nothing more

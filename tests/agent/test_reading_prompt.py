"""The agent asks the model to read long pages for the question, and web_fetch answers with passages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from weblens.cache import Cache
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.long_pages import LONG_PAGES
from weblens.testing.pages import PageServer
from weblens.tools.fetch import FetchTool

from .conftest import Answer


async def test_the_system_prompt_asks_for_the_question_as_query_and_the_passages_go_back(
    llm: ScriptedLLM, ask: Callable[..., Awaitable[Answer]]
) -> None:
    product = LONG_PAGES[2]
    with PageServer() as pages:
        settings = Settings(fetch={"allowed_hosts": [pages.host]})
        async with Runtime(settings=settings, cache=Cache(None)) as runtime:
            arguments = {"url": pages.url(product.path), "query": product.question, "max_tokens": 800}
            llm.add(Turn(tool_calls=[call("web_fetch", arguments, id="c1")]), Turn(text="Yes, within 60 days [1]."))
            question = f"{product.question} ({pages.url(product.path)})"  # a URL the user gave may be fetched
            answer = await ask(question, tools=[FetchTool(runtime)])
    assert answer.error is None and answer.results[0].ok
    system = llm.sent[0]["messages"][0]
    assert system["role"] == "system" and "pass the user's question as web_fetch's query" in system["content"]
    tool_message = llm.sent[1]["messages"][-1]
    assert tool_message["role"] == "tool" and product.answer in tool_message["content"]
    assert "Passages for the query:" in tool_message["content"]

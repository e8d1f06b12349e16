"""What the chat API tells a user about each citation (issue 25 §3): the real server, the real
`web_fetch` reading a local page, and a scripted model misquoting it. The statuses arrive in
the `done` event and are saved with the message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from weblens import Settings
from weblens.app.server import create_app
from weblens.testing import ServedApp
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.pages import PageServer, article_html
from weblens.testing.server import Reply

PARAGRAPHS = [
    "The drug is not safe for children under twelve, the agency said on Monday.",
    "Adults may take 20 mg a day. Trials in 2019 found no serious side effects in adults.",
    "The agency will review the label again in March.",
]
ANSWER = (
    "The agency said 'the drug is safe for children under twelve' [1]. "  # dropped "not", single quotes
    "It called the drug “safe” [1]. "  # a short quote the page says only after "not"
    "Adults «may take 30 mg a day» [1]. "  # a changed number
    'It said "The drug is … safe" [1]. '  # an ellipsis that leaves out the "not"
    "The agency will review the label again in March [1]. "  # unquoted, supported
    "Bananas cure colds within hours [1].\n\n"  # unquoted, not in the page
    "In its words [1]:\n> Trials in 2019 found no serious side effects in adults.\n"  # a genuine blockquote
)
EXPECTED = [
    "quote_not_found", "quote_not_found", "quote_not_found", "quote_not_found", "cited", "unsupported", "verified",
]  # fmt: skip


async def test_misquotes_are_flagged_and_unquoted_claims_are_cited_or_unsupported(
    llm: ScriptedLLM, tmp_path: Path, sse: Callable[[str], Any]
) -> None:
    with PageServer() as pages:
        pages.route("GET", "/drug", Reply(body=article_html("Drug notice", PARAGRAPHS), content_type="text/html"))
        url = pages.url("/drug")
        settings = Settings(
            data_dir=tmp_path / "data",
            cache={"enabled": False},
            fetch={"allowed_hosts": [pages.host]},
            llm={"base_url": llm.base_url, "model": "scripted-model", "tools": ["web_fetch"]},
        )
        llm.add(Turn(tool_calls=[call("web_fetch", {"url": url})]), Turn(text=ANSWER))
        served = ServedApp(create_app(settings))
        try:
            async with httpx.AsyncClient(base_url=served.url(), timeout=60) as client:
                response = await client.post("/api/chat", json={"message": f"Is the drug in {url} safe for kids?"})
                events = sse(response.text)
                session_id = events[0].data["session_id"]
                saved = (await client.get(f"/api/sessions/{session_id}")).json()
        finally:
            served.stop()

    done = events[-1]
    assert done.event == "done", events[-1]
    checks = done.data["citations"]
    assert [c["status"] for c in checks] == EXPECTED
    assert checks[0]["quote"] == "the drug is safe for children under twelve"
    assert checks[4]["score"] >= 0.5 > checks[5]["score"]
    assert checks[6]["passage"] == PARAGRAPHS[1]
    answer = next(m for m in saved["messages"] if m["role"] == "assistant")
    assert [c["status"] for c in answer["citations"]] == EXPECTED

"""Tool calls a model wrote as text instead of sending them as `tool_calls`.

Small models behind Ollama, llama.cpp or vLLM without a matching tool parser often answer a
tool request with the call itself in the content: `{"name": "web_search", "arguments": {...}}`,
the same in a ```json fence, a list of such objects, or Hermes/Qwen `<tool_call>…</tool_call>`
blocks. Shown as the answer it is noise and the question goes unanswered; read as calls it
works. Only text that is nothing but such calls, each naming an offered tool, is taken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from weblens.agent.llm import ToolCall

__all__ = ["may_be_written_call", "written_calls"]

_FENCE_OPEN = re.compile(r"\A```[a-zA-Z]*")
_FENCE = re.compile(r"\A```[a-zA-Z]*\s*(.*?)\s*```\Z", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def may_be_written_call(text: str) -> bool:
    """Could this start of an answer still turn out to be a written call (so hold it back)?

    Only a start that can still become `{"`, `[{"`, a fence around them or `<tool_call>` is held:
    an answer opening with `[1]` or a code block streams as it comes."""
    head = text.lstrip()
    if "```".startswith(head):
        return True
    if head.startswith("```"):
        head = _FENCE_OPEN.sub("", head, count=1).lstrip()
        if not head:
            return True
    if head.startswith("["):
        head = head[1:].lstrip()
    if not head or "<tool_call>".startswith(head) or head.startswith("<tool_call>"):
        return True
    return head.startswith("{") and (not head[1:].strip() or head[1:].lstrip().startswith('"'))


def written_calls(text: str, tool_names: Iterable[str]) -> list[ToolCall]:
    """The calls `text` consists of, or [] when it is anything else (then it is the answer)."""
    names = {name.casefold(): name for name in tool_names}
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    tagged = _TAGGED.findall(body)
    if tagged:
        if _TAGGED.sub("", body).strip():
            return []  # prose around the blocks: an answer that mentions a call
        blocks = tagged
    else:
        blocks = [body]
    found: list[Any] = []
    for block in blocks:
        try:
            value = json.loads(block)
        except (ValueError, RecursionError):
            return []
        found.extend(value if isinstance(value, list) else [value])
    calls = [_call(item, names, number) for number, item in enumerate(found)]
    return [call for call in calls if call is not None] if found and all(calls) else []


def _call(item: object, names: dict[str, str], number: int) -> ToolCall | None:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    name = names.get(item["name"].strip().casefold())
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):
            return None
    if name is None or not isinstance(arguments, dict):
        return None
    return ToolCall(id=f"call_text_{number}", name=name, arguments=json.dumps(arguments, ensure_ascii=False))

"""`weblens chat ["question"]`: the agent in a terminal. One question, or a conversation.

The answer streams to stdout and ends with its sources; each tool call is one line on
stderr (tool, key argument, outcome), so `weblens chat "..." > answer.txt` keeps only
the answer.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from weblens.agent.citations import SourceBook
from weblens.agent.events import Delta, Done, ErrorEvent, ToolCallEvent, ToolResultEvent
from weblens.agent.llm import ChatModel
from weblens.agent.loop import Agent
from weblens.cli import app
from weblens.cli.output import err_console, fail, fail_from
from weblens.config import get_settings
from weblens.errors import WeblensError

EXIT_WORDS = frozenset({"exit", "quit", ":q"})
PROMPT = "you> "


def _note(text: str, style: str) -> None:
    """A line on stderr, never wrapped or read as markup (it may hold page text)."""
    err_console.print(text, markup=False, highlight=False, soft_wrap=True, style=style)


def _tool_line(call: ToolCallEvent | None, result: ToolResultEvent) -> str:
    shown = f"{result.name}: {call.key_argument}" if call is not None and call.key_argument else result.name
    mark = "✓" if result.ok else f"✗ {result.outcome}"
    tail = "(repeated call, earlier result)" if result.repeated else f"({result.duration_ms:.0f} ms)"
    brief = f" {result.brief}" if result.brief else ""
    return f"  ↳ {shown} {mark}{brief} {tail}"


async def _answer(agent: Agent, question: str, history: list[dict[str, str]]) -> bool:
    """Stream one answer; True when it completed."""
    calls: dict[str, ToolCallEvent] = {}
    async for event in agent.run(question, history):
        if isinstance(event, Delta):
            typer.echo(event.text, nl=False)
        elif isinstance(event, ToolCallEvent):
            calls[event.id] = event
        elif isinstance(event, ToolResultEvent):
            _note(_tool_line(calls.get(event.id), event), "dim")
        elif isinstance(event, Done):
            typer.echo(SourceBook.footer(event.sources))
            if event.notice:
                _note(event.notice, "yellow")
            history += [{"role": "user", "content": question}, {"role": "assistant", "content": event.message}]
            return True
        elif isinstance(event, ErrorEvent):
            typer.echo("")
            _note(f"{event.code}: {event.message}", "bold red")
            return False
    return False


def _read_question() -> str | None:
    try:
        line = input(PROMPT)
    except EOFError:
        return None
    return line


async def _converse(agent: Agent, question: str | None) -> bool:
    history: list[dict[str, str]] = []
    if question is not None:
        return await _answer(agent, question, history)
    while True:
        line = await asyncio.to_thread(_read_question)
        if line is None or line.strip().lower() in EXIT_WORDS:
            return True
        if line.strip():
            await _answer(agent, line.strip(), history)
            typer.echo("")


async def _run(question: str | None) -> bool:
    from weblens.runtime import Runtime
    from weblens.tools.catalog import default_toolset

    settings = get_settings()
    model = ChatModel.from_settings(settings)
    async with Runtime.from_settings(settings) as runtime:
        agent = Agent(model, default_toolset(runtime), enabled=settings.llm.tools, max_steps=settings.llm.max_steps)
        try:
            return await _converse(agent, question)
        finally:
            await model.aclose()


@app.command()
def chat(
    question: Annotated[str | None, typer.Argument(help="Ask one question; leave out to chat interactively.")] = None,
) -> None:
    """Ask the agent: it searches and reads the web as needed and cites its sources."""
    if question is not None and not question.strip():
        fail("the question is empty", "validation_error")
    try:
        ok = asyncio.run(_run(question))
    except WeblensError as exc:
        fail_from(exc)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if not ok:
        raise typer.Exit(1)

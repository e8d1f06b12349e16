"""`weblens chat ["question"]`: the agent in a terminal. One question, or a conversation.

The answer streams to stdout and ends with its sources; each tool call is one line on
stderr (tool, key argument, outcome), so `weblens chat "..." > answer.txt` keeps only
the answer. On a terminal a spinner on stderr says what happens before the first word
(the model thinking, which tool runs, for how long). Ctrl-C during an answer stops that
answer and returns to the prompt; at the prompt it ends the chat, like Ctrl-D or "exit".
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from weblens.agent.citations import SourceBook
from weblens.agent.events import CitationCheck, Delta, Done, ErrorEvent, ToolCallEvent, ToolResultEvent
from weblens.agent.llm import ChatModel
from weblens.agent.loop import Agent
from weblens.app.connect import MODEL_RECIPES
from weblens.cli import command_app
from weblens.cli.output import fail, fail_from, note
from weblens.cli.progress import LiveActivity
from weblens.cli.runner import INTERRUPTED_EXIT_CODE
from weblens.cli.settings import load_settings
from weblens.config import Settings
from weblens.errors import NotConfiguredError, WeblensError
from weblens.progress import watching

app = command_app()
EXIT_WORDS = frozenset({"exit", "quit", ":q"})
PROMPT = "you> "


_CITATION_WORDS = {
    "verified": ("verified: the quote is in the source", "green"),
    "cited": ("cited, not quoted: {support}", "dim"),
    "unsupported": ("unsupported: {support}", "yellow"),
    "quote_not_found": ("not verified: the quote is not in the source", "yellow"),
    "unknown_source": ("not verified: no such source", "yellow"),
}


def _citation_line(check: CitationCheck) -> tuple[str, str | None]:
    """How the terminal says what the check of one `[n]` found (the page says the same on hover)."""
    words, style = _CITATION_WORDS.get(check.status, (check.status, "yellow"))
    support = f"{round(check.score * 100)} % of the sentence's words are in the source"
    quote = f' "{check.quote}"' if check.quote and check.status != "verified" else ""
    return f"  [{check.number}] {words.format(support=support)}{quote}", style


def _tool_line(call: ToolCallEvent | None, result: ToolResultEvent) -> str:
    shown = f"{result.name}: {call.key_argument}" if call is not None and call.key_argument else result.name
    mark = "✓" if result.ok else f"✗ {result.outcome}"
    tail = "(repeated call, earlier result)" if result.repeated else f"({result.duration_ms:.0f} ms)"
    brief = f" {result.brief}" if result.brief else ""
    return f"  ↳ {shown} {mark}{brief} {tail}"


async def _answer(agent: Agent, question: str, history: list[dict[str, str]]) -> bool:
    """Stream one answer; True when it completed."""
    calls: dict[str, ToolCallEvent] = {}
    live = LiveActivity()
    live.show("thinking")
    try:
        with watching(live.activity.update):
            async for event in agent.run(question, history):
                if isinstance(event, Delta):
                    live.hide()
                    typer.echo(event.text, nl=False)
                elif isinstance(event, ToolCallEvent):
                    calls[event.id] = event
                    live.show(f"running {event.name}" + (f": {event.key_argument}" if event.key_argument else ""))
                elif isinstance(event, ToolResultEvent):
                    live.hide()
                    note(_tool_line(calls.get(event.id), event), "dim")
                    live.show("thinking")
                elif isinstance(event, Done):
                    live.hide()
                    typer.echo(SourceBook.footer(event.sources))
                    if event.citations:
                        note("Citations checked:", "dim")
                    for check in event.citations:
                        note(*_citation_line(check))
                    if event.notice:
                        note(event.notice, "yellow")
                    history += [
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": event.message},
                    ]
                    return True
                elif isinstance(event, ErrorEvent):
                    live.hide()
                    typer.echo("")
                    note(f"{event.code}: {event.message}", "bold red")
                    return False
    finally:
        live.hide()
    return False


def _converse(runner: asyncio.Runner, agent: Agent) -> None:
    """Questions from the prompt until exit; Ctrl-C stops the answer being written, not the chat."""
    history: list[dict[str, str]] = []
    while True:
        try:
            line = input(PROMPT)
        except EOFError:
            return
        except KeyboardInterrupt:
            typer.echo("")
            raise typer.Exit(INTERRUPTED_EXIT_CODE) from None
        if line.strip().lower() in EXIT_WORDS:
            return
        if not line.strip():
            continue
        try:
            runner.run(_answer(agent, line.strip(), history))
        except KeyboardInterrupt:
            typer.echo("")
            note("(answer stopped; ask again, or type exit)", "yellow")
            continue
        typer.echo("")


def _model(settings: Settings) -> ChatModel:
    try:
        return ChatModel.from_settings(settings)
    except NotConfiguredError as exc:
        lines = [exc.message, "For example:"] + [f"  {name + ':':8} {variables}" for name, variables in MODEL_RECIPES]
        fail("\n".join(lines), exc.code)


@app.command()
def chat(
    question: Annotated[str | None, typer.Argument(help="Ask one question; leave out to chat interactively.")] = None,
) -> None:
    """Ask the agent: it searches and reads the web as needed and cites its sources."""
    from weblens.runtime import Runtime
    from weblens.tools.catalog import default_toolset

    if question is not None and not question.strip():
        fail("the question is empty", "validation_error")
    settings = load_settings()
    model = _model(settings)
    runtime = Runtime.from_settings(settings)
    try:
        toolset = default_toolset(runtime)
    except WeblensError as exc:
        fail_from(exc)
    agent = Agent.from_settings(model, toolset, settings)
    ok = True
    with asyncio.Runner() as runner:
        try:
            if question is not None:
                ok = runner.run(_answer(agent, question, []))
            else:
                _converse(runner, agent)
        except KeyboardInterrupt:
            typer.echo("")
            raise typer.Exit(INTERRUPTED_EXIT_CODE) from None
        finally:
            runner.run(model.aclose())
            runner.run(runtime.aclose())
    if not ok:
        raise typer.Exit(1)

"""`weblens chat ["question"]`: the agent in a terminal. One question, or a conversation.

The answer streams to stdout and ends with its sources — on a terminal rendered as
markdown, as the page shows it (`weblens.cli.answer`) — and each tool call is one line on
stderr (tool, key argument, outcome), so `weblens chat "..." > answer.md` keeps only
the answer's markdown. On a terminal a spinner on stderr says what happens before the first word
(the model thinking, which tool runs, for how long). Ctrl-C during an answer stops that
answer and returns to the prompt; at the prompt it ends the chat, like Ctrl-D or "exit".
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from weblens.agent.events import Delta, Done, ErrorEvent, ToolCallEvent, ToolResultEvent
from weblens.agent.llm import ChatModel
from weblens.agent.loop import Agent
from weblens.app.connect import MODEL_RECIPES
from weblens.cli import command_app
from weblens.cli.answer import answer_view
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
    view = answer_view()
    live.show("thinking")
    try:
        with watching(live.activity.update):
            async for event in agent.run(question, history):
                if isinstance(event, Delta):
                    live.hide()
                    view.write(event.text)
                elif isinstance(event, ToolCallEvent):
                    view.end()
                    calls[event.id] = event
                    live.show(f"running {event.name}" + (f": {event.key_argument}" if event.key_argument else ""))
                elif isinstance(event, ToolResultEvent):
                    live.hide()
                    view.learn(event.sources)
                    note(_tool_line(calls.get(event.id), event), "dim")
                    live.show("thinking")
                elif isinstance(event, Done):
                    live.hide()
                    view.done(event)
                    if event.notice:
                        note(event.notice, "yellow")
                    history += [
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": event.message},
                    ]
                    return True
                elif isinstance(event, ErrorEvent):
                    live.hide()
                    view.end()
                    typer.echo("")
                    note(f"{event.code}: {event.message}", "bold red")
                    return False
    finally:
        live.hide()
        view.end()  # what was written stays on screen, also when Ctrl-C stopped the answer
    return False


def _banner(model: ChatModel, agent: Agent) -> str:
    tools = ", ".join(agent.tools.names) or "none"
    return f"weblens chat · model {model.model} · tools: {tools} · exit or Ctrl-D quits"


def _converse(runner: asyncio.Runner, agent: Agent, banner: str) -> None:
    """Questions from the prompt until exit; Ctrl-C stops the answer being written, not the chat."""
    note(banner, "dim")
    history: list[dict[str, str]] = []
    while True:
        try:
            line = input(PROMPT)
        except EOFError:  # Ctrl-D: end the prompt's line, so the shell's prompt starts on its own
            typer.echo("")
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
                _converse(runner, agent, _banner(model, agent))
        except KeyboardInterrupt:
            typer.echo("")
            raise typer.Exit(INTERRUPTED_EXIT_CODE) from None
        finally:
            runner.run(model.aclose())
            runner.run(runtime.aclose())
    if not ok:
        raise typer.Exit(1)

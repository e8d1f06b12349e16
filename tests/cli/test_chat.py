"""`weblens chat`: one question or a conversation, in a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer, article_html
from weblens.testing.server import Reply

runner = CliRunner()


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as server, FakeOpenMeteo() as meteo:
        monkeypatch.setenv("WEBLENS_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("WEBLENS_LLM_MODEL", "scripted-model")
        monkeypatch.setenv("WEBLENS_LLM_TOOLS", "get_weather")
        monkeypatch.setenv("WEBLENS_WEATHER_GEOCODING_BASE_URL", meteo.url())
        monkeypatch.setenv("WEBLENS_WEATHER_FORECAST_BASE_URL", meteo.url())
        monkeypatch.setenv("WEBLENS_CACHE_ENABLED", "false")
        yield server


def test_one_question_streams_the_answer_the_tool_line_and_the_sources(llm: ScriptedLLM) -> None:
    llm.add(Turn(tool_calls=[call("get_weather", {"location": "北京"})]), Turn(text="北京现在很冷 [1]。"))

    result = runner.invoke(app, ["chat", "北京今天温度？"])

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("北京现在很冷 [1]。\n\nSources:\n[1] ")
    assert "open-meteo" in result.stdout.lower()
    tool_lines = [line for line in result.stderr.splitlines() if "get_weather" in line]
    assert len(tool_lines) == 1 and "get_weather: 北京 ✓" in tool_lines[0]


def test_interactive_until_exit_with_history(llm: ScriptedLLM) -> None:
    llm.add(Turn(text="Hi there."), Turn(text="You said hello."))

    result = runner.invoke(app, ["chat"], input="hello\n\nwhat did I say?\nexit\nnever sent\n")

    assert result.exit_code == 0, result.output
    assert "Hi there." in result.stdout and "You said hello." in result.stdout
    assert [m["content"] for m in llm.sent[1]["messages"][1:]] == ["hello", "Hi there.", "what did I say?"]
    assert len(llm.sent) == 2


def test_interactive_ends_at_end_of_input(llm: ScriptedLLM) -> None:
    llm.add(Turn(text="One."))
    result = runner.invoke(app, ["chat"], input="only line\n")
    assert result.exit_code == 0 and "One." in result.stdout


def test_a_model_failure_is_reported_without_a_traceback(llm: ScriptedLLM) -> None:
    llm.add(Turn(status=400, error="bad request from scripted model"))

    result = runner.invoke(app, ["chat", "hello"])

    assert result.exit_code == 1
    assert "upstream_error" in result.stderr and "bad request from scripted model" in result.stderr
    assert "Traceback" not in result.output


def test_without_a_model_it_names_the_settings() -> None:
    result = runner.invoke(app, ["chat", "hello"])

    assert result.exit_code == 2
    assert "not_configured" in result.stderr
    assert "WEBLENS_LLM_BASE_URL" in result.stderr and "WEBLENS_LLM_MODEL" in result.stderr
    assert "`base_url` under [llm] in" in result.stderr


def chat_env(llm: ScriptedLLM, meteo_url: str) -> dict[str, str]:
    return {
        "WEBLENS_LLM_BASE_URL": llm.base_url,
        "WEBLENS_LLM_MODEL": "scripted-model",
        "WEBLENS_LLM_TOOLS": "get_weather",
        "WEBLENS_WEATHER_GEOCODING_BASE_URL": meteo_url,
        "WEBLENS_WEATHER_FORECAST_BASE_URL": meteo_url,
        "WEBLENS_CACHE_ENABLED": "false",
    }


def test_a_terminal_shows_thinking_and_the_running_tool_before_the_first_word(
    terminal: Callable[..., Any],
) -> None:
    with ScriptedLLM() as llm, FakeOpenMeteo(latency_s=1.0) as meteo:
        llm.add(
            Turn(tool_calls=[call("get_weather", {"location": "北京"})], delay_s=1.5),
            Turn(text="北京现在很冷。", delay_s=1.5),
        )
        run = terminal("chat", "北京今天温度？", env=chat_env(llm, meteo.url()))
        run.expect("thinking (")
        run.expect("running get_weather: 北京 (")
        run.expect("北京现在很冷。", stream="out")
        assert run.wait() == 0
    assert "thinking" not in run.out and "running get_weather" not in run.out
    assert "get_weather: 北京 ✓" in run.err


def test_ctrl_c_stops_the_answer_not_the_chat(terminal: Callable[..., Any]) -> None:
    with ScriptedLLM() as llm, FakeOpenMeteo() as meteo:
        llm.add(Turn(text="word " * 400, chunk_interval_s=0.05), Turn(text="Second answer."))
        run = terminal("chat", env=chat_env(llm, meteo.url()))
        run.expect("you> ")
        run.type("tell me a long story\n")
        run.expect("word word", stream="out")

        run.interrupt()
        run.expect("answer stopped")
        run.type("and now?\n")
        run.expect("Second answer.", stream="out")
        run.type("exit\n")

        assert run.wait() == 0
        assert len(llm.sent) == 2
    assert run.out.count("word") < 400 and "Traceback" not in run.err


def test_without_a_model_it_shows_how_to_connect_one() -> None:
    result = runner.invoke(app, ["chat", "hello"])

    assert result.exit_code == 2
    for name in ("OpenAI:", "Ollama:", "vLLM:"):
        assert name in result.stderr


MARKDOWN_ANSWER = (
    "## Beijing today\n\nIt is **cold** [1], and the paper says \"never this cold\" [1]. See [7].\n\n"
    "| day | low | high |\n|---|---|---|\n| Mon | -3 | 4 |\n\n```python\nprint('wrap up')\n```\n\nThat is all."
)


def test_a_terminal_gets_a_banner_rendered_markdown_and_unverified_citations_marked(
    terminal: Callable[..., Any],
) -> None:
    with ScriptedLLM() as llm, FakeOpenMeteo() as meteo:
        llm.add(Turn(tool_calls=[call("get_weather", {"location": "北京"})]), Turn(text=MARKDOWN_ANSWER))
        run = terminal("chat", env=chat_env(llm, meteo.url()))
        run.expect("you> ")
        assert "weblens chat · model scripted-model · tools: get_weather · exit or Ctrl-D quits" in run.err
        run.type("北京冷吗？\n")
        run.expect("⚠ [7] not verified: no such source: “See.”\nyou> ")  # the answer's end, then the prompt
        # stdout and stderr are two terminals: the answer's last line, written before the prompt, may
        # reach its terminal after the prompt reached the other; wait for it before counting
        run.expect("longitude=116.3972\n", stream="out")
        answered = len(run.out)
        run.type("\x04")  # Ctrl-D at the prompt
        assert run.wait() == 0
        assert run.out[answered:] == "\n"  # the prompt's line is ended: the shell's prompt starts on its own

    shown = "\n".join(run.screen()).strip()
    for raw in ("##", "**", "|---", "```"):
        assert raw not in shown, (raw, shown)
    assert "Beijing today" in shown and "It is cold [1]" in shown
    mon = next(line for line in shown.splitlines() if "Mon" in line)
    assert mon.split() == ["Mon", "-3", "4"]  # a table's row, not a line of pipes
    assert "print('wrap up')" in shown and "That is all.\n\nSources:\n[1] Open-Meteo: weather for 北京" in shown
    assert "⚠ [1] not verified: the quoted passage was not found in the source" in run.err


def test_piped_the_answer_stays_markdown_and_unverified_citations_go_to_stderr(llm: ScriptedLLM) -> None:
    llm.add(Turn(tool_calls=[call("get_weather", {"location": "北京"})]), Turn(text=MARKDOWN_ANSWER))

    result = runner.invoke(app, ["chat", "北京冷吗？"])

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(MARKDOWN_ANSWER + "\n\nSources:\n[1] Open-Meteo")
    assert "⚠ [7] not verified: no such source: “See.”" in result.stderr
    assert "not verified" not in result.stdout
def test_the_terminal_says_what_each_citation_check_found(llm: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    paragraphs = ["The drug is not safe for children under twelve.", "The agency will review the label in March."]
    with PageServer() as pages:
        pages.route("GET", "/drug", Reply(body=article_html("Drug notice", paragraphs), content_type="text/html"))
        monkeypatch.setenv("WEBLENS_LLM_TOOLS", "web_fetch")
        monkeypatch.setenv("WEBLENS_FETCH_ALLOWED_HOSTS", pages.host)
        llm.add(
            Turn(tool_calls=[call("web_fetch", {"url": pages.url("/drug")})]),
            Turn(
                text="It is 'safe for children under twelve' [1]. It says “not safe for children” [1]. "
                "The label is reviewed in March [1]. Bananas cure colds [1]."
            ),
        )
        result = runner.invoke(app, ["chat", f"Is {pages.url('/drug')} safe?"])

    assert result.exit_code == 0, result.output
    checked = [line for line in result.stderr.splitlines() if line.startswith(("⚠ [1]", "· [1]"))]
    assert checked == [
        "⚠ [1] not verified: the quoted passage was not found in the source: "
        "“It is 'safe for children under twelve'.”",
        "· [1] cited, not quoted: 67 % of the sentence's words are in the source: "
        "“The label is reviewed in March.”",
        "⚠ [1] unsupported: 0 % of the sentence's words are in the source: “Bananas cure colds.”",
    ]
    assert "⚠" not in result.stdout  # `weblens chat "…" > answer.txt` keeps only the answer

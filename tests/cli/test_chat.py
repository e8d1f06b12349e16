"""`weblens chat`: one question or a conversation, in a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.openmeteo import FakeOpenMeteo

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

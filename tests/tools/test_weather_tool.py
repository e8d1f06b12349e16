"""`get_weather` as a model, the CLI and the catalog see it, against a fake Open-Meteo."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from typer.testing import CliRunner

from weblens.cli import app
from weblens.config import Settings
from weblens.runtime import Runtime
from weblens.testing.openmeteo import FORECAST_PATH, GEOCODING_PATH, FakeOpenMeteo
from weblens.tools import default_toolset
from weblens.tools.weather import GetWeather


@pytest.fixture
async def meteo() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo() as server:
        yield server


@pytest.fixture
async def tool(meteo: FakeOpenMeteo) -> AsyncIterator[GetWeather]:
    settings = Settings(weather=meteo.weather_settings(), cache={"enabled": False})
    async with Runtime.from_settings(settings) as runtime:  # its HTTP client's connections closed after the test
        yield GetWeather(runtime)


def test_declaration_carries_the_contract() -> None:
    tool = GetWeather(Runtime.from_settings(Settings()))
    schema = tool.json_schema
    assert schema["required"] == ["location"]
    props = schema["properties"]
    assert props["days"]["default"] == 0 and (props["days"]["minimum"], props["days"]["maximum"]) == (0, 7)
    assert props["units"]["enum"] == ["metric", "imperial"] and props["units"]["default"] == "metric"
    assert tool.output_schema is not None and "current" in tool.output_schema["properties"]


def test_registered_in_the_catalog() -> None:
    assert "get_weather" in default_toolset(Runtime.from_settings(Settings())).names


async def test_success_has_text_data_sources_and_brief(tool: GetWeather) -> None:
    result = await tool.execute({"location": "北京", "days": 2})
    assert result.ok, result.error
    assert "Overcast" in result.text and "9.4°C" in result.text and "feels like 6.8°C" in result.text
    assert "Forecast:" in result.text and "2026-03-19: Slight rain, 5.4°C to 9.8°C" in result.text
    assert result.data["location"]["name"] == "北京" and len(result.data["daily"]) == 2
    assert [s.url for s in result.sources] == [result.data["source_url"]]
    assert result.sources[0].url.startswith("https://open-meteo.com/")
    assert result.brief.startswith("🌤") and "9.4°C" in result.brief


async def test_imperial_units_are_written_as_people_write_them(tool: GetWeather) -> None:
    result = await tool.execute({"location": "Beijing", "units": "imperial", "days": 2})
    assert result.ok and "°F" in result.text
    assert re.search(r"wind \d+(\.\d+)? mph\.", result.text), result.text
    assert re.search(r"precipitation \d+(\.\d+)? in\b", result.text), result.text
    assert "mp/h" not in result.text and "inch" not in result.text
    assert result.data["units"]["wind_speed"] == "mph" and result.data["units"]["precipitation"] == "in"


@pytest.mark.parametrize(
    ("args", "field"),
    [({}, "location"), ({"location": ""}, "location"), ({"location": "   "}, "location"),
     ({"location": "Beijing", "days": 8}, "days"), ({"location": "Beijing", "units": "kelvin"}, "units")],
)
async def test_bad_arguments_are_validation_errors_naming_the_field(
    tool: GetWeather, meteo: FakeOpenMeteo, args: dict[str, object], field: str
) -> None:
    result = await tool.execute(args)
    assert not result.ok and result.error is not None and result.error.code == "validation_error"
    assert [i["field"] for i in result.error.details["issues"]] == [field]
    assert meteo.count() == 0


async def test_unknown_place_is_not_found(tool: GetWeather) -> None:
    result = await tool.execute({"location": "Atlantis"})
    assert result.error is not None and result.error.code == "not_found"
    assert "Atlantis" in result.text


async def test_upstream_error_reason_reaches_the_model(tool: GetWeather, meteo: FakeOpenMeteo) -> None:
    meteo.fail_next(FORECAST_PATH, "bad_request")
    result = await tool.execute({"location": "Beijing"})
    assert result.error is not None and result.error.code == "upstream_error"
    assert "invalid String value" in result.error.message
    assert meteo.count(FORECAST_PATH) == 1  # a 400 is not retried


async def test_transient_failure_is_retried_inside_the_tool(tool: GetWeather, meteo: FakeOpenMeteo) -> None:
    meteo.fail_next(GEOCODING_PATH, "server_error")
    result = await tool.execute({"location": "Beijing"})
    assert result.ok and result.attempts == 2


@pytest.fixture
def meteo_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("WEBLENS_CACHE_ENABLED", "false")
        yield server


def test_cli_weather_json(meteo_env: FakeOpenMeteo) -> None:
    out = CliRunner().invoke(app, ["weather", "Beijing", "--days", "3", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["ok"] and len(result["data"]["daily"]) == 3 and result["sources"]


def test_cli_weather_text(meteo_env: FakeOpenMeteo) -> None:
    out = CliRunner().invoke(app, ["weather", "北京", "--units", "imperial"])
    assert out.exit_code == 0, out.output
    assert "Weather in 北京" in out.output and "°F" in out.output


def test_cli_unknown_place_fails_without_traceback(meteo_env: FakeOpenMeteo) -> None:
    out = CliRunner().invoke(app, ["weather", "Atlantis"])
    assert out.exit_code == 1
    assert "not_found" in out.output and "Atlantis" in out.output and "Traceback" not in out.output

"""`weblens.weather` against a fake Open-Meteo on 127.0.0.1: what a library user sees."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator

import httpx
import pytest

from weblens.config import WeatherConfig
from weblens.errors import NotFoundError, RateLimitedError, ToolTimeoutError, ToolValidationError, UpstreamError
from weblens.net import create_client
from weblens.testing import Reply
from weblens.testing.openmeteo import FORECAST_PATH, GEOCODING_PATH, FakeOpenMeteo
from weblens.testing.pages import gzip_bomb
from weblens.weather import describe_code, geocode, get_weather, language_for


@pytest.fixture
async def meteo() -> AsyncIterator[FakeOpenMeteo]:
    async with FakeOpenMeteo() as server:
        yield server


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with create_client() as c:
        yield c


def config_for(meteo: FakeOpenMeteo, **overrides: float) -> WeatherConfig:
    return WeatherConfig(**meteo.weather_settings(), **overrides)


@pytest.mark.parametrize(
    ("name", "language"),
    [("Beijing", "en"), ("北京", "zh"), ("東京", "zh"), ("とうきょう", "ja"), ("서울", "ko"), ("Пекин", "ru"),
     ("São Paulo", "en"), ("", "en")],
)
def test_geocoding_language_follows_the_script(name: str, language: str) -> None:
    assert language_for(name) == language


def test_wmo_codes_in_words() -> None:
    assert describe_code(0) == "Clear sky"
    assert describe_code(61) == "Slight rain"
    assert "42" in describe_code(42)
    assert describe_code(None) == ""


@pytest.mark.parametrize("name", ["北京", "Beijing", "  beijing  "])
async def test_chinese_and_english_names_resolve_to_the_same_place(
    meteo: FakeOpenMeteo, client: httpx.AsyncClient, name: str
) -> None:
    place = await geocode(name, config=config_for(meteo), client=client)
    assert (place.latitude, place.longitude) == (39.9075, 116.39723)
    assert place.country == "China" and place.timezone == "Asia/Shanghai"
    sent = meteo.requests[-1].query
    assert sent["language"] == language_for(name) and sent["count"] == "1"


async def test_current_weather_with_words_for_the_code(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    weather = await get_weather("Exampleton, Germany", config=config_for(meteo), client=client)
    assert weather.location.name == "Exampleton" and weather.location.country == "Germany"
    now = weather.current
    assert (now.temperature, now.apparent_temperature, now.humidity, now.wind_speed) == (9.4, 6.8, 71, 14.2)
    assert now.weather_code == 3 and now.conditions == "Overcast"
    assert weather.daily == []
    assert weather.units.temperature == "°C" and weather.units.wind_speed == "km/h"
    assert weather.source_url.startswith("https://open-meteo.com/")
    forecast = [r for r in meteo.requests if r.path == FORECAST_PATH][-1].query
    assert "daily" not in forecast and forecast["latitude"] == "51.25"
    assert {"temperature_2m", "apparent_temperature", "relative_humidity_2m", "weather_code",
            "wind_speed_10m"} <= set(forecast["current"].split(","))


async def test_daily_min_max_for_the_days_asked(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    weather = await get_weather("Beijing", days=5, config=config_for(meteo), client=client)
    assert len(weather.daily) == 5
    first = weather.daily[0]
    assert (first.temperature_min, first.temperature_max, first.conditions) == (3.1, 11.2, "Overcast")
    assert weather.daily[1].conditions == "Slight rain"
    assert meteo.requests[-1].query["forecast_days"] == "5"


async def test_imperial_units(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    weather = await get_weather("Beijing", units="imperial", config=config_for(meteo), client=client)
    assert weather.units.temperature == "°F"
    assert weather.current.temperature == pytest.approx(48.9)
    sent = meteo.requests[-1].query
    assert (sent["temperature_unit"], sent["wind_speed_unit"]) == ("fahrenheit", "mph")


async def test_unknown_place_is_not_found_saying_so(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    with pytest.raises(NotFoundError, match="Atlantis"):
        await get_weather("Atlantis", config=config_for(meteo), client=client)
    assert meteo.count(FORECAST_PATH) == 0


async def test_non_latin_name_falls_back_to_english(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.places[0]["names"].pop("zh")
    meteo.places[0]["names"]["en"] = "北京"  # only known under the "wrong" language
    place = await geocode("北京", config=config_for(meteo), client=client)
    assert place.latitude == 39.9075
    assert [r.query["language"] for r in meteo.requests] == ["zh", "en"]


async def test_error_reason_becomes_upstream_error(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.fail_next(FORECAST_PATH, "bad_request")
    with pytest.raises(UpstreamError, match="invalid String value") as caught:
        await get_weather("Beijing", config=config_for(meteo), client=client)
    assert caught.value.code == "upstream_error" and not caught.value.retryable


async def test_error_body_with_status_200_is_still_an_error(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.fail_next(GEOCODING_PATH, "error_in_200")
    with pytest.raises(UpstreamError, match="refused the request"):
        await geocode("Beijing", config=config_for(meteo), client=client)


async def test_rate_limit_is_rate_limited(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.fail_next(GEOCODING_PATH, "rate_limited")
    with pytest.raises(RateLimitedError, match="Minutely API request limit") as caught:
        await geocode("Beijing", config=config_for(meteo), client=client)
    assert caught.value.retryable


@pytest.mark.parametrize("failure", ["server_error", "malformed"])
async def test_broken_upstream_is_upstream_error(meteo: FakeOpenMeteo, client: httpx.AsyncClient, failure: str) -> None:
    meteo.fail_next(FORECAST_PATH, failure)  # type: ignore[arg-type]
    with pytest.raises(UpstreamError):
        await get_weather("Beijing", config=config_for(meteo), client=client)


async def test_a_gzip_bomb_is_refused_in_bounded_memory(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    """256 kB of gzip that inflates to 256 MB: refused having held about the 5 MB cap (httpx alone
    inflates each network chunk whole, hundreds of MB at once)."""
    body, gzipped = gzip_bomb(256 * 1024 * 1024), {"Content-Encoding": "gzip"}
    meteo.queue(FORECAST_PATH, Reply(body=body, content_type="application/json", headers=gzipped))
    tracemalloc.start()
    try:
        with pytest.raises(UpstreamError, match="more than 5 MB"):
            await get_weather("Beijing", config=config_for(meteo), client=client)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024


async def test_forecast_without_current_is_upstream_error(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.queue(FORECAST_PATH, Reply(body={"latitude": 1.0, "longitude": 2.0}))
    with pytest.raises(UpstreamError, match="without current"):
        await get_weather("Beijing", config=config_for(meteo), client=client)


async def test_slow_upstream_times_out(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.queue(GEOCODING_PATH, Reply(delay_s=2.0, body={}))
    with pytest.raises(ToolTimeoutError):
        await geocode("Beijing", config=config_for(meteo, timeout=0.2), client=client)


@pytest.mark.parametrize(("location", "days"), [("   ", 0), ("Beijing", 8), ("Beijing", -1)])
async def test_bad_input_is_refused_before_any_request(
    meteo: FakeOpenMeteo, client: httpx.AsyncClient, location: str, days: int
) -> None:
    with pytest.raises(ToolValidationError):
        await get_weather(location, days=days, config=config_for(meteo), client=client)
    assert meteo.count() == 0


async def test_public_function_reads_the_settings(meteo: FakeOpenMeteo, monkeypatch: pytest.MonkeyPatch) -> None:
    import weblens

    for name, value in meteo.env().items():
        monkeypatch.setenv(name, value)
    weather = await weblens.get_weather("北京", days=1)
    assert weather.location.country == "China" and len(weather.daily) == 1


async def test_unusable_values_are_upstream_error(meteo: FakeOpenMeteo, client: httpx.AsyncClient) -> None:
    meteo.queue(FORECAST_PATH, Reply(body={"current": {"time": "2026-03-18T10:15", "temperature_2m": "warm"}}))
    with pytest.raises(UpstreamError, match="unusable forecast"):
        await get_weather("Beijing", config=config_for(meteo), client=client)

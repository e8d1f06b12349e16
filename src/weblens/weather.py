"""Open-Meteo as a plain async library: a place name in any language to current weather.

Two requests, no key: geocoding (`/v1/search`) turns the name into coordinates, then
the forecast API (`/v1/forecast`) gives current conditions and, when asked, daily
minimum and maximum. The geocoding `language` follows the script of the name, so
"北京" and "Beijing" both resolve; Open-Meteo omits `results` when nothing matches.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Literal
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel, Field, ValidationError

from weblens.config import WeatherConfig, get_settings
from weblens.errors import NotFoundError, ToolValidationError, UpstreamError
from weblens.loops import loop_local
from weblens.net import create_client, error_for_status, translate_errors
from weblens.net.body import read_answer

__all__ = [
    "MAX_DAYS",
    "CurrentWeather",
    "DailyForecast",
    "Place",
    "Units",
    "Weather",
    "describe_code",
    "forecast",
    "geocode",
    "get_weather",
    "language_for",
]

PROVIDER = "Open-Meteo"
MAX_DAYS = 7
DEFAULT_LANGUAGE = "en"
SOURCE_PAGE = "https://open-meteo.com/en/docs"

UnitSystem = Literal["metric", "imperial"]
_UNIT_PARAMS: dict[str, dict[str, str]] = {
    "metric": {"temperature_unit": "celsius", "wind_speed_unit": "kmh", "precipitation_unit": "mm"},
    "imperial": {"temperature_unit": "fahrenheit", "wind_speed_unit": "mph", "precipitation_unit": "inch"},
}
# Our field -> the Open-Meteo variable it comes from (also what we ask for).
_CURRENT = {
    "temperature": "temperature_2m", "apparent_temperature": "apparent_temperature",
    "humidity": "relative_humidity_2m", "wind_speed": "wind_speed_10m", "wind_direction": "wind_direction_10m",
    "precipitation": "precipitation", "weather_code": "weather_code", "is_day": "is_day",
}  # fmt: skip
_DAILY = {
    "temperature_min": "temperature_2m_min", "temperature_max": "temperature_2m_max",
    "precipitation_sum": "precipitation_sum", "precipitation_probability": "precipitation_probability_max",
    "weather_code": "weather_code",
}  # fmt: skip

# Unicode script (first word of the character name) -> Open-Meteo language code.
_SCRIPT_LANGUAGE = {
    "CJK": "zh", "HIRAGANA": "ja", "KATAKANA": "ja", "HANGUL": "ko", "CYRILLIC": "ru",
    "ARABIC": "ar", "GREEK": "el", "HEBREW": "he", "THAI": "th", "DEVANAGARI": "hi",
}  # fmt: skip

WMO_CODES: dict[int, str] = {
    0: "Clear sky", 1: "Mainly clear", 2: "Partly cloudy", 3: "Overcast", 45: "Fog", 48: "Depositing rime fog",
    51: "Light drizzle", 53: "Moderate drizzle", 55: "Dense drizzle",
    56: "Light freezing drizzle", 57: "Dense freezing drizzle",
    61: "Slight rain", 63: "Moderate rain", 65: "Heavy rain", 66: "Light freezing rain", 67: "Heavy freezing rain",
    71: "Slight snow fall", 73: "Moderate snow fall", 75: "Heavy snow fall", 77: "Snow grains",
    80: "Slight rain showers", 81: "Moderate rain showers", 82: "Violent rain showers",
    85: "Slight snow showers", 86: "Heavy snow showers",
    95: "Thunderstorm", 96: "Thunderstorm with slight hail", 99: "Thunderstorm with heavy hail",
}  # fmt: skip


class Place(BaseModel):
    """Where the forecast is for, as the geocoder named it."""

    name: str
    country: str = ""
    region: str = Field(default="", description="first-level administrative area (state, province)")
    latitude: float
    longitude: float
    timezone: str = ""

    @property
    def label(self) -> str:
        parts = [self.name, self.region if self.region != self.name else "", self.country]
        return ", ".join(part for part in parts if part)


class Units(BaseModel):
    temperature: str = "°C"
    wind_speed: str = "km/h"
    precipitation: str = "mm"
    humidity: str = "%"


class CurrentWeather(BaseModel):
    time: str = Field(description="local time of the observation, ISO 8601")
    temperature: float | None = None
    apparent_temperature: float | None = None
    humidity: float | None = Field(default=None, description="relative humidity, %")
    wind_speed: float | None = None
    wind_direction: float | None = Field(default=None, description="degrees, where the wind comes from")
    precipitation: float | None = None
    weather_code: int | None = Field(default=None, description="WMO weather code")
    conditions: str = Field(default="", description="the WMO weather code in words")
    is_day: bool | None = None


class DailyForecast(BaseModel):
    date: str
    temperature_min: float | None = None
    temperature_max: float | None = None
    precipitation_sum: float | None = None
    precipitation_probability: float | None = Field(default=None, description="maximum chance of precipitation, %")
    weather_code: int | None = None
    conditions: str = ""


class Weather(BaseModel):
    """Current conditions (and optionally a daily forecast) for one place."""

    location: Place
    units: Units
    current: CurrentWeather
    daily: list[DailyForecast] = Field(default_factory=list)
    provider: str = PROVIDER
    source_url: str = Field(description="the Open-Meteo page for these coordinates")


def describe_code(code: int | None) -> str:
    """A WMO weather code in words ("Overcast"); unknown codes say so."""
    if code is None:
        return ""
    return WMO_CODES.get(code, f"Unknown weather (WMO code {code})")


def language_for(name: str) -> str:
    """The geocoding language for a place name, from the script of its letters."""
    for char in name:
        if char.isalpha() and ord(char) > 0x7F:
            script = unicodedata.name(char, "").split(" ")[0]
            if script in _SCRIPT_LANGUAGE:
                return _SCRIPT_LANGUAGE[script]
    return DEFAULT_LANGUAGE


MAX_BODY_BYTES = 5 * 1024 * 1024
"""An Open-Meteo answer is a few kB; past this it is no weather answer."""


def _source_url(latitude: float, longitude: float) -> str:
    return f"{SOURCE_PAGE}?{urlencode({'latitude': f'{latitude:.4f}', 'longitude': f'{longitude:.4f}'})}"


async def _get_json(client: httpx.AsyncClient, url: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
    """GET an Open-Meteo endpoint; its `{"error": true, "reason"}` becomes a weblens error. The body is read
    under a cap that holds after decompression (a gzip bomb stops there, not at a whole chunk inflated)."""
    with translate_errors(PROVIDER):
        async with client.stream("GET", url, params=params, timeout=timeout) as response:
            raw = await read_answer(response, MAX_BODY_BYTES, PROVIDER, "not a weather answer")
    try:
        body = json.loads(raw) if raw else None
    except (ValueError, RecursionError):  # not JSON, or nested deeper than a parser can follow
        body = None
    reason = str(body.get("reason", "")) if isinstance(body, dict) and body.get("error") else ""
    if response.status_code >= 400:
        raise error_for_status(response.status_code, provider=PROVIDER, detail=reason, headers=dict(response.headers))
    if reason:
        raise UpstreamError(f"{PROVIDER} refused the request: {reason}", status=response.status_code, retryable=False)
    if not isinstance(body, dict):
        raise UpstreamError(f"{PROVIDER} answered something that is not a JSON object", status=response.status_code)
    return body


def _place(raw: dict[str, Any]) -> Place:
    try:
        return Place(
            name=str(raw["name"]),
            country=str(raw.get("country") or raw.get("country_code") or ""),
            region=str(raw.get("admin1") or ""),
            latitude=float(raw["latitude"]),
            longitude=float(raw["longitude"]),
            timezone=str(raw.get("timezone") or ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UpstreamError(f"{PROVIDER} geocoding returned a place without {exc}", retryable=False) from None


async def geocode(name: str, *, config: WeatherConfig, client: httpx.AsyncClient) -> Place:
    """The best match for a place name; `NotFoundError` when Open-Meteo knows none."""
    query = " ".join(name.split())
    if not query:
        raise ToolValidationError(
            "location must not be empty",
            [{"field": "location", "message": "must not be empty", "type": "string_too_short"}],
        )
    url = f"{config.geocoding_base_url.rstrip('/')}/v1/search"
    languages = dict.fromkeys((language_for(query), DEFAULT_LANGUAGE))
    for language in languages:
        params = {"name": query, "count": 1, "language": language, "format": "json"}
        body = await _get_json(client, url, params, config.timeout)
        results = body.get("results")
        if isinstance(results, list) and results and isinstance(results[0], dict):
            return _place(results[0])
    raise NotFoundError(
        f"No place named {query!r} was found by {PROVIDER} geocoding; try a nearby city or add the country"
    )


def _at(values: Any, index: int) -> Any:
    return values[index] if isinstance(values, list) and index < len(values) else None


def _current(raw: dict[str, Any]) -> CurrentWeather:
    row = {field: raw.get(variable) for field, variable in _CURRENT.items()}
    return CurrentWeather(time=str(raw.get("time", "")), conditions=describe_code(row["weather_code"]), **row)


def _daily(raw: dict[str, Any], days: int) -> list[DailyForecast]:
    dates = raw.get("time")
    out = []
    for i, date in enumerate(dates[:days] if isinstance(dates, list) else []):
        row = {field: _at(raw.get(variable), i) for field, variable in _DAILY.items()}
        out.append(DailyForecast(date=str(date), conditions=describe_code(row["weather_code"]), **row))
    return out


_UNIT_SYMBOLS = {"mp/h": "mph", "inch": "in"}
"""Open-Meteo's unit labels that are not how people write them ("0 inch", "5 mp/h")."""


def _unit(raw: dict[str, Any], variable: str, fallback: str) -> str:
    label = str(raw.get(variable) or fallback)
    return _UNIT_SYMBOLS.get(label, label)


def _units(raw: dict[str, Any], system: UnitSystem) -> Units:
    fallback = Units() if system == "metric" else Units(temperature="°F", wind_speed="mph", precipitation="in")
    return Units(
        temperature=_unit(raw, "temperature_2m", fallback.temperature),
        wind_speed=_unit(raw, "wind_speed_10m", fallback.wind_speed),
        precipitation=_unit(raw, "precipitation", fallback.precipitation),
        humidity=_unit(raw, "relative_humidity_2m", fallback.humidity),
    )


async def forecast(
    place: Place, *, days: int = 0, units: UnitSystem = "metric", config: WeatherConfig, client: httpx.AsyncClient
) -> Weather:
    """Current conditions at `place`, plus `days` of daily min/max when days > 0."""
    params: dict[str, Any] = {
        "latitude": place.latitude,
        "longitude": place.longitude,
        "current": ",".join(_CURRENT.values()),
        "timezone": "auto",
        **_UNIT_PARAMS[units],
    }
    if days:
        params["daily"] = ",".join(_DAILY.values())
        params["forecast_days"] = days
    url = f"{config.forecast_base_url.rstrip('/')}/v1/forecast"
    body = await _get_json(client, url, params, config.timeout)
    current = body.get("current")
    if not isinstance(current, dict):
        raise UpstreamError(f"{PROVIDER} forecast came back without current conditions", retryable=False)
    daily = body.get("daily")
    try:
        return Weather(
            location=place,
            units=_units(body.get("current_units") or {}, units),
            current=_current(current),
            daily=_daily(daily, days) if isinstance(daily, dict) and days else [],
            source_url=_source_url(place.latitude, place.longitude),
        )
    except ValidationError as exc:
        detail = exc.errors()[0]["msg"]
        raise UpstreamError(f"{PROVIDER} sent an unusable forecast: {detail}", retryable=False) from None


async def get_weather(
    location: str,
    *,
    days: int = 0,
    units: UnitSystem = "metric",
    config: WeatherConfig | None = None,
    client: httpx.AsyncClient | None = None,
) -> Weather:
    """Weather for a place name in any language: geocode it, then ask for the forecast.

    `config` defaults to the `[weather]` settings; without `client` (a runtime's, say), calls
    in one event loop share one client, closed when the loop shuts down.
    """
    config = config or get_settings().weather
    if not 0 <= days <= MAX_DAYS:
        raise ToolValidationError(
            f"days must be between 0 and {MAX_DAYS}",
            [{"field": "days", "message": f"must be between 0 and {MAX_DAYS}", "type": "range"}],
        )
    if client is None:
        client = loop_local("weather.client", create_client)
    place = await geocode(location, config=config, client=client)
    return await forecast(place, days=days, units=units, config=config, client=client)

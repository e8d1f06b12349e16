"""`get_weather`: current conditions (and optionally a few days ahead) for a place name."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from weblens.config import WeatherConfig
from weblens.context import ToolContext
from weblens.result import Source, ToolResult
from weblens.runtime import Runtime
from weblens.tool import Retry, Tool
from weblens.weather import MAX_DAYS, Weather, get_weather

__all__ = ["GetWeather", "WeatherParams", "render_weather"]

DESCRIPTION = (
    "Get the current weather for a place: temperature, feels-like temperature, humidity, wind and "
    "conditions, plus an optional daily min/max forecast for up to 7 days. The location may be "
    "written in any language (e.g. 'Beijing', '北京', 'Paris, France'). Data from Open-Meteo."
)
REQUESTS_PER_CALL = 2
"""Geocoding then forecast: the tool's time budget covers both."""
RETRY = Retry(max_attempts=2, delay=0.5)


class WeatherParams(BaseModel):
    location: str = Field(
        min_length=1,
        description="City or place name in any language; add the region or country to disambiguate",
    )
    days: int = Field(default=0, ge=0, le=MAX_DAYS, description="Days of daily min/max forecast (0 = current only)")
    units: Literal["metric", "imperial"] = Field(
        default="metric", description="metric (°C, km/h, mm) or imperial (°F, mph, in)"
    )

    @field_validator("location")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("location must not be blank")
        return value


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    space = "" if unit in ("%", "°C", "°F") else " "
    return f"{value:g}{space}{unit}"


def render_weather(weather: Weather) -> str:
    """The text the model reads: one line now, one line per forecast day, the source."""
    u, now = weather.units, weather.current
    lines = [
        f"Weather in {weather.location.label} "
        f"({weather.location.latitude:.2f}, {weather.location.longitude:.2f}), local time {now.time}:",
        f"{now.conditions or 'Conditions unknown'}, {_num(now.temperature, u.temperature)} "
        f"(feels like {_num(now.apparent_temperature, u.temperature)}), "
        f"humidity {_num(now.humidity, u.humidity)}, wind {_num(now.wind_speed, u.wind_speed)}.",
    ]
    if weather.daily:
        lines.append("Forecast:")
        for day in weather.daily:
            rain = f", precipitation {_num(day.precipitation_sum, u.precipitation)}"
            if day.precipitation_probability is not None:
                rain += f" ({day.precipitation_probability:g}% chance)"
            lines.append(
                f"- {day.date}: {day.conditions or 'n/a'}, {_num(day.temperature_min, u.temperature)} to "
                f"{_num(day.temperature_max, u.temperature)}{rain}"
            )
    lines.append(f"Source: {weather.provider} ({weather.source_url})")
    return "\n".join(lines)


class GetWeather(Tool[WeatherParams]):
    """Open-Meteo behind the tool contract; the library does the work, this renders it."""

    name = "get_weather"
    description = DESCRIPTION
    params = WeatherParams
    output = Weather
    key_param = "location"
    retry = RETRY

    def __init__(self, runtime: Runtime, *, config: WeatherConfig | None = None, timeout: float | None = None) -> None:
        self._runtime = runtime
        self._config = config or runtime.settings.weather
        super().__init__(timeout=timeout or REQUESTS_PER_CALL * self._config.timeout)

    async def run(self, params: WeatherParams, ctx: ToolContext) -> ToolResult:
        weather = await get_weather(
            params.location, days=params.days, units=params.units, config=self._config, client=self._runtime.http
        )
        now = weather.current
        return ToolResult.success(
            render_weather(weather),
            data=weather.model_dump(mode="json"),
            sources=[Source(title=f"{weather.provider}: weather for {weather.location.label}", url=weather.source_url)],
            brief=f"🌤 {weather.location.label}: {_num(now.temperature, weather.units.temperature)}, "
            f"{now.conditions or 'n/a'}",
        )

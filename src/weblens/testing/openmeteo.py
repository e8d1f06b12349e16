"""A fake Open-Meteo (geocoding and forecast on one local server), built on `FakeServer`.

It answers in Open-Meteo's documented shapes from the fixtures in `fixtures/`:
geocoding matches a place only by its name in the requested `language` (so a client
that sends the wrong language finds nothing) and omits `results` when nothing matches;
the forecast honours `current`, `daily`, `forecast_days` and the unit parameters.
Point both weather base URLs at it::

    with FakeOpenMeteo() as meteo:
        settings = Settings(weather=meteo.weather_settings())
        meteo.fail_next("/v1/forecast", "rate_limited")
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Literal

from weblens.testing.server import FakeServer, RecordedRequest, Reply

__all__ = ["FORECAST_PATH", "GEOCODING_PATH", "FakeOpenMeteo", "fixture"]

GEOCODING_PATH = "/v1/search"
FORECAST_PATH = "/v1/forecast"
MAX_COUNT = 100
MAX_FORECAST_DAYS = 16

Failure = Literal["rate_limited", "bad_request", "server_error", "malformed", "error_in_200"]

_TEMPERATURE_KEYS = ("temperature_2m", "apparent_temperature", "temperature_2m_max", "temperature_2m_min")
_WIND_KEYS = ("wind_speed_10m", "wind_speed_10m_max")
_PRECIPITATION_KEYS = ("precipitation", "precipitation_sum")


@cache
def _load(name: str) -> Any:
    return json.loads(resources.files("weblens.testing").joinpath("fixtures", name).read_text("utf-8"))


def fixture(name: str) -> Any:
    """A copy of a fixture from `weblens/testing/fixtures/` (JSON)."""
    return copy.deepcopy(_load(name))


def _error(reason: str, status: int = 400) -> Reply:
    return Reply(status=status, body={"error": True, "reason": reason})


def _matches(place: dict[str, Any], query: str, language: str) -> bool:
    name, _, qualifier = (part.strip().casefold() for part in query.partition(","))
    local = place["names"].get(language)
    if local is None or local.casefold() != name:
        return False
    where = (str(place.get("admin1", "")), str(place.get("country", "")), str(place.get("country_code", "")))
    return not qualifier or any(w.casefold().startswith(qualifier) for w in where)


def _convert(section: dict[str, Any], keys: tuple[str, ...], fn: Callable[[float], float]) -> None:
    for key in keys:
        value = section.get(key)
        if isinstance(value, list):
            section[key] = [None if v is None else round(fn(v), 1) for v in value]
        elif isinstance(value, int | float):
            section[key] = round(fn(value), 1)


class FakeOpenMeteo(FakeServer):
    """Open-Meteo's geocoding and forecast APIs on 127.0.0.1, scriptable like any `FakeServer`."""

    def __init__(self, *, latency_s: float = 0.0) -> None:
        super().__init__(latency_s=latency_s)
        self.places: list[dict[str, Any]] = fixture("openmeteo_places.json")["places"]
        self.route("GET", GEOCODING_PATH, self._geocode)
        self.route("GET", FORECAST_PATH, self._forecast)

    def weather_settings(self) -> dict[str, str]:
        """The `weather` settings section pointing at this server."""
        return {"geocoding_base_url": self.url(), "forecast_base_url": self.url()}

    def env(self) -> dict[str, str]:
        """The same as environment variables, for a subprocess (`weblens mcp`, the CLI)."""
        return {"WEBLENS_WEATHER_GEOCODING_BASE_URL": self.url(), "WEBLENS_WEATHER_FORECAST_BASE_URL": self.url()}

    def fail_next(self, path: str, failure: Failure, times: int = 1) -> None:
        """Make the next `times` requests to `path` fail the way Open-Meteo fails."""
        replies = {
            "rate_limited": Reply(status=429, body=fixture("openmeteo_error_429.json")),
            "bad_request": Reply(status=400, body=fixture("openmeteo_error_400.json")),
            "server_error": Reply(status=502, body="<html>Bad Gateway</html>", content_type="text/html"),
            "malformed": Reply(status=200, body="{not json", content_type="application/json"),
            "error_in_200": Reply(status=200, body=fixture("openmeteo_error_400.json")),
        }
        self.queue(path, *([replies[failure]] * times))

    # -- the two APIs --------------------------------------------------------------

    def _geocode(self, request: RecordedRequest) -> Reply:
        query = request.query.get("name", "")
        language = request.query.get("language", "en").lower()
        try:
            count = int(request.query.get("count", "10"))
        except ValueError:
            return _error(f"Cannot initialize Int from invalid String value {request.query['count']} for key count")
        if not 1 <= count <= MAX_COUNT:
            return Reply(status=400, body=fixture("openmeteo_geocode_error_400.json"))
        found = [p for p in self.places if len(query.strip()) >= 2 and _matches(p, query, language)]
        if not found:
            return Reply(body=fixture("openmeteo_geocode_empty.json"))
        results = []
        for place in found[:count]:
            result = {k: v for k, v in place.items() if k != "names"}
            results.append({"id": result.pop("id"), "name": place["names"][language], **result})
        return Reply(body={"results": results, "generationtime_ms": 0.52})

    def _forecast(self, request: RecordedRequest) -> Reply:
        q = request.query
        try:
            latitude, longitude = float(q["latitude"]), float(q["longitude"])
        except KeyError:
            return _error("Parameter 'latitude' and 'longitude' must have the same number of elements")
        except ValueError:
            return _error("Latitude must be in range of -90 to 90°.")
        base = fixture("openmeteo_forecast_ok.json")
        sections = ("current", "current_units", "daily", "daily_units")
        body: dict[str, Any] = {k: v for k, v in base.items() if k not in sections}
        body.update(latitude=latitude, longitude=longitude)
        if q.get("current"):
            current = {*q["current"].split(","), "time", "interval"}
            body["current"] = {k: v for k, v in base["current"].items() if k in current}
            body["current_units"] = {k: v for k, v in base["current_units"].items() if k in body["current"]}
        if q.get("daily"):
            wanted = q["daily"].split(",")
            unknown = [w for w in wanted if w not in base["daily"]]
            if unknown:
                return _error(
                    f"Cannot initialize ForecastVariableDaily from invalid String value {unknown[0]} for key daily"
                )
            days = int(q.get("forecast_days", "7"))
            if not 0 <= days <= MAX_FORECAST_DAYS:
                return _error(f"Forecast days is invalid. Allowed range 0 to {MAX_FORECAST_DAYS}.")
            daily = base["daily"]
            body["daily"] = {k: [daily[k][i % len(daily[k])] for i in range(days)] for k in ("time", *wanted)}
            body["daily"]["time"] = [f"2026-03-{18 + i:02d}" for i in range(days)]
            body["daily_units"] = {k: base["daily_units"][k] for k in ("time", *wanted)}
        self._apply_units(body, q)
        return Reply(body=body)

    @staticmethod
    def _apply_units(body: dict[str, Any], q: dict[str, str]) -> None:
        conversions: list[tuple[tuple[str, ...], Callable[[float], float], str]] = []
        if q.get("temperature_unit") == "fahrenheit":
            conversions.append((_TEMPERATURE_KEYS, lambda c: c * 9 / 5 + 32, "°F"))
        if q.get("wind_speed_unit") == "mph":
            conversions.append((_WIND_KEYS, lambda k: k / 1.609344, "mp/h"))
        if q.get("precipitation_unit") == "inch":
            conversions.append((_PRECIPITATION_KEYS, lambda mm: mm / 25.4, "inch"))
        for keys, fn, unit in conversions:
            for values, units in (("current", "current_units"), ("daily", "daily_units")):
                if values in body:
                    _convert(body[values], keys, fn)
                    body[units].update({k: unit for k in keys if k in body[units]})

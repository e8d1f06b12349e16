"""compose.yaml and deploy/searxng as docker compose and SearXNG read them: the fleet's replicas
search through the fleet's own SearXNG, whose settings turn on the JSON API weblens asks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).parent.parent


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return loaded


def test_compose_is_valid_yaml_and_every_replica_searches_through_the_fleets_searxng() -> None:
    services = _compose()["services"]
    replicas = [name for name in services if name.startswith("weblens-")]
    assert len(replicas) == 3
    for name in replicas:
        environment = services[name]["environment"]
        assert environment["WEBLENS_SEARXNG_BASE_URL"] == "http://searxng:8080"
        assert environment["WEBLENS_MCP_TOKEN"].startswith("${WEBLENS_MCP_TOKEN:?")
    searxng = services["searxng"]
    assert "./deploy/searxng:/etc/searxng" in searxng["volumes"] and "ports" not in searxng
    assert searxng["environment"]["SEARXNG_SECRET"].startswith("${SEARXNG_SECRET:?")


def test_the_searxng_settings_enable_the_json_api() -> None:
    settings = yaml.safe_load((ROOT / "deploy" / "searxng" / "settings.yml").read_text(encoding="utf-8"))
    assert settings["use_default_settings"] is True
    assert "json" in settings["search"]["formats"]  # without it SearXNG answers format=json with 403

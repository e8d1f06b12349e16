"""The Starlette application `weblens serve` runs."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from weblens._version import __version__
from weblens.config import Settings

__all__ = ["create_app"]


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok", "version": __version__})


def create_app(settings: Settings) -> Starlette:
    """Build the server app from settings."""
    app = Starlette(routes=[Route("/health", health)])
    app.state.settings = settings
    return app

"""`web_screenshot`: an image of a page as a browser shows it, under the same guard as `web_fetch`."""

from __future__ import annotations

import base64
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from weblens.context import ToolContext
from weblens.result import Image, Source, ToolResult
from weblens.runtime import Runtime
from weblens.tool import Tool

__all__ = ["SCREENSHOT_FACTORIES", "ScreenshotTool", "WebScreenshotParams"]

_TOOL_MARGIN_S = 5.0


class WebScreenshotParams(BaseModel):
    url: str = Field(description="The http(s) URL of the page")
    full_page: bool = Field(
        default=False, description="The whole page (cut at a height limit) instead of the first screen (1280×800)"
    )
    format: Literal["png", "jpeg"] = Field(default="png", description="Image format")
    quality: int | None = Field(default=None, ge=1, le=100, description="JPEG quality (jpeg only)")
    wait_for: str | None = Field(
        default=None, max_length=500, description="A CSS selector to wait for before taking the picture"
    )


class ScreenshotTool(Tool[Any]):
    """Renders the page in the runtime's browser and returns the image (MCP image content)."""

    name = "web_screenshot"
    description = (
        "Take a screenshot of a web page as a browser shows it (PNG or JPEG, first screen or full page). "
        "Use it when the layout, a chart or an image matters; use web_fetch to read text. "
        "Private and internal addresses are refused."
    )
    params: type[BaseModel] = WebScreenshotParams
    key_param: ClassVar[str | None] = "url"

    def __init__(self, runtime: Runtime, **overrides: Any) -> None:
        overrides.setdefault("timeout", runtime.settings.fetch.render_timeout + _TOOL_MARGIN_S)
        super().__init__(**overrides)
        self._runtime = runtime

    async def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        shot = await self._runtime.fetcher.screenshot(
            params.url,
            full_page=params.full_page,
            image_format=params.format,
            quality=params.quality,
            wait_for=params.wait_for,
        )
        cut = f", cut at {shot.height} px" if shot.cut else ""
        what = "full page" if shot.full_page else "first screen"
        text = (
            f"Screenshot of {shot.final_url} ({what}, {shot.width}×{shot.height} {shot.format.upper()}{cut}, "
            f"{len(shot.image):,} bytes, {shot.seconds:.1f} s)."
        )
        data = {
            "url": params.url, "final_url": shot.final_url, "format": shot.format, "width": shot.width,
            "height": shot.height, "bytes": len(shot.image), "full_page": shot.full_page, "cut": shot.cut,
        }  # fmt: skip
        result = ToolResult.success(text, data=data, sources=[Source(url=shot.final_url)], brief=text)
        result.images.append(Image(data=base64.b64encode(shot.image).decode(), mime_type=f"image/{shot.format}"))
        return result


def _web_screenshot(runtime: Runtime) -> Tool[Any]:
    return ScreenshotTool(runtime)


SCREENSHOT_FACTORIES = (_web_screenshot,)
"""Always listed: without a browser it answers not_configured, saying how to get one."""

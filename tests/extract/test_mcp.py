"""`web_extract` as an MCP client sees it: listed with both schemas, called, structured content back."""

from __future__ import annotations

from pathlib import Path

from jsonschema import Draft202012Validator
from mcp.client.client import Client

from weblens.mcp.server import create_server, gateway_toolset
from weblens.runtime import Runtime
from weblens.testing.extract_pages import PRODUCT_SCHEMA, product_page, products

from .conftest import Site


async def test_over_mcp(site: Site, tmp_path: Path) -> None:
    url = site.page("/p", product_page(products(2)[1], "agreeing"))
    async with Runtime.from_settings(site.settings(tmp_path)) as runtime:
        server = create_server(gateway_toolset(runtime, enabled=["web_extract"]))
        async with Client(server) as client:
            (tool,) = (await client.list_tools()).tools
            assert tool.name == "web_extract" and "schema" in tool.input_schema["properties"]
            assert tool.output_schema is not None
            Draft202012Validator.check_schema(tool.output_schema)
            result = await client.call_tool("web_extract", {"url": url, "schema": PRODUCT_SCHEMA})
            assert not result.is_error
            (page,) = result.structured_content["results"]
            Draft202012Validator(tool.output_schema).validate(result.structured_content)
            assert page["data"]["price"] == 1309 and page["fields"]["price"]["verified"] is True
            bad = await client.call_tool("web_extract", {"url": url, "schema": {"type": "object", "properties": 3}})
            assert bad.is_error and bad.meta["weblens/error"]["code"] == "validation_error"

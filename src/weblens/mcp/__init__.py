"""weblens over MCP: the gateway (serve weblens tools) and the client adapter (use remote tools)."""

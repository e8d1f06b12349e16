"""The HTTP server: health, the chat API with saved sessions, the web page, `/mcp`."""

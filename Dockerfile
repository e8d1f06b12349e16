# weblens server image: `weblens serve` on 0.0.0.0:8765 as a non-root user.
# The chat API and /mcp on a reachable address need a token: pass WEBLENS_MCP_TOKEN at run time
# (docker run -e WEBLENS_MCP_TOKEN=... ); the server refuses to start without one.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    WEBLENS_DATA_DIR=/data \
    WEBLENS_SERVER_HOST=0.0.0.0 \
    WEBLENS_SERVER_PORT=8765

RUN useradd --create-home --uid 10001 weblens && mkdir -p /data && chown weblens:weblens /data

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
# Playwright drives a browser for pages that need JavaScript (a remote one in compose.yaml; its version must match)
ARG PLAYWRIGHT_VERSION=1.65.2
RUN pip install . "playwright==${PLAYWRIGHT_VERSION}" && rm -rf /root/.cache

USER weblens
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/health', timeout=2)"
CMD ["weblens", "serve", "--host", "0.0.0.0"]

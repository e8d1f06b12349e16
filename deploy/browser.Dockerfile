# The shared browser of compose.yaml: a Playwright server whose Chromium weblens drives remotely.
# weblens sends the launch switches (no DNS of its own, no QUIC, no non-proxied UDP, a heap cap)
# and points every context at its guard proxy.
ARG PLAYWRIGHT_VERSION=1.65.2
FROM mcr.microsoft.com/playwright:v${PLAYWRIGHT_VERSION}-noble
ARG PLAYWRIGHT_VERSION
RUN npm install -g "playwright@${PLAYWRIGHT_VERSION}"
USER pwuser
EXPOSE 3000
CMD ["playwright", "run-server", "--port", "3000", "--host", "0.0.0.0"]

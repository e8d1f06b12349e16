"""The gateway under test: fake upstreams, a real uvicorn server for HTTP, a subprocess for stdio."""

from __future__ import annotations

import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import uvicorn
from mcp.client.stdio import StdioServerParameters

from weblens.config import Settings
from weblens.mcp.http import standalone_app
from weblens.testing import FakeServer
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer
from weblens.testing.providers import FakeBrave

T = TypeVar("T", bound=FakeServer)
STARTUP_TIMEOUT_S = 10.0
NPM_INSTALL_TIMEOUT_S = 120
TOOLS = "web_search,web_fetch,get_weather,think"
"""What the tests enable: the defaults plus think."""


class ServedApp:
    """An ASGI app on 127.0.0.1 in a background thread, lifespan included (like `weblens serve`)."""

    def __init__(self, app: Any) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port: int = sock.getsockname()[1]
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.01)

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


# The fake upstreams live for the whole session (starting and stopping servers is what
# costs time); each test gets them with nothing recorded and nothing scripted.


@pytest.fixture(scope="session")
def _meteo() -> Iterator[FakeOpenMeteo]:
    with FakeOpenMeteo() as server:
        yield server


@pytest.fixture(scope="session")
def _brave() -> Iterator[FakeBrave]:
    with FakeBrave() as server:
        yield server


@pytest.fixture(scope="session")
def _pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


def _fresh(server: T) -> Iterator[T]:
    server.reset()
    latency = server.latency_s
    yield server
    server.latency_s = latency
    server.reset()


@pytest.fixture
def meteo(_meteo: FakeOpenMeteo) -> Iterator[FakeOpenMeteo]:
    yield from _fresh(_meteo)


@pytest.fixture
def brave(_brave: FakeBrave) -> Iterator[FakeBrave]:
    yield from _fresh(_brave)


@pytest.fixture
def pages(_pages: PageServer) -> Iterator[PageServer]:
    yield from _fresh(_pages)


@pytest.fixture
def gateway_env(meteo: FakeOpenMeteo, brave: FakeBrave, pages: PageServer, tmp_path: Path) -> dict[str, str]:
    """Environment for a `weblens mcp` subprocess pointed at the fakes (search: Brave only)."""
    return {
        **meteo.env(),
        "WEBLENS_BRAVE_BASE_URL": brave.url(),
        "BRAVE_API_KEY": brave.api_key,
        "WEBLENS_BRAVE_REQUESTS_PER_SECOND": "1000",
        "WEBLENS_SEARCH_PROVIDER": "brave",
        "WEBLENS_FETCH_ALLOWED_HOSTS": pages.host,
        "WEBLENS_DATA_DIR": str(tmp_path / "data"),
        "WEBLENS_CACHE_ENABLED": "false",
        "WEBLENS_MCP_TOOLS": TOOLS,
    }


@pytest.fixture
def gateway_settings(
    meteo: FakeOpenMeteo, brave: FakeBrave, pages: PageServer, tmp_path: Path
) -> Callable[..., Settings]:
    """Settings for an in-process gateway pointed at the same fakes; keyword overrides per test."""

    def make(**overrides: Any) -> Settings:
        mcp = {"tools": TOOLS.split(","), **overrides.pop("mcp", {})}
        return Settings(
            weather=meteo.weather_settings(),
            brave={"base_url": brave.url(), "api_key": brave.api_key, "requests_per_second": 1000},
            search={"provider": ["brave"]},
            fetch={"allowed_hosts": [pages.host]},
            data_dir=tmp_path / "data",
            cache={"enabled": False},
            mcp=mcp,
            **overrides,
        )

    return make


@pytest.fixture
def serve_asgi() -> Iterator[Callable[[Any], ServedApp]]:
    """Serve any ASGI app (lifespan included) on 127.0.0.1 for the test."""
    started: list[ServedApp] = []

    def start(app: Any) -> ServedApp:
        started.append(ServedApp(app))
        return started[-1]

    yield start
    for served in started:
        served.stop()


@pytest.fixture
def serve_http(serve_asgi: Callable[[Any], ServedApp]) -> Callable[[Settings], ServedApp]:
    """Start the HTTP gateway (`weblens mcp --transport http`'s app) for some settings."""
    return lambda settings: serve_asgi(standalone_app(settings, host="127.0.0.1"))


@pytest.fixture
def stdio_gateway(gateway_env: dict[str, str]) -> Callable[..., StdioServerParameters]:
    """`python -m weblens mcp ARGS` as the official client starts it, with extra environment."""

    def params(*args: str, **env: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable, args=["-m", "weblens", "mcp", *args], env={**gateway_env, **env}
        )

    return params


class RawStdio:
    """`python -m weblens mcp` on stdio, written to byte by byte as any client might; what it
    prints on stdout is read line by line in a thread, so a test can wait for a line or for none."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "weblens", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env={**os.environ, **env},
        )  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def line(self, timeout: float = STARTUP_TIMEOUT_S) -> bytes | None:
        """The next line on stdout, or None when none comes within `timeout`."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def receive(self, timeout: float = STARTUP_TIMEOUT_S) -> Any:
        line = self.line(timeout)
        assert line is not None, "no answer"
        return json.loads(line)

    def initialize(self, version: str = "2025-06-18") -> Any:
        client = {"name": "raw", "version": "0"}
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        answer = self.receive(90)  # a loaded machine imports slowly
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> int:
        """Close stdin, as a client that goes away does; the exit code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(20)

    def stderr(self) -> str:
        assert self.proc.stderr is not None and self.proc.poll() is not None
        return self.proc.stderr.read().decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def raw_stdio(gateway_env: dict[str, str]) -> Iterator[Callable[..., RawStdio]]:
    """Start `weblens mcp` on stdio with extra environment; killed after the test if still running."""
    started: list[RawStdio] = []

    def start(**env: str) -> RawStdio:
        started.append(RawStdio({**gateway_env, **env}))
        return started[-1]

    yield start
    for gateway in started:
        gateway.kill()


def npm_tool(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, package: str, command: str, folder: str
) -> str:
    """The path of `command` from the npm `package`, installed once into `folder` of pytest's cache
    directory (git-ignored; a temporary one under `-p no:cacheprovider`). Skips without Node/npm or
    when the install fails (no registry here)."""
    on_path = shutil.which(command)
    if on_path:
        return on_path
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("Node/npm is not installed")
    cache = getattr(request.config, "cache", None)  # absent with `-p no:cacheprovider`
    prefix = Path(cache.mkdir(folder)) if cache is not None else tmp_path_factory.mktemp(folder)
    binary = prefix / "node_modules" / ".bin" / command
    if not binary.exists():
        try:
            subprocess.run(
                # --ignore-scripts: a dependency's install script must not touch the repository around the
                # cache (the conformance suite's lefthook would install git hooks into it)
                ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--fetch-retries=1",
                 "--fetch-timeout=30000", "--prefix", str(prefix), package],
                capture_output=True, timeout=NPM_INSTALL_TIMEOUT_S, check=True,
            )  # fmt: skip
        except (subprocess.SubprocessError, OSError) as exc:
            pytest.skip(f"could not install {package}: {exc}")
    if not binary.exists():
        pytest.skip(f"{package} installed no {command} command")
    return str(binary)

"""Every code block of the README and of the documentation (`docs/*.md`), run as written
against the fakes of `weblens.testing`.

Shell blocks run line by line in bash (`weblens` on PATH); a server line (`weblens serve`,
`weblens mcp --transport http`) is started, waited for and stopped at the end of its
block. Python blocks run with top-level `await`, each in a fresh interpreter; the one
defining a pytest test is run by pytest. JSON and TOML blocks are loaded and checked the
way weblens reads them. The environment points every provider, the model and the pages
at local servers, as a user's settings would; in the text only `https://example.com`
(served by a local page server) and the ports 8765/8766 (free ports here) are replaced.
The two set-up commands are left out, with the reason, in `NOT_RUN`; `source
.venv/bin/activate` is what this environment already is (the venv's `bin` first on `PATH`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from weblens.cli import COMMANDS
from weblens.result import ToolResult
from weblens.testing.llm import ScriptedLLM, Turn, call
from weblens.testing.openmeteo import FakeOpenMeteo
from weblens.testing.pages import PageServer, article_html, make_pdf
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo
from weblens.testing.server import Reply

ROOT = Path(__file__).parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The README and every documentation page: their code blocks run here."""
ACTIVATE = "source .venv/bin/activate"
TILDE_FENCE = re.compile(r"^~~~.*?^~~~$", re.M | re.S)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
NOT_RUN = {
    "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/weblens serve":
        "the fresh-machine set-up (a new venv and an install); `weblens serve` itself runs in the chat block",
    "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]'":
        "the test command itself: .ci/run runs exactly this on a clean clone",
}  # fmt: skip
SERVERS = ("weblens serve", "weblens mcp --transport http")
RUN_TIMEOUT_S = 120
START_TIMEOUT_S = 30
PYTHON_RUNNER = """
import ast, asyncio, sys
code = compile(open(sys.argv[1]).read(), "README block", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
async def main():
    result = eval(code, {"__name__": "__readme__"})
    if asyncio.iscoroutine(result):
        await result
asyncio.run(main())
"""


@dataclass
class Block:
    lang: str
    text: str
    line: int
    page: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}-{self.lang or 'text'}"


def page_blocks(page: Path) -> list[Block]:
    # `~~~` blocks show terminal output (which may itself hold ``` fences): not code to run
    source = TILDE_FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text())
    name = page.relative_to(ROOT).as_posix()
    return [Block(m.group(1), m.group(2), source[: m.start()].count("\n") + 1, name) for m in FENCE.finditer(source)]


def readme_blocks() -> list[Block]:
    return [block for page in PAGES for block in page_blocks(page)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answer(body: dict[str, Any]) -> Turn:
    """The model for the README's chat examples: one tool call, then an answer citing it."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Turn(text="Here is what the tools found [1].")
    if "温度" in str(last.get("content")):
        return Turn(tool_calls=[call("get_weather", {"location": "北京"})])
    return Turn(tool_calls=[call("web_search", {"query": "AI news today"})])


@dataclass
class World:
    """The fakes and the environment a README block runs in."""

    env: dict[str, str]
    pages: PageServer
    server_port: int
    mcp_port: int
    home: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def rewrite(self, text: str) -> str:
        text = text.replace("https://example.com", self.pages.url(""))
        return text.replace("127.0.0.1:8765", f"127.0.0.1:{self.server_port}").replace(
            "127.0.0.1:8766", f"127.0.0.1:{self.mcp_port}"
        )

    def run(self, argv: list[str], cwd: Path, **options: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, env=self.env, cwd=cwd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
            stdin=subprocess.DEVNULL, **options,
        )  # fmt: skip


@pytest.fixture(scope="module")
def fakes() -> Iterator[tuple[FakeDuckDuckGo, FakeBrave, FakeOpenMeteo, PageServer, ScriptedLLM]]:
    with (
        FakeDuckDuckGo() as ddg,
        FakeBrave() as brave,
        FakeOpenMeteo() as meteo,
        PageServer() as pages,
        ScriptedLLM(responder=answer) as llm,
    ):
        pages.route("GET", "/", Reply(body=article_html(), content_type="text/html; charset=utf-8"))
        pages.route("GET", "/report.pdf", Reply(body=make_pdf(["Annual report", "Figures"]),
                                                content_type="application/pdf"))  # fmt: skip
        yield ddg, brave, meteo, pages, llm


@pytest.fixture
def world(fakes: Any, tmp_path: Path) -> Iterator[World]:
    ddg, brave, meteo, pages, llm = fakes
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBLENS_") and not k.endswith("_API_KEY")}
    env.update(
        {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "WEBLENS_DUCKDUCKGO_BASE_URL": ddg.url(),
            "WEBLENS_DUCKDUCKGO_REQUESTS_PER_SECOND": "1000",
            "WEBLENS_BRAVE_BASE_URL": brave.url(),
            "WEBLENS_BRAVE_REQUESTS_PER_SECOND": "1000",
            "BRAVE_API_KEY": brave.api_key,
            **meteo.env(),
            "WEBLENS_FETCH_ALLOWED_HOSTS": pages.host,
            "WEBLENS_LLM_BASE_URL": llm.base_url,
            "WEBLENS_LLM_MODEL": "scripted-model",
        }
    )
    here = World(env, pages, free_port(), free_port(), tmp_path)
    env["WEBLENS_SERVER_PORT"] = str(here.server_port)
    env["WEBLENS_MCP_PORT"] = str(here.mcp_port)
    try:
        yield here
    finally:
        for proc in here.started:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


# -- shell ------------------------------------------------------------------------------------


def shell_lines(text: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def wait_until_listening(world: World, port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except httpx.TransportError:
            assert proc.poll() is None, f"the server line exited with {proc.returncode}"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


def inspector_shim(world: World, request: pytest.FixtureRequest) -> None:
    """`npx @modelcontextprotocol/inspector` without a download: the Inspector the MCP tests installed."""
    cache = getattr(request.config, "cache", None)
    installed = Path(cache.mkdir("mcp-inspector")) / "node_modules" / ".bin" / "mcp-inspector" if cache else None
    found = os.environ.get("MCP_INSPECTOR") or (str(installed) if installed and installed.exists() else None)
    if found is None:
        pytest.skip("the MCP Inspector is not installed here (tests/mcp/test_inspector.py installs it)")
    shims = world.home / "bin"
    shims.mkdir(exist_ok=True)
    shim = shims / "npx"
    shim.write_text(
        '#!/bin/sh\n[ "$1" = -y ] && shift\n'
        'case "$1" in @modelcontextprotocol/inspector*) shift;; esac\n'
        f'exec {shlex.quote(found)} "$@"\n'
    )
    shim.chmod(0o755)
    world.env["PATH"] = f"{shims}{os.pathsep}{world.env['PATH']}"


def run_shell(block: Block, world: World, request: pytest.FixtureRequest) -> None:
    for line in shell_lines(world.rewrite(block.text)):
        if line == ACTIVATE:  # the venv's bin is already first on PATH here, as activating it puts it
            assert world.env["PATH"].startswith(str(Path(sys.executable).parent))
            continue
        if line.startswith(("npx @modelcontextprotocol/inspector", "npx -y @modelcontextprotocol/inspector")):
            inspector_shim(world, request)
            port = world.mcp_port
            if not any("mcp" in " ".join(map(str, p.args)) for p in world.started):
                started = subprocess.Popen(["weblens", "mcp", "--transport", "http"], env=world.env,
                                           start_new_session=True, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL)  # fmt: skip
                world.started.append(started)  # the server of the block before, "from another terminal"
                wait_until_listening(world, port, started)
        if line.startswith("export "):
            name = line.removeprefix("export ").split("=", 1)[0]
            value = world.run(["bash", "-c", f'{line}; printf %s "${name}"'], world.home).stdout
            assert value, line
            world.env[name] = value
            continue
        if any(line.startswith(server) for server in SERVERS):
            proc = subprocess.Popen(["bash", "-c", line], env=world.env, cwd=world.home, start_new_session=True,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            world.started.append(proc)
            wait_until_listening(world, world.server_port if line.startswith("weblens serve") else world.mcp_port, proc)
            continue
        done = world.run(["bash", "-c", line], world.home)
        assert done.returncode == 0, f"{line}\nstdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-1500:]}"
        assert "Traceback" not in done.stderr, done.stderr


# -- python, json, toml -----------------------------------------------------------------------


def run_python(block: Block, world: World) -> None:
    source = world.rewrite(block.text)
    if re.search(r"^import pytest", source, re.M):  # a test file: pytest runs it
        target = world.home / "test_readme_example.py"
        target.write_text(source)
        done = world.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target.name], world.home)
        assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
        return
    script = world.home / "block.py"
    script.write_text(source)
    done = world.run([sys.executable, "-c", PYTHON_RUNNER, str(script)], world.home)
    assert done.returncode == 0, f"{source}\n--- stderr:\n{done.stderr[-3000:]}"


def check_json(block: Block, world: World) -> None:
    data = json.loads(block.text)
    if "mcpServers" in data:  # a client's config: the command, its arguments and its settings are real
        for entry in data["mcpServers"].values():
            assert Path(entry["command"]).name == "weblens" and entry["args"][0] in COMMANDS
            env = {**world.env, **entry.get("env", {})}
            done = subprocess.run(["weblens", "config", "--json"], env=env, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT_S, cwd=world.home)  # fmt: skip
            assert done.returncode == 0 and "unknown" not in done.stderr, done.stderr
    else:  # the result envelope
        assert set(data) == {name for name, field in ToolResult.model_fields.items() if not field.exclude}
        assert data["error"] is None or set(data["error"]) >= {"code", "message", "retryable"}


def check_toml(block: Block, world: World) -> None:
    (world.home / "weblens.toml").write_text(block.text)
    world.env = {k: v for k, v in world.env.items() if not k.startswith("WEBLENS_") and not k.endswith("_API_KEY")}
    done = world.run(["weblens", "config", "--json"], world.home)  # the file alone
    assert done.returncode == 0 and done.stderr == "", done.stderr
    values = {row["key"]: row["value"] for row in json.loads(done.stdout)["settings"]}
    for key, value in _leaves(tomllib.loads(block.text)):
        if not key.endswith("api_key"):
            assert values[key] == value, key


def _leaves(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """("section.key", value) for every value of a TOML table, nested tables flattened."""
    found: list[tuple[str, Any]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            found.extend(_leaves(value, f"{prefix}{key}."))
        else:
            found.append((f"{prefix}{key}", value))
    return found


# -- the tests ---------------------------------------------------------------------------------


def test_every_block_is_run_or_has_a_reason() -> None:
    firsts = [block.text.splitlines()[0] for block in readme_blocks()]
    for prefix in NOT_RUN:
        assert any(first.startswith(prefix) for first in firsts), f"NOT_RUN entry matches no block: {prefix}"
    assert {block.lang for block in readme_blocks()} <= {"bash", "sh", "python", "json", "toml"}


@pytest.mark.parametrize("block", readme_blocks(), ids=lambda block: block.id)
def test_readme_block(block: Block, world: World, request: pytest.FixtureRequest) -> None:
    first = block.text.splitlines()[0]
    reason = next((why for prefix, why in NOT_RUN.items() if first.startswith(prefix)), None)
    if reason is not None:
        pytest.skip(reason)
    if block.lang in ("bash", "sh"):
        run_shell(block, world, request)
    elif block.lang == "python":
        run_python(block, world)
    elif block.lang == "json":
        check_json(block, world)
    elif block.lang == "toml":
        check_toml(block, world)

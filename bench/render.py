"""The rendering tier against plain Playwright, on client-rendered pages and the static corpora.

In one run, on this machine:

1. Client-rendered pages (`weblens.testing.apps`: a JSON-API app, a delayed render, lazy
   loading on scroll, an infinite scroll, a shadow-DOM widget, hash routing, a noscript app):
   the share whose text a static read finds (render="never") and render="auto" finds; the
   latency of `render="auto"` (p50/p95), beside plain Playwright on the same browser binary
   (a fresh context, `goto(wait_until="networkidle")`, `content()`, the same extraction) as
   the floor. Target: weblens <= 1.5x the floor.
2. Throughput: renders/s at 1 and 8 concurrent calls.
3. Memory: the browser's RSS (all its processes) after 10 renders and after `--renders`
   (default 1000) on one browser that is never recycled. Target: under 10 % growth.
4. The static corpora (../shared/data, when present): pages/s with `auto` beside `never`
   (target: no slower) and browser launches (target: 0).

    .venv/bin/python bench/render.py [--rounds 3] [--renders 1000] [--chromium /usr/bin/chromium] [--static-only]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from weblens.config import Settings
from weblens.fetch import Fetcher
from weblens.fetch.extract import extract
from weblens.testing.apps import APP_MARKERS, AppServer
from weblens.testing.server import FakeServer, Reply

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = ("article-extraction", "web-extraction-2026")
FLOOR_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def settings_for(tmp: Path, chromium: str, *hosts: str, **browser: Any) -> Settings:
    return Settings(
        data_dir=tmp, cache={"enabled": False}, fetch={"allowed_hosts": list(hosts)},
        browser={"path": chromium, **browser},
    )  # fmt: skip


async def weblens_latency(fetcher: Fetcher, apps: AppServer, rounds: int) -> tuple[list[float], dict[str, bool]]:
    """Seconds per `auto` fetch of each app page (its first render warms the browser, not counted)."""
    await fetcher.fetch(apps.url("/app/json?warm"))
    times: list[float] = []
    found: dict[str, bool] = {}
    for round_ in range(rounds):
        for path, marker in APP_MARKERS.items():
            url = apps.url(path.replace("#", f"?r={round_}#") if "#" in path else f"{path}?r={round_}")
            started = time.perf_counter()
            page = await fetcher.fetch(url)
            times.append(time.perf_counter() - started)
            found[path] = found.get(path, True) and marker in page.content and page.rendered
    return times, found


async def static_share(fetcher: Fetcher, apps: AppServer) -> dict[str, bool]:
    found = {}
    for path, marker in APP_MARKERS.items():
        page = await fetcher.fetch(apps.url(path), render="never")
        found[path] = marker in page.content
    return found


async def floor_latency(chromium: str, apps: AppServer, rounds: int) -> tuple[list[float], dict[str, bool]]:
    """Plain Playwright on the same binary: context, goto(networkidle), content(), the same extraction."""
    from playwright.async_api import async_playwright

    times: list[float] = []
    found: dict[str, bool] = {}
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=chromium, headless=True, args=FLOOR_ARGS)

        async def one(url: str) -> str:
            context = await browser.new_context()
            try:
                page = await context.new_page()
                await page.goto(url, wait_until="networkidle")
                html = await page.content()
            finally:
                await context.close()
            return (await asyncio.to_thread(extract, html.encode(), "text/html; charset=utf-8", url)).content

        await one(apps.url("/app/json?warm"))
        for round_ in range(rounds):
            for path, marker in APP_MARKERS.items():
                url = apps.url(path.replace("#", f"?f={round_}#") if "#" in path else f"{path}?f={round_}")
                started = time.perf_counter()
                text = await one(url)
                times.append(time.perf_counter() - started)
                found[path] = found.get(path, True) and marker in text
        await browser.close()
    return times, found


async def throughput(fetcher: Fetcher, apps: AppServer, concurrency: int, total: int) -> float:
    paths = list(APP_MARKERS)
    queue: asyncio.Queue[str] = asyncio.Queue()
    for n in range(total):
        path = paths[n % len(paths)]
        queue.put_nowait(path.replace("#", f"?t={concurrency}-{n}#") if "#" in path else f"{path}?t={concurrency}-{n}")

    async def worker() -> None:
        while not queue.empty():
            await fetcher.fetch(apps.url(queue.get_nowait()), render="always")

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return total / (time.perf_counter() - started)


async def memory(tmp: Path, chromium: str, apps: AppServer, renders: int) -> tuple[int, int]:
    """RSS of one never-recycled browser after 10 renders and after `renders`."""
    settings = settings_for(tmp, chromium, apps.host, max_pages=10**9, max_rss_mb=10**6, concurrency=4)
    paths = list(APP_MARKERS)
    async with Fetcher.from_settings(settings) as fetcher:

        async def batch(start: int, stop: int) -> None:
            sem = asyncio.Semaphore(4)

            async def one(n: int) -> None:
                path = paths[n % len(paths)]
                url = path.replace("#", f"?m={n}#") if "#" in path else f"{path}?m={n}"
                async with sem:
                    await fetcher.fetch(apps.url(url), render="always")

            await asyncio.gather(*(one(n) for n in range(start, stop)))

        def measured() -> int:
            rss = fetcher.browser.rss()
            assert rss is not None
            return rss

        await batch(0, 10)
        await asyncio.sleep(1.0)
        after_10 = measured()
        await batch(10, renders)
        await asyncio.sleep(1.0)
        after_n = measured()
        assert fetcher.browser.launches == 1
    return after_10, after_n


async def static_corpora(tmp: Path, chromium: str, rounds: int) -> None:
    pages: dict[str, bytes] = {}
    for corpus in CORPORA:
        for path in sorted((DATA / corpus / "html").glob("*.html.gz")):
            pages[f"/{corpus}/{path.name.split('.')[0]}"] = gzip.decompress(path.read_bytes())
    if not pages:
        print(f"static corpora: skipped (no data at {DATA})")
        return
    with FakeServer() as server:
        for route, body in pages.items():
            server.route("GET", route, Reply(body=body, content_type="text/html; charset=utf-8"))
        host = f"127.0.0.1:{server.port}"
        async with Fetcher.from_settings(settings_for(tmp, chromium, host)) as fetcher:
            await fetcher.workers.warm()
            rates: dict[str, list[float]] = {"never": [], "auto": []}
            would = 0
            for round_ in range(rounds):
                for mode in ("never", "auto") if round_ % 2 == 0 else ("auto", "never"):  # no order effect
                    sem = asyncio.Semaphore(8)

                    async def one(route: str, mode: str = mode, sem: asyncio.Semaphore = sem) -> bool:
                        async with sem:
                            page = await fetcher.fetch(server.url(route), render=mode)  # type: ignore[arg-type]
                        return page.rendered

                    started = time.perf_counter()
                    rendered = await asyncio.gather(*(one(route) for route in pages), return_exceptions=True)
                    rates[mode].append(len(pages) / (time.perf_counter() - started))
                    if mode == "auto":
                        would = sum(1 for r in rendered if r is True)
            launches = fetcher.browser.launches
    never, auto = statistics.median(rates["never"]), statistics.median(rates["auto"])
    print(f"static corpora ({len(pages)} pages, 8 concurrent, median of {rounds}):")
    print(f"  render=never {never:7.1f} pages/s   (today's read)")
    print(f"  render=auto  {auto:7.1f} pages/s   {auto / never:.2f}x   target >= ~1.0x")
    print(f"  pages rendered in auto: {would}; browser launches: {launches}   target 0")
    shown = {mode: [round(rate, 1) for rate in values] for mode, values in rates.items()}
    print(f"  each round (pages/s): never {shown['never']}, auto {shown['auto']}")


async def main_async(args: argparse.Namespace) -> None:
    chromium = args.chromium or shutil.which("chromium") or shutil.which("google-chrome")
    if chromium is None:
        raise SystemExit("needs a Chromium: apt-get install chromium, or pass --chromium PATH")
    with tempfile.TemporaryDirectory() as tmp, AppServer() as apps:
        tmp_path = Path(tmp)
        if args.static_only:
            await static_corpora(tmp_path, chromium, args.rounds)
            return
        async with Fetcher.from_settings(settings_for(tmp_path, chromium, apps.host)) as fetcher:
            static = await static_share(fetcher, apps)
            ours, ours_found = await weblens_latency(fetcher, apps, args.rounds)
            floor, floor_found = await floor_latency(chromium, apps, args.rounds)
            print(f"client-rendered pages ({len(APP_MARKERS)} kinds x {args.rounds} rounds):")
            print(f"  text found: static read {sum(static.values())}/{len(static)}, "
                  f"auto {sum(ours_found.values())}/{len(ours_found)}, "
                  f"plain Playwright {sum(floor_found.values())}/{len(floor_found)}")  # fmt: skip
            missing = [path for path, ok in ours_found.items() if not ok]
            if missing:
                print(f"  auto missed: {missing}")
            p50, p95, f50, f95 = pct(ours, 0.5), pct(ours, 0.95), pct(floor, 0.5), pct(floor, 0.95)
            print(f"  latency   weblens auto p50 {p50 * 1000:6.0f} ms  p95 {p95 * 1000:6.0f} ms")
            print(f"            plain Playwright p50 {f50 * 1000:6.0f} ms  p95 {f95 * 1000:6.0f} ms   (floor)")
            print(f"            ratio p50 {p50 / f50:.2f}x  p95 {p95 / f95:.2f}x   target <= 1.5x")
            for concurrency in (1, 8):
                rates = [await throughput(fetcher, apps, concurrency, 8 * len(APP_MARKERS)) for _ in range(args.rounds)]
                print(f"  throughput at {concurrency} concurrent: {statistics.median(rates):5.2f} renders/s "
                      f"(median of {args.rounds})")  # fmt: skip
        after_10, after_n = await memory(tmp_path, chromium, apps, args.renders)
        growth = (after_n - after_10) / after_10
        print(f"browser RSS after 10 renders {after_10 / 2**20:6.0f} MiB, after {args.renders} "
              f"{after_n / 2**20:6.0f} MiB: {growth:+.1%}   target < +10%")  # fmt: skip
        await static_corpora(tmp_path, chromium, args.rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--renders", type=int, default=1000, help="renders before the second memory reading")
    parser.add_argument("--chromium", help="the browser binary (default: chromium on PATH)")
    parser.add_argument("--static-only", action="store_true", help="only the static corpora")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

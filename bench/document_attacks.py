"""Hostile documents through the real fetch path: what each returns, how long it takes, and the
peak memory of the worker that read it.

Each file of `weblens.testing.hostile_documents` (zip bombs, a million-row sheet, a 16 384-column
sheet, a CSV of one 4-million-field line, an EPUB chapter of one 12 MB run of text, markup nested
100 000 deep, an .odt asking for 2e9 spaces, a PDF scan that inflates to 100 MB, PDFs and .docx
files under another file's type, ...) is served by a local `PageServer` and read by a `Fetcher`
with one worker under the default limits (`fetch.extract_timeout`, `fetch.worker_memory_mb`).
The worker's peak RSS (`VmHWM`, reset before each read) is sampled every 10 ms. The baseline, measured in the same run
and the same worker, is an ordinary generated file of each format. Medians of `--rounds` reads.

    .venv/bin/python bench/document_attacks.py [--rounds 1] [--only xlsx]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time

from weblens.cache import Cache
from weblens.config import Settings
from weblens.errors import WeblensError
from weblens.fetch import Fetcher
from weblens.testing import Reply
from weblens.testing.documents import DOCUMENT_FORMATS, make_document
from weblens.testing.hostile_documents import hostile_documents
from weblens.testing.pages import PageServer


def _peak_kib(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _reset_peak(pid: int) -> None:
    """Start the worker's VmHWM afresh (Linux: 5 in clear_refs), so each case has its own peak."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/clear_refs", "w") as refs:
        refs.write("5")


async def _read(fetcher: Fetcher, url: str) -> tuple[str, float, int]:
    """(what came back, seconds, the worker's peak RSS in MiB while it read)."""
    for pid in fetcher.workers.pids:
        _reset_peak(pid)
    peak = 0
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max([peak, *(_peak_kib(pid) for pid in fetcher.workers.pids)])
            await asyncio.sleep(0.01)

    sampler = asyncio.create_task(sample())
    started = time.perf_counter()
    try:
        document, _ = await fetcher.document(url, max_age=0)
        tail = document.content.rstrip().rsplit("\n", 1)[-1]
        said = f"ok {document.extractor}, {document.total_length:,} chars; ends {tail[-70:]!r}"
    except WeblensError as exc:
        said = f"{exc.code}: {exc.message[:90]}"
    elapsed = time.perf_counter() - started
    done.set()
    await sampler
    return said, elapsed, peak >> 10


async def _main(rounds: int, only: str | None) -> None:
    cases = {f"ordinary {kind}": make_document(kind) for kind in DOCUMENT_FORMATS}
    cases.update(hostile_documents())
    if only:
        cases = {name: case for name, case in cases.items() if only in name}
    with PageServer() as server:
        for number, (body, content_type) in enumerate(cases.values()):
            server.route("GET", f"/{number}", Reply(body=body, content_type=content_type))
        settings = Settings(fetch={"allowed_hosts": [server.host], "workers": 1, "timeout": 120})
        print(f"one worker, extract_timeout {settings.fetch.extract_timeout:g} s; medians of {rounds} reads")
        print(f"{'case':<44} {'bytes':>10} {'s':>6} {'peak MiB':>9}  result")
        async with Fetcher(settings, cache=Cache(None)) as fetcher:
            await fetcher.workers.warm()
            for number, (name, (body, _)) in enumerate(cases.items()):
                reads = [await _read(fetcher, server.url(f"/{number}")) for _ in range(rounds)]
                seconds = statistics.median(read[1] for read in reads)
                peak = statistics.median(read[2] for read in reads)
                print(f"{name:<44} {len(body):>10,} {seconds:>6.2f} {peak:>9,.0f}  {reads[-1][0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", help="run only the cases whose name holds this")
    args = parser.parse_args()
    asyncio.run(_main(args.rounds, args.only))


if __name__ == "__main__":
    main()

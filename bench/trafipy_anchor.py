"""rs-trafilatura (PyPI `trafipy`) on a benchmark corpus, for bench/extraction.py.

Runs in its own interpreter (trafipy ships only CPython 3.12+ wheels; weblens may run on
3.11), page by page as the benchmark asks, so its timings are interleaved with the other
systems' on the same page: reads the `html/*.html.gz` pages of the folder given, then for
each line read on stdin (a page id, a tab, the page's address) times `trafipy.extract` on that page
(single-threaded, given the address as the other systems are) and
answers one JSON line: its plain-text output, its seconds and its CPU seconds. Standard library only.

    python3.12 bench/trafipy_anchor.py DATA_DIR
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path


def main() -> int:
    import trafipy  # type: ignore[import-not-found]

    data = Path(sys.argv[1])
    pages = {
        path.name.split(".")[0]: gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        for path in sorted(data.glob("html/*.html.gz"))
    }
    print(json.dumps({"version": trafipy.__version__}), flush=True)
    for line in sys.stdin:
        page_id, _, url = line.rstrip("\n").partition("\t")
        started, cpu = time.perf_counter(), time.process_time()
        found = trafipy.extract(pages[page_id], url=url or None, include_comments=False)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(json.dumps({"text": found.text or "", "seconds": seconds, "cpu_seconds": cpu}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

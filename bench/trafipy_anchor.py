"""rs-trafilatura (PyPI `trafipy`) on a benchmark corpus, for bench/extraction.py.

Runs in its own interpreter (trafipy ships only CPython 3.12+ wheels; weblens may run on
3.11): reads every `html/*.html.gz` page of the folder given, times `trafipy.extract` on
each, single-threaded, and prints one JSON object on stdout: the version, each page's
plain-text output and its time in seconds. Standard library only.

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
    outputs: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for path in sorted(data.glob("html/*.html.gz")):
        page_id = path.name.split(".")[0]
        html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        started = time.perf_counter()
        found = trafipy.extract(html, include_comments=False)
        seconds[page_id] = time.perf_counter() - started
        outputs[page_id] = found.text or ""
    json.dump({"version": trafipy.__version__, "outputs": outputs, "seconds": seconds}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

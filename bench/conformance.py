"""The conformance table: every search guarantee against every provider adapter, through the fakes.

Each cell is observed (what the provider's fake received, what came back, what weblens
says it applied), not declared; see `weblens.testing.conformance`. Prints the markdown
table docs/search.md carries; exits 1 if any guarantee is violated.

    .venv/bin/python bench/conformance.py
"""

from __future__ import annotations

import asyncio
import logging
import sys

from weblens.testing.conformance import render_markdown, run_conformance


def main() -> int:
    logging.getLogger("weblens").setLevel(logging.ERROR)  # benched test keys are expected here
    table = asyncio.run(run_conformance())
    print(render_markdown(table))
    violated = [(g, p) for g, cells in table.items() for p, (_, ok) in cells.items() if not ok]
    for guarantee, provider in violated:
        print(f"VIOLATED: {guarantee} / {provider}", file=sys.stderr)
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())

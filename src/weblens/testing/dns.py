"""A resolver that answers from a table, for tests of the SSRF guard: names map to the
addresses a test chooses (a rebinding name, a name with a private answer among public ones)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["MappedResolver"]


class MappedResolver:
    """`await resolver(host, port)` returns the addresses mapped to `host`; `calls` lists
    the names asked, in order (so a test sees that a name was resolved once)."""

    def __init__(self, mapping: Mapping[str, list[str]]) -> None:
        self.mapping = dict(mapping)
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        return self.mapping[host]

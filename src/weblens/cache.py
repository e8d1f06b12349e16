"""A TTL cache for JSON values, with single-flight for identical concurrent work.

Search results and extracted pages live here, so a repeated search or "the next page"
of a document costs no upstream request. Where entries live is a `CacheStore` (a SQLite
file by default, Redis for a fleet) and who shares in-flight work is a `Flight`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from weblens.store.base import CacheStore, Flight
from weblens.store.local import SingleFlight, SqliteCacheStore

__all__ = ["Cache", "SingleFlight", "cache_key"]

T = TypeVar("T")


def cache_key(*parts: Any) -> str:
    """A stable key for JSON-like request parts (order of dict keys does not matter)."""
    raw = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


class Cache:
    """JSON values by (namespace, key) with a time to live.

    `Cache(path)` keeps them in a SQLite file (`path=None`: in memory) and shares in-flight
    work within this process; a `Runtime` passes `store` and `flight` to share them wider.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        enabled: bool = True,
        store: CacheStore | None = None,
        flight: Flight | None = None,
    ) -> None:
        self.enabled = enabled
        self.store: CacheStore = store if store is not None else SqliteCacheStore(path)
        self._flight: Flight = flight if flight is not None else SingleFlight()

    def close(self) -> None:
        self.store.close()

    async def get(self, namespace: str, key: str) -> Any | None:
        if not self.enabled:
            return None
        raw = await self.store.get(namespace, key)
        return None if raw is None else json.loads(raw)

    async def set(self, namespace: str, key: str, value: Any, ttl_s: float) -> None:
        if not self.enabled or ttl_s <= 0:
            return
        await self.store.set(namespace, key, json.dumps(value, ensure_ascii=False, separators=(",", ":")), ttl_s)

    async def delete(self, namespace: str, key: str) -> None:
        if self.enabled:
            await self.store.delete(namespace, key)

    async def purge_expired(self) -> int:
        return await self.store.purge_expired()

    async def clear(self) -> None:
        await self.store.clear()

    async def get_or_compute(
        self,
        namespace: str,
        key: str,
        ttl_s: float | Callable[[T], float],
        compute: Callable[[], Awaitable[T]],
        *,
        use_cache: bool = True,
        share_by: tuple[Any, ...] = (),
    ) -> tuple[T, bool]:
        """(value, was_cached). Concurrent identical misses share one `compute()`;
        `use_cache=False` skips reading the cache but still shares in-flight work. `ttl_s` may
        be a function of the value (0 or less: the value is not stored). `share_by`: what else
        callers must agree on to share in-flight work (rules that change how it is done, such
        as a deadline), though its value is cached under `key` alone."""
        if use_cache:
            hit = await self.get(namespace, key)
            if hit is not None:
                return hit, True

        async def work() -> T:
            if use_cache:  # another replica may have finished it between our read and our turn
                hit = await self.get(namespace, key)
                if hit is not None:
                    return hit  # type: ignore[no-any-return]
            value = await compute()
            await self.set(namespace, key, value, ttl_s(value) if callable(ttl_s) else ttl_s)
            return value

        flight = f"{namespace}\x00{key}" + (f"\x00{cache_key(*share_by)}" if share_by else "")
        return await self._flight.do(flight, work), False

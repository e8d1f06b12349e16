"""The state backends of a fleet: every replica given the same `WEBLENS_REDIS_URL` shares them.

Slots (rate limits) and breakers change in Lua scripts on Redis' own clock, so replicas
never race or disagree on time. Single-flight is a lock with an expiry whose holder
publishes its result under a key its waiters poll. When Redis cannot be reached, each
store answers from its local twin (this process only) and `RedisState` logs that once
per outage; the readiness check reports it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from weblens.errors import ToolValidationError, UpstreamError, WeblensError, error_class_for
from weblens.policy.state import Bench, LocalPolicyState
from weblens.store.local import LocalBreakers, LocalSlots, SingleFlight

__all__ = ["RedisBreakers", "RedisCacheStore", "RedisFlight", "RedisPolicyState", "RedisSlots", "RedisState"]

T = TypeVar("T")
log = logging.getLogger("weblens.store")

_CLAIM = """
local function f(x) return string.format('%.6f', x) end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local nb = tonumber(redis.call('HGET', KEYS[1], 'not_before') or '0')
local interval = tonumber(ARGV[1])
while true do
  local freed = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #freed == 0 then break end
  redis.call('ZREM', KEYS[2], freed[1])
  local s = tonumber(freed[2])
  if s >= math.max(now, nb) then return {f(s), f(s - now)} end
end
local nxt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
local start = math.max(now, nxt, nb)
redis.call('HSET', KEYS[1], 'next', f(start + interval))
redis.call('PEXPIRE', KEYS[1], math.ceil((start - now + interval) * 1000) + 60000)
return {f(start), f(start - now)}
"""
_RELEASE = """
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 600000)
"""
_DEFER = """
local function f(x) return string.format('%.6f', x) end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local nb = math.max(tonumber(redis.call('HGET', KEYS[1], 'not_before') or '0'), now + tonumber(ARGV[1]))
local nxt = math.max(tonumber(redis.call('HGET', KEYS[1], 'next') or '0'), nb)
redis.call('HSET', KEYS[1], 'not_before', f(nb), 'next', f(nxt))
redis.call('PEXPIRE', KEYS[1], math.ceil((nxt - now) * 1000) + 60000)
"""
_DEPART = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local interval = tonumber(ARGV[1])
local last = tonumber(redis.call('HGET', KEYS[1], 'departed') or '-1e18')
if now < last + interval then return string.format('%.6f', last + interval - now) end
redis.call('HSET', KEYS[1], 'departed', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), math.ceil(interval * 1000) + 60000))
return '0'
"""
_FAILED = """
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
redis.call('HSET', KEYS[1], 'code', ARGV[1], 'message', ARGV[2])
local cooldown_ms = math.ceil(tonumber(ARGV[4]) * 1000)
redis.call('PEXPIRE', KEYS[1], cooldown_ms + 600000)
if failures >= tonumber(ARGV[3]) and cooldown_ms > 0 then
  redis.call('SET', KEYS[2], '1', 'PX', cooldown_ms)
end
"""
_INCREMENT = """
local value = redis.call('INCR', KEYS[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return value
"""
_BENCH = """
local current = redis.call('GET', KEYS[1])
if current and tonumber(cjson.decode(current)['until']) >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[3])
return 1
"""
_LOCK = """
local holder = redis.call('GET', KEYS[1])
if holder then return holder end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''
"""
_EXTEND = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def shown_url(url: str) -> str:
    """`url` without its user and password, for logs and errors."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class RedisState:
    """One Redis connection pool for every store, with short timeouts so a lost Redis costs a
    call at most `timeout_s` (a refused connection costs nothing), then `retry_s` of answering
    from the local twins before trying again."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "weblens:",
        timeout_s: float = 5.0,
        retry_s: float = 2.0,
        connections: int = 16,
    ) -> None:
        self.url = shown_url(url)
        self.prefix = prefix
        self.retry_s = retry_s
        # a bounded pool: a burst of searches waits for a connection instead of opening hundreds at
        # once; 5 s, because a replica whose event loop is busy with a burst answers its own sockets
        # late (2 s made a healthy Redis look lost under 300 concurrent searches on 2 cores)
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=connections,
            timeout=timeout_s,
            decode_responses=True,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),
        )
        self.client: aioredis.Redis = aioredis.Redis(connection_pool=pool)
        self._down_until = 0.0
        self._down = False
        self._scripts: dict[str, Any] = {}

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    async def check(self) -> None:
        """Raise `UpstreamError` when Redis does not answer (a readiness check)."""
        try:
            await self.client.ping()
        except (RedisError, OSError) as exc:
            raise UpstreamError(f"Redis at {self.url} is unreachable: {exc}") from None

    @property
    def reachable(self) -> bool:
        """False while this process answers from local state after losing Redis."""
        return not self._down

    async def script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        script = self._scripts.get(source)
        if script is None:
            script = self._scripts[source] = self.client.register_script(source)
        return await script(keys=keys, args=args)

    async def run(self, op: Callable[[aioredis.Redis], Awaitable[T]], fallback: Callable[[], Awaitable[T]]) -> T:
        """`op` against Redis; `fallback()` (this process's own state) while Redis is lost."""
        if self._down and time.monotonic() < self._down_until:
            return await fallback()
        try:
            result = await op(self.client)
        except (RedisError, OSError) as exc:
            self._lost(exc)
            return await fallback()
        if self._down:
            self._down = False
            log.warning("Redis at %s is reachable again: limits, breakers and cache are shared again", self.url)
        return result

    def _lost(self, exc: BaseException) -> None:
        self._down_until = time.monotonic() + self.retry_s
        if not self._down:
            self._down = True
            log.warning(
                "Redis at %s is unreachable (%s): rate limits, breakers, single-flight and policy counters "
                "are per process and the cache is off until it is back",
                self.url,
                exc or type(exc).__name__,
            )

    async def aclose(self) -> None:
        await self.client.aclose()
        await self.client.connection_pool.disconnect()


class RedisCacheStore:
    """Cache entries as Redis strings with a time to live; a miss while Redis is lost."""

    def __init__(self, state: RedisState) -> None:
        self.state = state

    async def get(self, namespace: str, key: str) -> str | None:
        async def nothing() -> str | None:
            return None

        value = await self.state.run(lambda r: r.get(self.state.key("cache", namespace, key)), nothing)
        return None if value is None else str(value)

    async def set(self, namespace: str, key: str, value: str, ttl_s: float) -> None:
        async def skip() -> None:
            return None

        async def put(r: aioredis.Redis) -> None:
            await r.set(self.state.key("cache", namespace, key), value, px=max(1, int(ttl_s * 1000)))

        await self.state.run(put, skip)

    async def delete(self, namespace: str, key: str) -> None:
        async def skip() -> None:
            return None

        async def forget(r: aioredis.Redis) -> None:
            await r.delete(self.state.key("cache", namespace, key))

        await self.state.run(forget, skip)

    async def clear(self) -> None:
        async for name in self.state.client.scan_iter(match=self.state.key("cache", "*"), count=500):
            await self.state.client.delete(name)

    async def purge_expired(self) -> int:
        return 0  # Redis expires entries itself

    def close(self) -> None:
        """The connection belongs to the `RedisState`."""


class RedisSlots:
    """`SlotStore` in Redis: one spacing per upstream for the whole fleet."""

    def __init__(self, state: RedisState, local: LocalSlots | None = None) -> None:
        self.state = state
        self.local = local or LocalSlots()
        self._local_since: set[str] = set()
        """Upstreams given slots here while Redis was lost: Redis must hear of them when it is back."""

    async def claim(self, name: str, interval_s: float) -> tuple[float, float]:
        """A slot from Redis; while Redis is lost, from this process, spaced from the last one Redis gave
        it; and when Redis is back, Redis first waits out the slots given here meanwhile."""
        keys = [self.state.key("slots", name), self.state.key("slots", name, "freed")]

        async def shared(_: aioredis.Redis) -> Any:
            if name in self._local_since:
                ahead = self.local.ahead(name)
                if ahead > 0:
                    await self.state.script(_DEFER, keys[:1], [repr(ahead)])
                self._local_since.discard(name)
            found = await self.state.script(_CLAIM, keys, [repr(interval_s)])
            self.local.note(name, float(found[1]), interval_s)
            return found

        async def here() -> tuple[float, float]:
            self._local_since.add(name)
            return await self.local.claim(name, interval_s)

        start, wait = await self.state.run(shared, here)
        return float(start), float(wait)

    async def release(self, name: str, start: float) -> None:
        await self.state.run(
            lambda _: self.state.script(_RELEASE, [self.state.key("slots", name, "freed")], [repr(start)]),
            lambda: self.local.release(name, start),
        )

    async def defer(self, name: str, seconds: float) -> None:
        await self.state.run(
            lambda _: self.state.script(_DEFER, [self.state.key("slots", name)], [repr(seconds)]),
            lambda: self.local.defer(name, seconds),
        )

    async def depart(self, name: str, interval_s: float) -> float:
        wait = await self.state.run(
            lambda _: self.state.script(_DEPART, [self.state.key("slots", name)], [repr(interval_s)]),
            lambda: self.local.depart(name, interval_s),
        )
        return float(wait)


class RedisBreakers:
    """`BreakerStore` in Redis: failures in a hash, the open state a key that expires with the cool-down."""

    def __init__(self, state: RedisState, local: LocalBreakers | None = None) -> None:
        self.state = state
        self.local = local or LocalBreakers()

    def _keys(self, name: str) -> list[str]:
        return [self.state.key("breaker", name), self.state.key("breaker", name, "open")]

    async def open_for(self, name: str) -> float:
        async def remaining(r: aioredis.Redis) -> float:
            ms = await r.pttl(self._keys(name)[1])
            return max(0.0, ms / 1000) if ms > 0 else 0.0

        return await self.state.run(remaining, lambda: self.local.open_for(name))

    async def last_failure(self, name: str) -> tuple[str, str]:
        async def read(r: aioredis.Redis) -> tuple[str, str]:
            code, message = await r.hmget(self._keys(name)[0], ["code", "message"])
            return str(code or ""), str(message or "")

        return await self.state.run(read, lambda: self.local.last_failure(name))

    async def succeeded(self, name: str) -> None:
        async def forget(r: aioredis.Redis) -> None:
            await r.delete(*self._keys(name))

        await self.state.run(forget, lambda: self.local.succeeded(name))

    async def failed(self, name: str, code: str, message: str, *, threshold: int, cooldown_s: float) -> None:
        await self.state.run(
            lambda _: self.state.script(_FAILED, self._keys(name), [code, message, threshold, repr(cooldown_s)]),
            lambda: self.local.failed(name, code, message, threshold=threshold, cooldown_s=cooldown_s),
        )


class RedisPolicyState:
    """`PolicyState` in Redis: counters with `INCR` + `PEXPIREAT`, benches as keys that expire."""

    def __init__(self, state: RedisState, local: LocalPolicyState | None = None) -> None:
        self.state = state
        self.local = local or LocalPolicyState()

    async def increment(self, key: str, *, expires_at: float) -> int:
        found = await self.state.run(
            lambda _: self.state.script(_INCREMENT, [self.state.key("count", key)], [int(expires_at * 1000)]),
            lambda: self.local.increment(key, expires_at=expires_at),
        )
        return int(found)

    async def bench(self, key: str, *, until: float, reason: str) -> None:
        payload = json.dumps({"until": until, "reason": reason})
        args = [payload, repr(until), int(until * 1000)]
        await self.state.run(
            lambda _: self.state.script(_BENCH, [self.state.key("bench", key)], args),
            lambda: self.local.bench(key, until=until, reason=reason),
        )

    async def benched(self, key: str) -> Bench | None:
        async def read(r: aioredis.Redis) -> Bench | None:
            raw = await r.get(self.state.key("bench", key))
            if raw is None:
                return None
            data = json.loads(raw)
            return Bench(float(data["until"]), str(data["reason"]))

        return await self.state.run(read, lambda: self.local.benched(key))


class RedisFlight:
    """Single-flight across the fleet: the first replica to take a key's lock does the work and
    publishes its outcome (a JSON value, or a weblens error) for the others, who poll for it.

    Within a process the local single-flight runs first, so one caller per replica waits.
    A lock holder that dies lets its lock expire after `lock_s`; a waiter then takes over.
    """

    def __init__(self, state: RedisState, *, lock_s: float = 15.0, result_s: float = 30.0) -> None:
        self.state = state
        self.lock_s = lock_s
        self.result_s = result_s
        self.local = SingleFlight()

    async def do(self, key: str, work: Callable[[], Awaitable[T]]) -> T:
        return await self.local.do(key, lambda: self._fleet(key, work))

    async def _fleet(self, key: str, work: Callable[[], Awaitable[T]]) -> T:
        lock = self.state.key("flight", key)
        token = uuid.uuid4().hex
        lock_ms = int(self.lock_s * 1000)

        async def alone() -> str:
            return ""  # Redis lost: do the work in this process

        while True:
            holder = await self.state.run(lambda _: self.state.script(_LOCK, [lock], [token, lock_ms]), alone)
            if not holder:
                return await self._lead(lock, token, work)
            outcome = await self._await(lock, str(holder))
            if outcome is not None:
                return self._unpack(outcome)  # type: ignore[no-any-return]

    async def _lead(self, lock: str, token: str, work: Callable[[], Awaitable[T]]) -> T:
        keeper = asyncio.ensure_future(self._keep(lock, token))
        outcome: dict[str, Any] | None = None
        try:
            value = await work()
            outcome = {"value": value}
            return value
        except WeblensError as exc:
            outcome = {
                "error": {
                    "code": exc.code,
                    "message": exc.message,
                    "retryable": exc.retryable,
                    "retry_after_s": exc.retry_after_s,
                    "details": exc.details,
                }
            }
            raise
        finally:
            keeper.cancel()
            await self._publish(lock, token, outcome)

    async def _publish(self, lock: str, token: str, outcome: dict[str, Any] | None) -> None:
        async def skip() -> None:
            return None

        async def put(r: aioredis.Redis) -> None:
            if outcome is not None:
                try:
                    payload = json.dumps(outcome, ensure_ascii=False)
                except (TypeError, ValueError):
                    payload = None
                if payload is not None:
                    await r.set(self.state.key("flight-result", token), payload, px=int(self.result_s * 1000))
            await self.state.script(_UNLOCK, [lock], [token])

        await self.state.run(put, skip)

    async def _keep(self, lock: str, token: str) -> None:
        """Extend the lock while the work runs (a rate-limit queue can be long)."""
        while True:
            await asyncio.sleep(self.lock_s / 3)

            async def skip() -> None:
                return None

            async def extend(_: aioredis.Redis) -> None:
                await self.state.script(_EXTEND, [lock], [token, int(self.lock_s * 1000)])

            await self.state.run(extend, skip)

    async def _await(self, lock: str, holder: str) -> dict[str, Any] | None:
        """The holder's outcome; None when it ended without one (or Redis was lost): try again."""
        result_key = self.state.key("flight-result", holder)
        pause = 0.02

        async def lost() -> tuple[str | None, str | None]:
            return None, None

        while True:

            async def read(r: aioredis.Redis) -> tuple[str | None, str | None]:
                async with r.pipeline(transaction=False) as pipe:
                    pipe.get(result_key)
                    pipe.get(lock)
                    raw, current = await pipe.execute()
                return raw, current

            raw, current = await self.state.run(read, lost)
            if raw is not None:
                found: dict[str, Any] = json.loads(raw)
                return found
            if current != holder:
                return None
            await asyncio.sleep(pause)
            pause = min(pause * 1.5, 0.2)

    @staticmethod
    def _unpack(outcome: dict[str, Any]) -> Any:
        error = outcome.get("error")
        if error is None:
            return outcome.get("value")
        cls = error_class_for(str(error.get("code")))
        exc = cls.__new__(cls)
        WeblensError.__init__(
            exc,
            str(error.get("message")),
            retryable=error.get("retryable"),
            retry_after_s=error.get("retry_after_s"),
            details=error.get("details") or {},
        )
        if isinstance(exc, UpstreamError):
            exc.status = exc.details.get("status")
        if isinstance(exc, ToolValidationError):
            exc.issues = list(exc.details.get("issues") or [])
        raise exc

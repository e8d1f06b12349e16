"""Crawl jobs across a fleet: every replica works every job through taskiq on Redis streams.

Each URL of a job is one task message. A replica takes a few at a time (a consumer group, so a
message goes to one replica) and acknowledges it only once the page is settled; a replica that
dies leaves its messages unacknowledged, and after `crawl.job_lease_s` another replica claims
them (taskiq-redis' XAUTOCLAIM) and reads the page again. The store's seen-set and claims make
sure no URL is read twice otherwise. Politeness is the fleet's: `FleetGate` lets at most 2
requests per host be in flight across all replicas, and spaces them by `Crawl-delay` on the
shared rate-limit slots, so one site is crawled at one polite rate however many replicas run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

from taskiq import Context, TaskiqDepends
from taskiq.acks import AcknowledgeType
from taskiq.receiver import Receiver
from taskiq_redis import RedisStreamBroker

from weblens.errors import WeblensError
from weblens.sites.client import SiteClient
from weblens.sites.jobs.local import READING
from weblens.sites.jobs.models import JobItem
from weblens.sites.jobs.redis_store import RedisJobStore
from weblens.sites.jobs.work import JobWorker
from weblens.sites.polite import MAX_BACKOFF_S, Gate, GateFactory
from weblens.store.base import SlotStore
from weblens.store.redis import RedisState
from weblens.urls import canonical_url

__all__ = ["FleetGate", "FleetRunner"]

log = logging.getLogger("weblens.sites.jobs")
_POLL_S = 0.02
"""How often a request waiting for one of its host's slots asks again."""
_WAIT_S = 0.2
"""A URL that must wait (pages in flight may still fail and free a place) is queued again after this."""
_CONNECT_S = 5.0
_CLOSE_S = 5.0
"""How long closing waits for the receiver to stop on its own before it is cancelled."""
_STREAM_MAX = 200_000
"""Messages kept in the stream (acknowledged ones are trimmed first)."""

_CONTEXT: Context = TaskiqDepends()
"""taskiq hands a task its message (whose id is the same when a dead replica's message is delivered again)."""

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return 1
end
return 0
"""


class FleetGate:
    """One host's turnstile for the whole fleet: at most `concurrency` requests in flight (leases in
    a Redis sorted set, so a replica that dies frees its slot after `lease_s`), starts spaced by
    `interval_s` and deferred after a 429 on the shared slots."""

    def __init__(
        self, state: RedisState, slots: SlotStore, host: str, concurrency: int, interval_s: float, lease_s: float
    ) -> None:
        self.state, self.slots = state, slots
        self.key = state.key("crawl", "host", host)
        self.name = f"crawl:{host}"
        self.concurrency = concurrency
        self.interval_s = min(max(0.0, interval_s), MAX_BACKOFF_S)
        self.lease_ms = int(lease_s * 1000)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        token = uuid.uuid4().hex
        while not await self.state.script(_ACQUIRE, [self.key], [token, self.concurrency, self.lease_ms]):
            await asyncio.sleep(_POLL_S)
        try:
            _, wait = await self.slots.claim(self.name, self.interval_s)
            if wait > 0:
                await asyncio.sleep(wait)
            yield
        finally:
            await self.state.client.zrem(self.key, token)

    async def slow_down(self, retry_after_s: float | None) -> float:
        wait = min(MAX_BACKOFF_S, retry_after_s if retry_after_s is not None else 1.0)
        self.interval_s = min(MAX_BACKOFF_S, max(self.interval_s * 2, 0.5))
        await self.slots.defer(self.name, wait)
        return wait


def fleet_gates(state: RedisState, slots: SlotStore, lease_s: float) -> GateFactory:
    def gate(host: str, concurrency: int, interval_s: float) -> Gate:
        return FleetGate(state, slots, host, concurrency, interval_s, lease_s)

    return gate


class FleetRunner:
    """This replica's share of the fleet's crawl work: a taskiq receiver reading a few messages at a time."""

    def __init__(self, store: RedisJobStore, client: SiteClient, redis_url: str, *, lease_s: float) -> None:
        self.store = store
        self.lease_s = lease_s
        self.worker = JobWorker(store, client, self._enqueue)
        self.broker = RedisStreamBroker(
            redis_url, queue_name=store.state.key("crawl", "queue"), consumer_group_name="weblens-crawl",
            consumer_id="0", xread_block=1000, xread_count=READING, idle_timeout=int(lease_s * 1000),
            unacknowledged_lock_timeout=lease_s, maxlen=_STREAM_MAX, socket_connect_timeout=_CONNECT_S,
        )  # fmt: skip

        # taskiq registers functions, not bound methods
        async def read_page(job_id: str, url: str, depth: int, score: float, context: Context = _CONTEXT) -> None:
            work = self._read_page(job_id, url, depth, score, context)
            await self._tracked(work, lambda: self._page.kiq(job_id, url, depth, score))

        async def seed_job(job_id: str, context: Context = _CONTEXT) -> None:
            await self._tracked(self._seed_job(job_id, context), lambda: self._seed.kiq(job_id))

        self._page = self.broker.register_task(read_page, task_name="weblens.crawl.page")
        self._seed = self.broker.register_task(seed_job, task_name="weblens.crawl.seed")
        self._finish = asyncio.Event()
        self._listening: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._reading: set[asyncio.Task[None]] = set()
        """Pages being read here: cancelled at close, unsettled, so their leases hand them to another replica."""

    async def start(self) -> None:
        self.broker.is_worker_process = True
        await self.broker.startup()
        receiver = Receiver(
            self.broker, max_async_tasks=READING, run_startup=False, ack_type=AcknowledgeType.WHEN_EXECUTED,
            propagate_exceptions=False,
        )  # fmt: skip
        self._listening = asyncio.create_task(receiver.listen(self._finish))
        self._ticker = asyncio.create_task(self._ticking())

    async def run(self, job_id: str) -> None:
        await self._seed.kiq(job_id)

    async def stop(self, job_id: str) -> None:
        """Nothing to do here: the job's state, now cancelled, stops every replica's claims."""

    async def aclose(self) -> None:
        """Stop in the order taskiq expects: the receiver takes no more messages, the pages being read
        here are abandoned (their task functions return, so taskiq has no error to log; their leases
        hand them to another replica), and the receiver, its tasks ended, returns by itself. Cancelling
        taskiq's own tasks instead would make it log each one as an ERROR with a traceback."""
        self._finish.set()
        for task in self._reading:
            task.cancel()
        if self._ticker is not None:
            self._ticker.cancel()
        running = [task for task in (self._listening, self._ticker) if task is not None]
        if running:
            _, late = await asyncio.wait(running, timeout=_CLOSE_S)
            for task in late:  # a receiver stuck on Redis
                task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await self.broker.shutdown()

    async def _tracked(self, work: Coroutine[Any, Any, None], again: Callable[[], Awaitable[object]]) -> None:
        """Run a task's work so that closing can abandon it quietly; a message taskiq delivers while
        this replica closes is not read here but sent again (`again`) for another replica."""
        if self._finish.is_set():
            work.close()
            await again()
            return
        reading = asyncio.create_task(work)
        self._reading.add(reading)
        try:
            await reading
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # taskiq itself cancels the task
        finally:
            self._reading.discard(reading)

    async def _enqueue(self, job_id: str, items: list[JobItem]) -> None:
        for item in items:
            await self._page.kiq(job_id, item.url, item.depth, item.score)

    async def _ticking(self) -> None:
        """Every half lease, queue again what dead replicas had claimed and not settled (their
        lease ran out), had begun to seed, or had taken from the queue and not begun (the job is
        quiet for a lease with URLs left). A replica stopped mid-page acknowledges its message as
        failed, one killed does not: the claims' own leases cover both."""
        while True:
            await asyncio.sleep(max(0.2, self.lease_s / 2))
            with contextlib.suppress(WeblensError):
                for job_id in await self.store.running():
                    if await self.store.unseeded(job_id):
                        await self._seed.kiq(job_id)
                    await self._enqueue(job_id, await self.store.expired(job_id))
                    await self._enqueue(job_id, await self.store.stalled(job_id))

    async def _seed_job(self, job_id: str, context: Context) -> None:
        verdict = await self.store.begin_seed(job_id, context.message.task_id)
        if verdict in ("go", "again"):
            await self.worker.seed(job_id, again=verdict == "again")

    async def _read_page(self, job_id: str, url: str, depth: int, score: float, context: Context) -> None:
        item = JobItem(url, depth, score)
        verdict = await self.worker.take(job_id, item, context.message.task_id)
        if verdict == "full":
            await self.store.drop(job_id, canonical_url(url))
        elif verdict == "wait":
            await asyncio.sleep(_WAIT_S)
            await self._page.kiq(job_id, url, depth, score)
        elif verdict in ("go", "again"):
            await self.worker.read(job_id, item, again=verdict == "again")

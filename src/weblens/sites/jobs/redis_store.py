"""Crawl jobs in Redis, shared by every replica: the job hash, its seen-set, claimed and settled
sets, the texts read and the results. Claims and settlements are Lua scripts, so replicas never
race: a URL is admitted once (SADD), claimed once, and settled once.

When a job ends, its hash and every key of it get the job's keep time as a TTL (set in the same
script), and a key written later (a page in flight at a cancel) inherits it; so an ended job
vanishes from Redis after `crawl.job_keep_days` with no sweeper. Scripts that may write to an
ended job get all its keys, and do nothing once the job is gone (deleted or expired)."""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from redis.exceptions import RedisError

from weblens.errors import NotFoundError, UpstreamError
from weblens.sites.crawl import MAX_QUERY_VARIANTS, CrawledPage, FailedPage
from weblens.sites.jobs.models import CrawlJob, JobItem, JobSpec, Verdict
from weblens.sites.jobs.store import Found, ResultKind
from weblens.store.redis import RedisState

__all__ = ["RedisJobStore"]

_PARTS = ("done", "pages", "failed", "skipped", "leases", "items", "seen", "variants", "claimed", "texts")
"""A job's keys besides its hash (and `seeding`, which holds only for a lease)."""
# Prefix of the scripts that write to a job that may have ended: KEYS[1] is the job's hash; on
# its end the hash gets its keep time as TTL, and every other key in KEYS a TTL like it.
_RETIRE = """
local function share_ttl()
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    for i = 2, #KEYS do
      if redis.call('PTTL', KEYS[i]) == -1 then redis.call('PEXPIRE', KEYS[i], ttl) end
    end
  end
end
local function ended(state, now)
  redis.call('HSET', KEYS[1], 'state', state, 'finished_at', now, 'updated_at', now)
  local keep = redis.call('HGET', KEYS[1], 'keep_ms')
  if keep then redis.call('PEXPIRE', KEYS[1], keep) end
  share_ttl()
end
"""
# KEYS: job, claimed (key -> token), done, leases (key -> expiry ms)
# ARGV: key, token, lease ms
_CLAIM = """
local job = KEYS[1]
if redis.call('HGET', job, 'state') ~= 'running' then return 'stop' end
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 'done' end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder then
  local free = holder == ARGV[2] or holder == '*'
  if not free and tonumber(redis.call('ZSCORE', KEYS[4], ARGV[1]) or '0') > now then return 'done' end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[1])
  return 'again'
end
local function n(field) return tonumber(redis.call('HGET', job, field) or '0') end
if n('pages') >= n('max_pages') or n('attempts') >= n('max_attempts') then return 'full' end
if n('held') >= n('max_pages') then return 'wait' end
redis.call('HINCRBY', job, 'held', 1)
redis.call('HINCRBY', job, 'attempts', 1)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[1])
return 'go'
"""
# KEYS: job, leases, items, claimed; returns the items whose lease ran out (their reader died), each
# lease renewed (one replica re-queues them per lease) and its claim free for the next delivery ('*')
_EXPIRED = """
if redis.call('HGET', KEYS[1], 'state') ~= 'running' then return {} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local keys = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
local items = {}
for _, key in ipairs(keys) do
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), key)
  redis.call('HSET', KEYS[4], key, '*')
  table.insert(items, redis.call('HGET', KEYS[3], key) or '')
end
return items
"""
# KEYS: job, then _PARTS; ARGV: key, kind (page, failed, skipped, links, left), body, now
_FINISH = (
    _RETIRE
    + """
local job = KEYS[1]
if redis.call('EXISTS', job) == 0 then return 0 end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[6], ARGV[1])
redis.call('HDEL', KEYS[7], ARGV[1])
local kind = ARGV[2]
if kind == 'page' then
  redis.call('RPUSH', KEYS[3], ARGV[3])
  redis.call('HINCRBY', job, 'pages', 1)
elseif kind == 'left' then
  redis.call('HINCRBY', job, 'left', 1)
else
  redis.call('HINCRBY', job, 'held', -1)
  if kind == 'failed' then
    redis.call('RPUSH', KEYS[4], ARGV[3])
    redis.call('HINCRBY', job, 'failed', 1)
  elseif kind == 'skipped' then
    redis.call('HINCRBY', KEYS[5], ARGV[3], 1)
  end
end
local pending = redis.call('HINCRBY', job, 'pending', -1)
redis.call('HSET', job, 'updated_at', ARGV[4])
if pending <= 0 and redis.call('HGET', job, 'seeded') == '1' and redis.call('HGET', job, 'state') == 'running' then
  ended('done', ARGV[4])
end
share_ttl()
return 1
"""
)
# ARGV: max variants, again (1/0), most URLs seen (0: no limit), then (key, variant or '', item as JSON)
# triples; returns the 1-based positions admitted (and with again, those seen but neither claimed nor
# settled, to be queued once more)
_ADMIT = """
local job = KEYS[1]
if redis.call('HGET', job, 'state') ~= 'running' then return {} end
local new = {}
local added = 0
local traps = 0
local full = 0
local limit = tonumber(ARGV[3])
for i = 4, #ARGV, 3 do
  local key, variant = ARGV[i], ARGV[i + 1]
  if redis.call('SISMEMBER', KEYS[2], key) == 1 then
    if ARGV[2] == '1' and redis.call('HEXISTS', KEYS[5], key) == 0 and redis.call('SISMEMBER', KEYS[6], key) == 0 then
      table.insert(new, (i - 1) / 3)
    end
  elseif limit > 0 and redis.call('SCARD', KEYS[2]) >= limit then
    full = full + 1
  else
    if variant ~= '' and redis.call('HINCRBY', KEYS[3], variant, 1) > tonumber(ARGV[1]) then
      traps = traps + 1
    else
      redis.call('SADD', KEYS[2], key)
      redis.call('HSET', KEYS[7], key, ARGV[i + 2])
      added = added + 1
      table.insert(new, (i - 1) / 3)
    end
  end
end
if traps > 0 then redis.call('HINCRBY', KEYS[4], 'trap', traps) end
if full > 0 then redis.call('HINCRBY', KEYS[4], 'queue_full', full) end
redis.call('HINCRBY', job, 'pending', added)
return new
"""
# KEYS: job, items (key -> item, while unsettled), claimed; ARGV: now, quiet seconds. A running job
# with URLs to read, none being read and nothing settled for `quiet` seconds lost their messages
# (a replica stopped with them prefetched): returns them (at most 1000) to be queued again.
_STALLED = """
local job = KEYS[1]
if redis.call('HGET', job, 'state') ~= 'running' or redis.call('HGET', job, 'seeded') ~= '1' then return {} end
local function n(field) return tonumber(redis.call('HGET', job, field) or '0') end
if n('held') > n('pages') or n('pending') <= 0 or n('updated_at') > tonumber(ARGV[1]) - tonumber(ARGV[2]) then
  return {}
end
redis.call('HSET', job, 'updated_at', ARGV[1])
local found = {}
local entries = redis.call('HGETALL', KEYS[2])
for i = 1, #entries, 2 do
  if redis.call('HEXISTS', KEYS[3], entries[i]) == 0 then table.insert(found, entries[i + 1]) end
  if #found >= 1000 then break end
end
return found
"""
# KEYS: job, then _PARTS
_SEEDED = (
    _RETIRE
    + """
local job = KEYS[1]
if redis.call('EXISTS', job) == 0 then return end
redis.call('HSET', job, 'seeded', '1', 'limits', ARGV[1], 'updated_at', ARGV[3])
if ARGV[2] ~= '' then redis.call('HSET', job, 'error', ARGV[2]) end
local idle = tonumber(redis.call('HGET', job, 'pending') or '0') <= 0
if redis.call('HGET', job, 'state') == 'running' and (ARGV[2] ~= '' or idle) then
  ended(ARGV[2] ~= '' and 'failed' or 'done', ARGV[3])
end
"""
)
_CANCEL = (
    _RETIRE
    + """
if redis.call('HGET', KEYS[1], 'state') == 'running' then ended('cancelled', ARGV[1]) end
"""
)
# KEYS: job, skipped; ARGV: reason, count pairs
_SKIP = (
    _RETIRE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return end
for i = 1, #ARGV, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]) end
share_ttl()
"""
)
# KEYS: job, texts; ARGV: text key, URL key; 1: the first reading of this text (or the same URL's again)
_TEXT = (
    _RETIRE
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
share_ttl()
return redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] and 1 or 0
"""
)
# KEYS: job, the jobs' index, then _PARTS and seeding; ARGV: job id
_DELETE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HGET', KEYS[1], 'state') == 'running' then return 'running' end
redis.call('ZREM', KEYS[2], ARGV[1])
for i = 1, #KEYS do if i ~= 2 then redis.call('DEL', KEYS[i]) end end
return 'deleted'
"""


def _int(fields: dict[str, str], name: str) -> int:
    return int(fields.get(name) or 0)


def _float(fields: dict[str, str], name: str) -> float | None:
    value = fields.get(name)
    return float(value) if value else None


class RedisJobStore:
    name = "redis"

    def __init__(self, state: RedisState, *, lease_s: float, keep_s: float) -> None:
        """`lease_s`: how long a claim holds before another replica may take the URL over; `keep_s`:
        how long a job that ended is kept."""
        self.state = state
        self.redis = state.client
        self.lease_ms = int(lease_s * 1000)
        self.keep_ms = max(1, int(keep_s * 1000))
        self.index = state.key("crawl", "jobs")

    def _key(self, job_id: str, *part: str) -> str:
        return self.state.key("crawl", job_id, *part)

    def _keys(self, job_id: str) -> list[str]:
        """The job's hash, then its _PARTS."""
        return [self._key(job_id), *(self._key(job_id, part) for part in _PARTS)]

    async def _script(self, source: str, keys: list[str], args: list[Any]) -> Any:
        try:
            return await self.state.script(source, keys, args)
        except (RedisError, OSError) as exc:
            raise UpstreamError(f"crawl jobs are unavailable: Redis at {self.state.url}: {exc}") from None

    async def _fields(self, job_id: str) -> dict[str, str]:
        try:
            fields = cast(dict[str, str], await self.redis.hgetall(self._key(job_id)))
        except (RedisError, OSError) as exc:
            raise UpstreamError(f"crawl jobs are unavailable: Redis at {self.state.url}: {exc}") from None
        if not fields:
            raise NotFoundError(f"no crawl job {job_id[:80]!r}")
        return fields

    def _job(self, job_id: str, fields: dict[str, str], skipped: dict[str, str]) -> CrawlJob:
        held, pages = _int(fields, "held"), _int(fields, "pages")
        pending, state = _int(fields, "pending"), fields["state"]
        in_flight = max(0, held - pages) if state == "running" else 0
        return CrawlJob(
            id=job_id, spec=JobSpec.model_validate_json(fields["spec"]), state=state,
            created_at=float(fields["created_at"]), updated_at=float(fields["updated_at"]),
            finished_at=_float(fields, "finished_at"), pages=pages, failed=_int(fields, "failed"),
            queued=max(0, pending - in_flight) + _int(fields, "left"), in_flight=in_flight,
            skipped={k: int(v) for k, v in skipped.items()}, limits=json.loads(fields.get("limits") or "[]"),
            error=fields.get("error") or None,
        )  # fmt: skip

    async def get(self, job_id: str) -> CrawlJob:
        fields = await self._fields(job_id)
        skipped = cast(dict[str, str], await self.redis.hgetall(self._key(job_id, "skipped")))
        return self._job(job_id, fields, skipped)

    async def create(self, spec: JobSpec) -> CrawlJob:
        job_id = uuid.uuid4().hex
        now = time.time()
        fields = {
            "spec": spec.model_dump_json(), "state": "running", "created_at": now, "updated_at": now,
            "max_pages": spec.max_pages, "max_attempts": spec.max_attempts, "keep_ms": self.keep_ms,
        }  # fmt: skip
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(self._key(job_id), mapping=fields)  # type: ignore[arg-type]
                pipe.zadd(self.index, {job_id: now})
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise UpstreamError(f"crawl jobs are unavailable: Redis at {self.state.url}: {exc}") from None
        return await self.get(job_id)

    async def jobs(self, limit: int) -> list[CrawlJob]:
        """The newest jobs; ids of jobs whose keys expired (kept long enough) leave the index here."""
        found: list[CrawlJob] = []
        start = 0
        while len(found) < limit:
            ids = cast(list[str], await self.redis.zrevrange(self.index, start, start + limit - 1))
            for job_id in ids:
                try:
                    found.append(await self.get(job_id))
                except NotFoundError:
                    await self.redis.zrem(self.index, job_id)
                    start -= 1
            if len(ids) < limit:
                break
            start += limit
        return found[:limit]

    async def cancel(self, job_id: str) -> CrawlJob:
        await self._fields(job_id)
        await self._script(_CANCEL, self._keys(job_id), [time.time()])
        return await self.get(job_id)

    async def remove(self, job_id: str) -> bool:
        keys = [self._key(job_id), self.index, *self._keys(job_id)[1:], self._key(job_id, "seeding")]
        outcome = await self._script(_DELETE, keys, [job_id])
        if outcome == "missing":
            raise NotFoundError(f"no crawl job {job_id[:80]!r}")
        return bool(outcome == "deleted")

    async def results(self, job_id: str, kind: ResultKind, offset: int, limit: int) -> list[dict[str, Any]]:
        await self._fields(job_id)
        bodies = await self.redis.lrange(self._key(job_id, kind), offset, offset + limit - 1)
        return [json.loads(body) for body in bodies]

    async def admit(
        self, job_id: str, found: Sequence[Found], *, again: bool = False, limit: int | None = None
    ) -> list[JobItem]:
        args: list[Any] = [MAX_QUERY_VARIANTS, "1" if again else "0", limit or 0]
        for item, key, variant in found:
            args += [key, variant or "", json.dumps([item.url, item.depth, item.score])]
        parts = ("seen", "variants", "skipped", "claimed", "done", "items")
        keys = [self._key(job_id), *(self._key(job_id, part) for part in parts)]
        positions = await self._script(_ADMIT, keys, args)
        return [found[int(i) - 1][0] for i in positions]

    async def skip(self, job_id: str, reasons: Counter[str]) -> None:
        counts = [part for reason, count in reasons.items() for part in (reason, count)]
        await self._script(_SKIP, [self._key(job_id), self._key(job_id, "skipped")], counts)

    async def first_text(self, job_id: str, key: str, url_key: str) -> bool:
        keys = [self._key(job_id), self._key(job_id, "texts")]
        return bool(await self._script(_TEXT, keys, [key, url_key]))

    async def claim(self, job_id: str, key: str, token: str = "", item: JobItem | None = None) -> Verdict:
        keys = [self._key(job_id), *(self._key(job_id, part) for part in ("claimed", "done", "leases"))]
        return await self._script(_CLAIM, keys, [key, token or "-", self.lease_ms])  # type: ignore[no-any-return]

    async def stalled(self, job_id: str) -> list[JobItem]:
        """URLs whose messages were lost: queued, unclaimed, and the job quiet for a lease."""
        keys = [self._key(job_id), self._key(job_id, "items"), self._key(job_id, "claimed")]
        found = await self._script(_STALLED, keys, [time.time(), self.lease_ms / 1000])
        return [JobItem(*json.loads(text)) for text in found]

    async def expired(self, job_id: str) -> list[JobItem]:
        """URLs claimed by a replica that has not settled them within the lease (it died)."""
        keys = [self._key(job_id), *(self._key(job_id, part) for part in ("leases", "items", "claimed"))]
        found = await self._script(_EXPIRED, keys, [self.lease_ms])
        return [JobItem(*json.loads(text)) for text in found if text]

    async def finish(
        self,
        job_id: str,
        key: str,
        *,
        page: CrawledPage | None = None,
        failure: FailedPage | None = None,
        skipped: str | None = None,
    ) -> None:
        if page is not None:
            kind, body = "page", page.model_dump_json()
        elif failure is not None:
            kind, body = "failed", failure.model_dump_json()
        elif skipped is not None:
            kind, body = "skipped", skipped
        else:
            kind, body = "links", ""
        await self._settle(job_id, key, kind, body)

    async def drop(self, job_id: str, key: str) -> None:
        """Settle a URL never read: the job's budget was spent before it came up."""
        await self._settle(job_id, key, "left", "")

    async def _settle(self, job_id: str, key: str, kind: str, body: str) -> None:
        await self._script(_FINISH, self._keys(job_id), [key, kind, body, time.time()])

    async def seeded(self, job_id: str, limits: Sequence[str], error: str | None = None) -> None:
        await self._script(_SEEDED, self._keys(job_id), [json.dumps(list(limits)), error or "", time.time()])

    async def begin_seed(self, job_id: str, token: str) -> Verdict:
        """Claim the seeding of a job for a lease ("again": the same delivery after its reader died,
        or the lease of a seeder that died ran out; "done": another replica is seeding it)."""
        key = self._key(job_id, "seeding")
        if await self.redis.set(key, token, nx=True, px=self.lease_ms):
            return "go"
        return "again" if await self.redis.get(key) == token else "done"

    async def unseeded(self, job_id: str) -> bool:
        """The job is running, not seeded, and nobody holds its seeding (a seeder died)."""
        fields = await self._fields(job_id)
        if fields["state"] != "running" or fields.get("seeded") == "1":
            return False
        return not await self.redis.exists(self._key(job_id, "seeding"))

    async def running(self) -> list[str]:
        """The fleet's running jobs (among the newest 100)."""
        return [job.id for job in await self.jobs(100) if job.state == "running"]

    async def aclose(self) -> None:
        """The connection pool is the runtime's."""

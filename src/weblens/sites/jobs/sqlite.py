"""Crawl jobs in one SQLite file (WAL): the job row, its frontier (which doubles as the seen-set),
the texts read, and the results, written as each page settles — so a job survives a restart
and resumes from its frontier without downloading again what it already read.

sqlite3 blocks, so each transaction runs in a worker thread under one lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from anyio import to_thread

from weblens.errors import NotFoundError
from weblens.sites.crawl import MAX_QUERY_VARIANTS, CrawledPage, FailedPage
from weblens.sites.jobs.models import CrawlJob, JobItem, JobSpec, Verdict
from weblens.sites.jobs.store import Found, ResultKind

__all__ = ["SqliteJobStore"]

T = TypeVar("T")
_JOB_TABLES = ("crawl_frontier", "crawl_variants", "crawl_texts", "crawl_results")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS crawl_jobs (id TEXT PRIMARY KEY, spec TEXT NOT NULL, state TEXT NOT NULL, "
    "created_at REAL NOT NULL, updated_at REAL NOT NULL, finished_at REAL, seeded INTEGER NOT NULL DEFAULT 0, "
    "pages INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, held INTEGER NOT NULL DEFAULT 0, "
    "attempts INTEGER NOT NULL DEFAULT 0, skipped TEXT NOT NULL DEFAULT '{}', limits TEXT NOT NULL DEFAULT '[]', "
    "error TEXT)",
    # state: queued -> claimed -> done; left: never read (the job's budget was spent)
    "CREATE TABLE IF NOT EXISTS crawl_frontier (job_id TEXT NOT NULL, key TEXT NOT NULL, url TEXT NOT NULL, "
    "depth INTEGER NOT NULL, score REAL NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL, "
    "PRIMARY KEY (job_id, key))",
    "CREATE INDEX IF NOT EXISTS crawl_frontier_next ON crawl_frontier (job_id, state, score DESC, depth, seq)",
    "CREATE TABLE IF NOT EXISTS crawl_variants (job_id TEXT NOT NULL, path TEXT NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (job_id, path))",
    "CREATE TABLE IF NOT EXISTS crawl_texts (job_id TEXT NOT NULL, key TEXT NOT NULL, url_key TEXT NOT NULL, "
    "PRIMARY KEY (job_id, key))",
    "CREATE TABLE IF NOT EXISTS crawl_results (job_id TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, "
    "body TEXT NOT NULL, PRIMARY KEY (job_id, kind, n))",
)


def _job(row: sqlite3.Row, counts: dict[str, int]) -> CrawlJob:
    return CrawlJob(
        id=row["id"], spec=JobSpec.model_validate_json(row["spec"]), state=row["state"],
        created_at=row["created_at"], updated_at=row["updated_at"], finished_at=row["finished_at"],
        pages=row["pages"], failed=row["failed"], queued=counts.get("queued", 0) + counts.get("left", 0),
        in_flight=counts.get("claimed", 0), skipped=json.loads(row["skipped"]), limits=json.loads(row["limits"]),
        error=row["error"],
    )  # fmt: skip


class SqliteJobStore:
    name = "sqlite"

    def __init__(self, path: Path | str, *, keep_s: float) -> None:
        """`keep_s`: how long a job that ended is kept (then it is gone: not found, its rows deleted)."""
        self.path = Path(path)
        self.keep_s = keep_s
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=5.0)
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                db.execute(statement)
            self._db = db
        return self._db

    def _atomic(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            db = self._connect()
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        return await to_thread.run_sync(self._atomic, work)

    def _kept(self, row: sqlite3.Row) -> bool:
        """Not yet past its keep time (a running job always is)."""
        return row["finished_at"] is None or row["finished_at"] >= time.time() - self.keep_s

    def _row(self, db: sqlite3.Connection, job_id: str) -> sqlite3.Row:
        row = db.execute("SELECT * FROM crawl_jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None or not self._kept(row):
            raise NotFoundError(f"no crawl job {job_id[:80]!r}")
        return row  # type: ignore[no-any-return]

    @staticmethod
    def _read(db: sqlite3.Connection, row: sqlite3.Row) -> CrawlJob:
        counts = dict(
            db.execute("SELECT state, count(*) FROM crawl_frontier WHERE job_id = ? GROUP BY state", (row["id"],))
        )
        return _job(row, counts)

    async def create(self, spec: JobSpec) -> CrawlJob:
        job_id = uuid.uuid4().hex
        now = time.time()

        def insert(db: sqlite3.Connection) -> CrawlJob:
            db.execute(
                "INSERT INTO crawl_jobs (id, spec, state, created_at, updated_at) VALUES (?, ?, 'running', ?, ?)",
                (job_id, spec.model_dump_json(), now, now),
            )
            return self._read(db, self._row(db, job_id))

        return await self._run(insert)

    async def get(self, job_id: str) -> CrawlJob:
        return await self._run(lambda db: self._read(db, self._row(db, job_id)))

    async def jobs(self, limit: int) -> list[CrawlJob]:
        def newest(db: sqlite3.Connection) -> list[CrawlJob]:
            rows = db.execute(
                "SELECT * FROM crawl_jobs WHERE finished_at IS NULL OR finished_at >= ? ORDER BY created_at DESC "
                "LIMIT ?", (time.time() - self.keep_s, limit),
            ).fetchall()  # fmt: skip
            return [self._read(db, row) for row in rows]

        return await self._run(newest)

    async def cancel(self, job_id: str) -> CrawlJob:
        def stop(db: sqlite3.Connection) -> CrawlJob:
            self._row(db, job_id)
            now = time.time()
            db.execute(
                "UPDATE crawl_jobs SET state = 'cancelled', updated_at = ?, finished_at = ? "
                "WHERE id = ? AND state = 'running'", (now, now, job_id),
            )  # fmt: skip
            return self._read(db, self._row(db, job_id))

        return await self._run(stop)

    async def remove(self, job_id: str) -> bool:
        def delete(db: sqlite3.Connection) -> bool:
            if self._row(db, job_id)["state"] == "running":
                return False
            self._delete(db, [job_id])
            return True

        return await self._run(delete)

    async def purge(self) -> int:
        """Delete the jobs past their keep time; how many."""

        def delete(db: sqlite3.Connection) -> int:
            rows = db.execute("SELECT id FROM crawl_jobs WHERE finished_at < ?", (time.time() - self.keep_s,))
            ids = [job_id for (job_id,) in rows]
            self._delete(db, ids)
            return len(ids)

        return await self._run(delete)

    @staticmethod
    def _delete(db: sqlite3.Connection, ids: Sequence[str]) -> None:
        for job_id in ids:
            for table in _JOB_TABLES:
                db.execute(f"DELETE FROM {table} WHERE job_id = ?", (job_id,))  # the table names are ours
            db.execute("DELETE FROM crawl_jobs WHERE id = ?", (job_id,))

    async def results(self, job_id: str, kind: ResultKind, offset: int, limit: int) -> list[dict[str, Any]]:
        def read(db: sqlite3.Connection) -> list[dict[str, Any]]:
            self._row(db, job_id)
            rows = db.execute(
                "SELECT body FROM crawl_results WHERE job_id = ? AND kind = ? AND n > ? ORDER BY n LIMIT ?",
                (job_id, kind, offset, limit),
            )
            return [json.loads(body) for (body,) in rows]

        return await self._run(read)

    async def admit(
        self, job_id: str, found: Sequence[Found], *, again: bool = False, limit: int | None = None
    ) -> list[JobItem]:
        def add(db: sqlite3.Connection) -> list[JobItem]:
            new: list[JobItem] = []
            traps = full = 0
            seq = db.execute("SELECT count(*) FROM crawl_frontier WHERE job_id = ?", (job_id,)).fetchone()[0]
            for item, key, variant in found:
                if db.execute("SELECT 1 FROM crawl_frontier WHERE job_id = ? AND key = ?", (job_id, key)).fetchone():
                    continue
                if limit is not None and seq >= limit:
                    full += 1
                    continue
                if variant is not None:
                    (n,) = db.execute(
                        "INSERT INTO crawl_variants VALUES (?, ?, 1) ON CONFLICT (job_id, path) DO UPDATE "
                        "SET n = n + 1 RETURNING n", (job_id, variant),
                    ).fetchone()  # fmt: skip
                    if n > MAX_QUERY_VARIANTS:
                        traps += 1
                        continue
                seq += 1
                db.execute(
                    "INSERT INTO crawl_frontier VALUES (?, ?, ?, ?, ?, ?, 'queued')",
                    (job_id, key, item.url, item.depth, item.score, seq),
                )
                new.append(item)
            if traps or full:
                self._count_skips(db, job_id, +Counter(trap=traps, queue_full=full))
            return new

        return await self._run(add)

    @staticmethod
    def _count_skips(db: sqlite3.Connection, job_id: str, reasons: Counter[str]) -> None:
        (text,) = db.execute("SELECT skipped FROM crawl_jobs WHERE id = ?", (job_id,)).fetchone()
        skipped = Counter(json.loads(text))
        skipped.update(reasons)
        db.execute("UPDATE crawl_jobs SET skipped = ? WHERE id = ?", (json.dumps(dict(skipped)), job_id))

    async def skip(self, job_id: str, reasons: Counter[str]) -> None:
        await self._run(lambda db: self._count_skips(db, job_id, reasons))

    async def first_text(self, job_id: str, key: str, url_key: str) -> bool:
        def add(db: sqlite3.Connection) -> bool:
            db.execute("INSERT OR IGNORE INTO crawl_texts VALUES (?, ?, ?)", (job_id, key, url_key))
            row = db.execute("SELECT url_key FROM crawl_texts WHERE job_id = ? AND key = ?", (job_id, key)).fetchone()
            (owner,) = row
            return bool(owner == url_key)

        return await self._run(add)

    async def claim(self, job_id: str, key: str, token: str = "", item: JobItem | None = None) -> Verdict:
        def take(db: sqlite3.Connection) -> Verdict:
            job = self._row(db, job_id)
            if job["state"] != "running":
                return "stop"
            row = db.execute("SELECT state FROM crawl_frontier WHERE job_id = ? AND key = ?", (job_id, key)).fetchone()
            if row is None or row["state"] in ("done", "left"):
                return "done"
            if row["state"] == "claimed":
                return "again"
            spec = JobSpec.model_validate_json(job["spec"])
            if job["pages"] >= spec.max_pages or job["attempts"] >= spec.max_attempts:
                return "full"
            if job["held"] >= spec.max_pages:
                return "wait"
            db.execute("UPDATE crawl_jobs SET held = held + 1, attempts = attempts + 1 WHERE id = ?", (job_id,))
            db.execute("UPDATE crawl_frontier SET state = 'claimed' WHERE job_id = ? AND key = ?", (job_id, key))
            return "go"

        return await self._run(take)

    async def finish(
        self,
        job_id: str,
        key: str,
        *,
        page: CrawledPage | None = None,
        failure: FailedPage | None = None,
        skipped: str | None = None,
    ) -> None:
        def settle(db: sqlite3.Connection) -> None:
            cursor = db.execute(
                "UPDATE crawl_frontier SET state = 'done' WHERE job_id = ? AND key = ? AND state = 'claimed'",
                (job_id, key),
            )
            if cursor.rowcount == 0:
                return  # settled already
            job = self._row(db, job_id)
            if page is not None:
                db.execute("INSERT INTO crawl_results VALUES (?, 'pages', ?, ?)",
                           (job_id, job["pages"] + 1, page.model_dump_json()))  # fmt: skip
                db.execute("UPDATE crawl_jobs SET pages = pages + 1 WHERE id = ?", (job_id,))
            else:
                db.execute("UPDATE crawl_jobs SET held = held - 1 WHERE id = ?", (job_id,))
            if failure is not None:
                db.execute("INSERT INTO crawl_results VALUES (?, 'failed', ?, ?)",
                           (job_id, job["failed"] + 1, failure.model_dump_json()))  # fmt: skip
                db.execute("UPDATE crawl_jobs SET failed = failed + 1 WHERE id = ?", (job_id,))
            if skipped is not None:
                self._count_skips(db, job_id, Counter({skipped: 1}))
            db.execute("UPDATE crawl_jobs SET updated_at = ? WHERE id = ?", (time.time(), job_id))

        await self._run(settle)

    async def seeded(self, job_id: str, limits: Sequence[str], error: str | None = None) -> None:
        def mark(db: sqlite3.Connection) -> None:
            db.execute("UPDATE crawl_jobs SET seeded = 1, limits = ?, error = ? WHERE id = ?",
                       (json.dumps(list(limits)), error, job_id))  # fmt: skip
            if error is not None:
                self._end(db, job_id, "failed")

        await self._run(mark)

    @staticmethod
    def _end(db: sqlite3.Connection, job_id: str, state: str, limit: str | None = None) -> None:
        now = time.time()
        if limit is not None:
            (text,) = db.execute("SELECT limits FROM crawl_jobs WHERE id = ?", (job_id,)).fetchone()
            limits = json.dumps([*json.loads(text), limit])
            db.execute("UPDATE crawl_jobs SET limits = ? WHERE id = ?", (limits, job_id))
        db.execute("UPDATE crawl_frontier SET state = 'left' WHERE job_id = ? AND state = 'queued'", (job_id,))
        db.execute(
            "UPDATE crawl_jobs SET state = ?, updated_at = ?, finished_at = ? WHERE id = ? AND state = 'running'",
            (state, now, now, job_id),
        )

    # -- what only the local runner asks -----------------------------------------------

    async def is_seeded(self, job_id: str) -> bool:
        return bool(await self._run(lambda db: self._row(db, job_id)["seeded"]))

    async def queued(self, job_id: str, limit: int) -> list[JobItem]:
        """The next URLs to read: best first with a query, else breadth-first."""

        def first(db: sqlite3.Connection) -> list[JobItem]:
            rows = db.execute(
                "SELECT url, depth, score FROM crawl_frontier WHERE job_id = ? AND state = 'queued' "
                "ORDER BY score DESC, depth, seq LIMIT ?", (job_id, limit),
            )  # fmt: skip
            return [JobItem(url, depth, score) for url, depth, score in rows]

        return await self._run(first)

    async def complete(self, job_id: str, limit: str | None = None) -> None:
        """Nothing more will be read: the job is done (`limit`: the budget that stopped it)."""
        await self._run(lambda db: self._end(db, job_id, "done", limit))

    async def unfinished(self) -> list[str]:
        """Jobs a stopped server left running, made ready to resume: URLs it was reading go back
        on the frontier (read again, since their results were never stored)."""

        def recover(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT id FROM crawl_jobs WHERE state = 'running' ORDER BY created_at")
            ids = [row[0] for row in rows]
            for job_id in ids:
                db.execute("UPDATE crawl_frontier SET state = 'queued' WHERE job_id = ? AND state = 'claimed'",
                           (job_id,))  # fmt: skip
                db.execute("UPDATE crawl_jobs SET held = pages WHERE id = ?", (job_id,))
            return ids

        return await self._run(recover)

    async def aclose(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

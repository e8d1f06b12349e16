"""The set of state backends a `Runtime` is built with: local by default, Redis given a URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from weblens.policy.state import LocalPolicyState, PolicyState
from weblens.store.base import AnswerRelay, BreakerStore, CacheStore, Flight, SlotStore
from weblens.store.local import LocalBreakers, LocalSlots, SingleFlight

if TYPE_CHECKING:
    from weblens.store.redis import RedisState

__all__ = ["Backends", "backends_for"]


@dataclass
class Backends:
    """One of each kind of shared state. `cache=None`: the cache is the configured SQLite file."""

    flight: Flight = field(default_factory=SingleFlight)
    slots: SlotStore = field(default_factory=LocalSlots)
    breakers: BreakerStore = field(default_factory=LocalBreakers)
    policy_state: PolicyState = field(default_factory=LocalPolicyState)
    cache: CacheStore | None = None
    answers: AnswerRelay | None = None
    """Answers being written, shared by the fleet; None: each server's own only."""
    redis: RedisState | None = None
    """The `RedisState` behind the stores when they are shared (its `check()` is a readiness check)."""


def backends_for(redis_url: str | None) -> Backends:
    """Local backends, or with `redis_url` the Redis ones (redis-py is imported only then)."""
    if not redis_url:
        return Backends()
    from weblens.store.redis import (
        RedisBreakers,
        RedisCacheStore,
        RedisFlight,
        RedisPolicyState,
        RedisSlots,
        RedisState,
    )
    from weblens.store.redis_answers import RedisAnswers

    state = RedisState(redis_url)
    return Backends(
        flight=RedisFlight(state),
        slots=RedisSlots(state),
        breakers=RedisBreakers(state),
        policy_state=RedisPolicyState(state),
        cache=RedisCacheStore(state),
        answers=RedisAnswers(state),
        redis=state,
    )

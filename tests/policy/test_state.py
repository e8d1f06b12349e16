"""The in-process policy state: counters that expire, benches that end."""

from __future__ import annotations

from weblens.policy import LocalPolicyState, PolicyState


async def test_counters_count_until_they_expire() -> None:
    now = [1000.0]
    state = LocalPolicyState(clock=lambda: now[0])
    assert isinstance(state, PolicyState)
    assert [await state.increment("daily:brave", expires_at=1010.0) for _ in range(3)] == [1, 2, 3]
    assert await state.increment("daily:tavily", expires_at=1010.0) == 1
    now[0] = 1010.0
    assert await state.increment("daily:brave", expires_at=1020.0) == 1


async def test_a_bench_ends_at_its_time_and_keeps_the_longer_one() -> None:
    now = [0.0]
    state = LocalPolicyState(clock=lambda: now[0])
    await state.bench("key:brave:ab", until=100.0, reason="at its quota")
    await state.bench("key:brave:ab", until=10.0, reason="refused")
    bench = await state.benched("key:brave:ab")
    assert bench is not None and bench.until == 100.0 and bench.reason == "at its quota"
    now[0] = 100.0
    assert await state.benched("key:brave:ab") is None

"""The per-token bucket: a burst at once, then the steady rate, and the seconds to wait."""

from __future__ import annotations

from v2c_desktop.mcp.http.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_gets_through_then_the_wait_is_said_in_whole_seconds() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=5, clock=clock)
    assert [limiter.check("a") for _ in range(5)] == [0] * 5
    assert limiter.check("a") == 1  # one a second: the next one in a second
    clock.now += 0.5
    assert limiter.check("a") == 1  # half a second to go is said as 1 (never 0)
    clock.now += 0.5
    assert limiter.check("a") == 0
    assert limiter.check("a") == 1


def test_a_slow_rate_says_how_long_to_wait() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=6, burst=1, clock=clock)
    assert limiter.check("a") == 0
    assert limiter.check("a") == 10
    clock.now += 7.5
    assert limiter.check("a") == 3  # 2.5 s left, rounded up


def test_the_bucket_refills_only_up_to_the_burst() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=3, clock=clock)
    clock.now += 3600
    assert [limiter.check("a") for _ in range(4)] == [0, 0, 0, 1]


def test_each_token_has_its_own_bucket() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=60, burst=2, clock=clock)
    assert [limiter.check("busy") for _ in range(3)] == [0, 0, 1]
    assert limiter.check("calm") == 0

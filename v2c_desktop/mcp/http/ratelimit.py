"""How often each token may call the HTTP server: a token bucket per token.

A bucket holds up to `burst` requests and refills at `per_minute / 60` a second; a request
takes one. An empty bucket refuses the request with the seconds until the next one would be
taken (the `Retry-After` of the 429 answer), so a client that waits that long gets through.
Buckets are per token, so a runaway agent cannot starve another one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class TokenBucket:
    rate: float  # requests added per second
    capacity: float
    level: float
    updated: float

    def take(self, now: float) -> float:
        """Take one request: 0 when allowed, else the seconds until one is available."""
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) / self.rate


class RateLimiter:
    """One `TokenBucket` per key (a token's name), all with the same rate and burst."""

    def __init__(
        self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if per_minute < 1 or burst < 1:
            raise ValueError("the rate and the burst must be at least 1")
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def check(self, key: str) -> int:
        """0 when `key` may make this request now, else the whole seconds to wait (>= 1)."""
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self.burst, now)
        wait = bucket.take(now)
        return 0 if wait == 0 else max(1, math.ceil(wait))

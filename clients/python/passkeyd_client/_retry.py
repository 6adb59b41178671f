"""The retry policy and its arithmetic, shared by both clients (no I/O here but the clock and the sleeps, which the
tests replace)."""

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass, field
from typing import Callable, FrozenSet, Optional, Union

import httpx

from ._operations import PROBE, RETRIED_BY_DEFAULT, WRITE

# The clock and the sleeps, looked up at each use so that tests can replace them.
monotonic: Callable[[], float] = time.monotonic
sleep: Callable[[float], None] = time.sleep
async_sleep = asyncio.sleep
jitter: Callable[[], float] = random.random


@dataclass(frozen=True)
class RetryPolicy:
    """When a call is tried again. The default: begins and reads, at most 3 attempts, on 429 and 503 answers and on
    failures to connect; never a finish or other write (``writes=True`` opts in, for callers that know a second
    attempt is harmless to them); never the readiness probe.

    - The wait is the answer's ``Retry-After`` when it has one (seconds or an HTTP date), else ``backoff`` doubled
      per attempt, with jitter, at most ``max_wait``.
    - A ``Retry-After`` longer than ``max_wait`` is not waited for: the error is raised at once, its ``retry_after``
      set, for the caller to decide.
    - ``deadline`` (seconds, None for none) bounds the whole call, attempts and waits together: no wait reaches
      past it, and each attempt's timeout is cut to what is left of it.
    """

    max_attempts: int = 3
    max_wait: float = 10.0
    deadline: Optional[float] = 30.0
    backoff: float = 0.25
    writes: bool = False
    statuses: FrozenSet[int] = field(default_factory=lambda: frozenset({429, 503}))

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts is at least 1 (1: no retry)")
        if self.max_wait < 0 or self.backoff < 0 or (self.deadline is not None and self.deadline <= 0):
            raise ValueError("max_wait and backoff are at least 0, deadline above 0")

    def applies_to(self, kind: str) -> bool:
        """Whether calls of this kind (see _operations) are retried at all."""
        if self.max_attempts == 1 or kind == PROBE:
            return False
        return kind in RETRIED_BY_DEFAULT or (self.writes and kind == WRITE)

    def wait(self, attempt: int, retry_after: Optional[float], elapsed: float) -> Optional[float]:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up: ``attempt`` attempts were made,
        ``elapsed`` seconds since the first began, the last answer's ``Retry-After`` is ``retry_after``."""
        if attempt >= self.max_attempts:
            return None
        if retry_after is not None:
            if retry_after > self.max_wait:
                return None
            wait = retry_after
        else:
            wait = min(self.max_wait, self.backoff * 2 ** (attempt - 1)) * (0.5 + jitter() / 2)
        if self.deadline is not None and elapsed + wait >= self.deadline:
            return None
        return wait


NO_RETRY = RetryPolicy(max_attempts=1)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` in seconds: delay-seconds, or an HTTP date (seconds from now, at least 0); None if absent or
    unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def attempt_timeout(
    timeout: Union[float, httpx.Timeout, None], deadline: Optional[float], elapsed: float
) -> Union[float, httpx.Timeout, None]:
    """The timeout of one attempt: the configured one, no part of it longer than what is left of the deadline."""
    if deadline is None:
        return timeout
    left = max(0.001, deadline - elapsed)
    if timeout is None:
        return left
    if isinstance(timeout, httpx.Timeout):
        def cut(part: Optional[float]) -> float:
            return left if part is None else min(part, left)

        return httpx.Timeout(connect=cut(timeout.connect), read=cut(timeout.read), write=cut(timeout.write),
                             pool=cut(timeout.pool))
    return min(timeout, left)

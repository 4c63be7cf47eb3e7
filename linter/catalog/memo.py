"""Memoisation for the pure catalogue lookups that facts call once per workload.

A repository of thousands of workloads asks the same few questions (this instance type, that
region, this model) over and over; each answer is a scan of packaged data that never changes
within a process.
"""

import functools
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def memoize_list(func: Callable[P, Iterable[T]]) -> Callable[P, list[T]]:
    """Cache a list-returning function; callers get their own list, so mutating it is safe."""

    @functools.lru_cache(maxsize=4096)
    def cached(*args: Any, **kwargs: Any) -> tuple[T, ...]:
        return tuple(func(*args, **kwargs))

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> list[T]:
        return list(cached(*args, **kwargs))  # type: ignore[arg-type]  # ParamSpec kwargs are hashable here

    return wrapper

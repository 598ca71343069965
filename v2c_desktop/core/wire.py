"""Which dataclasses may cross the owner socket: each registers where it is defined.

Data read from a socket must never choose which class gets built, so the owner codec only
rebuilds classes named here. Registering is a decorator on the class itself (`@wire`), so
a new feature's types are servable through the owner as soon as its module is imported,
without touching `core/owner/`. `core/api.py` imports every module whose types its methods
take or return, so any process that speaks `CoreAPI` knows them all.

This module imports nothing of the project: anything may use it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")
_REGISTRY: dict[str, type[Any]] = {}


def wire(cls: type[T]) -> type[T]:
    """Allow `cls` (a dataclass) to be sent and rebuilt by name; use as a class decorator."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"only dataclasses can cross the owner socket, not {cls!r}")
    known = _REGISTRY.get(cls.__name__)
    if known is not None and known is not cls:
        raise ValueError(f"another class named {cls.__name__} is already registered")
    _REGISTRY[cls.__name__] = cls
    return cls


def wire_type(name: str) -> type[Any] | None:
    """The registered class of that name, or None."""
    return _REGISTRY.get(name)


def wire_types() -> dict[str, type[Any]]:
    """Every registered class by name (a copy)."""
    return dict(_REGISTRY)

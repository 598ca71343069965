"""Which methods of the served object may be called, and how a request becomes a call.

The owner serves an arbitrary object, so the allowed names are fixed up front: the names
given, or every public coroutine / async-generator method. `aclose` is left out of the
default set because a client must never be able to close the owner's library. Arguments
are rebuilt with the method's own type hints (a `tuple[str, ...]` parameter gets a tuple,
a `SearchRequest` parameter gets a SearchRequest even when sent as a plain dict), and
positional `args` are bound by the real signature, so a remote call fails exactly where
the local call would. A session that becomes owner uses the same table for its own calls,
so code behaves the same in either role.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from ..errors import V2CError
from ..progress import ProgressCallback
from ..wire_codec import decode
from .protocol import clip

NOT_SERVED_BY_DEFAULT = frozenset({"aclose"})


def _is_async(attr: object) -> bool:
    if isinstance(attr, staticmethod | classmethod):
        attr = attr.__func__
    return inspect.iscoroutinefunction(attr) or inspect.isasyncgenfunction(attr)


def default_methods(target: object) -> frozenset[str]:
    """Public coroutine and async-generator methods, found without running any property."""
    names = set()
    for name in dir(target):
        if name.startswith("_") or name in NOT_SERVED_BY_DEFAULT:
            continue
        if _is_async(inspect.getattr_static(target, name, None)):
            names.add(name)
    return frozenset(names)


def _check_methods(target: object, methods: frozenset[str]) -> frozenset[str]:
    for name in methods:
        if name.startswith("_"):
            raise ValueError(f"private method {name} cannot be served")
        if not callable(inspect.getattr_static(target, name, None)):
            raise ValueError(f"{type(target).__name__} has no method {name}")
    return methods


class MethodTable:
    """The callable surface of one served object."""

    def __init__(self, target: object, methods: frozenset[str] | None = None) -> None:
        self.target = target
        self.names = default_methods(target) if methods is None else _check_methods(target, methods)
        self._hints: dict[str, dict[str, Any]] = {}

    def _method(self, name: str) -> Callable[..., Any]:
        if name not in self.names:
            raise V2CError(
                "bad-request",
                f"{clip(repr(name))} is not a method the library's owner serves",
                "the owner may run a different version of v2c",
            )
        method: Callable[..., Any] = getattr(self.target, name)
        return method

    def _hints_of(self, name: str, method: Callable[..., Any]) -> dict[str, Any]:
        if name not in self._hints:
            try:
                self._hints[name] = get_type_hints(getattr(method, "__func__", method))
            except Exception:  # annotations that do not resolve: decode by tags alone
                self._hints[name] = {}
        return self._hints[name]

    def call_from_wire(
        self,
        name: str,
        args: list[Any],
        params: dict[str, Any],
        progress: ProgressCallback | None,
    ) -> Any:
        """Start the call a request describes; returns an awaitable, async iterator or value."""
        method = self._method(name)
        hints = self._hints_of(name, method)
        try:
            try:
                signature = inspect.signature(method)
                names = list(signature.parameters)
                decoded_args = [
                    decode(value, hints.get(names[i], Any) if i < len(names) else Any)
                    for i, value in enumerate(args)
                ]
            except (TypeError, ValueError):  # no signature available: decode by tags alone
                signature, decoded_args = None, [decode(v) for v in args]
            kwargs = {key: decode(value, hints.get(key, Any)) for key, value in params.items()}
        except V2CError as exc:  # what the client sent, refused: never echoed whole
            raise V2CError(exc.code, clip(exc.message), exc.hint) from None
        if progress is not None:
            kwargs["progress"] = progress
        return self.call_local(name, decoded_args, kwargs, signature=signature)

    def call_local(
        self,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        *,
        signature: inspect.Signature | None = None,
    ) -> Any:
        """Call an allowed method with Python values; argument mistakes are bad requests."""
        method = self._method(name)
        try:
            if signature is None:
                signature = inspect.signature(method)
            signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise V2CError("bad-request", f"{name}: {clip(str(exc))}") from None
        except ValueError:
            pass  # builtins without a signature: let the call itself complain
        return method(*args, **kwargs)

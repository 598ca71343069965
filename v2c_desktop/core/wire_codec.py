"""JSON for values crossing the owner socket, rebuilt only into types we allow.

Results and arguments are primitives, lists, dicts and dataclasses. A dataclass travels as
`{"__t": "<ClassName>", ...fields}` and comes back only if its class is registered
(`core.wire`: each class registers where it is defined): data read from a socket must never
choose which class gets built. Fields are rebuilt from
the class's type hints, so nested dataclasses, tuples (sent as lists) and floats sent as
whole numbers come back as the types the code expects. A `V2CError` travels as
`{"__error": {...}}` anywhere in a value (an import outcome carries one); any other
exception becomes an `internal` error with its first line, never a traceback.
"""

from __future__ import annotations

import dataclasses
import numbers
import types
import typing
from pathlib import PurePath
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from .errors import ErrorCode, V2CError
from .wire import wire, wire_type, wire_types

T = TypeVar("T")
JSON = Any  # what json.loads returns; kept loose on purpose

TAG = "__t"
ERROR = "__error"
PLAIN = "__dict"  # wraps a plain dict whose own keys would look like one of the markers
_MARKERS = (TAG, ERROR, PLAIN)
_CODES: frozenset[str] = frozenset(get_args(ErrorCode))

_PRIMITIVES = frozenset({str, int, float, bool, type(None)})
_PLANS: dict[type[Any], tuple[tuple[str, Any], ...]] = {}


def register(cls: type[T]) -> type[T]:
    """Allow `cls` (a dataclass) to be sent and rebuilt (`core.wire.wire`, for tests)."""
    return wire(cls)


def registered() -> dict[str, type[Any]]:
    return wire_types()


# -- encoding ---------------------------------------------------------------------------------
def encode(value: object) -> JSON:
    """A JSON-ready form of `value`; TypeError for anything the other side could not rebuild."""
    if type(value) in _PRIMITIVES:  # the common case first: transcripts are mostly these
        return value
    if isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):  # numpy scalars included
        return float(value)
    if isinstance(value, V2CError):
        return {ERROR: error_to_wire(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if wire_type(cls.__name__) is not cls:
            raise TypeError(f"{cls.__name__} is not registered with the owner codec")
        out: dict[str, JSON] = {TAG: cls.__name__}
        for name, _ in _plan(cls):
            out[name] = encode(getattr(value, name))
        return out
    if isinstance(value, list | tuple | set | frozenset):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        body: dict[str, JSON] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"dict keys must be strings to cross the socket, not {key!r}")
            body[key] = encode(item)
        return {PLAIN: body} if any(m in body for m in _MARKERS) else body
    if isinstance(value, PurePath):
        return str(value)
    raise TypeError(f"a {type(value).__name__} cannot cross the owner socket")


# -- errors -----------------------------------------------------------------------------------
def error_to_wire(exc: BaseException) -> dict[str, JSON]:
    """`{code, message, hint, details}`; foreign exceptions become `internal` with one line."""
    if isinstance(exc, V2CError):
        try:
            details = encode(exc.details)
        except TypeError:
            details = {key: repr(value) for key, value in exc.details.items()}
        return {"code": exc.code, "message": exc.message, "hint": exc.hint, "details": details}
    lines = str(exc).strip().splitlines()
    first = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return {
        "code": "internal",
        "message": f"the library's owner process failed: {first}",
        "hint": "this is a bug; the owner's log has the details",
        "details": {},
    }


def error_from_wire(data: JSON) -> V2CError:
    if not isinstance(data, dict):
        return V2CError("internal", "the owner sent a malformed error")
    code = data.get("code")
    details = decode(data.get("details") or {})
    return V2CError(
        code if code in _CODES else "internal",
        str(data.get("message", "")),
        str(data.get("hint", "")),
        details if isinstance(details, dict) else {"details": details},
    )


# -- decoding ---------------------------------------------------------------------------------
def _refuse(message: str) -> V2CError:
    return V2CError("bad-request", message, "the other v2c process may be a different version")


def _plan(cls: type[Any]) -> tuple[tuple[str, Any], ...]:
    """The (field name, type hint) pairs of a registered dataclass, worked out once."""
    plan = _PLANS.get(cls)
    if plan is None:
        try:
            hints = get_type_hints(cls)
        except Exception:  # an unresolvable annotation: fall back to tags alone
            hints = {}
        fields = dataclasses.fields(cls)
        plan = tuple((f.name, hints.get(f.name, Any)) for f in fields if f.init)
        _PLANS[cls] = plan
    return plan


def _narrow(hint: Any, value: object) -> Any:
    """Pick the member of a union that fits the JSON shape of `value`."""
    if get_origin(hint) not in (typing.Union, types.UnionType):
        return hint
    options = [a for a in get_args(hint) if a is not type(None)]
    if len(options) == 1:
        return options[0]
    for option in options:
        origin = get_origin(option) or option
        if isinstance(value, list) and origin in (list, tuple, set, frozenset):
            return option
        if isinstance(value, dict) and (origin is dict or dataclasses.is_dataclass(origin)):
            return option
        if isinstance(value, int | float) and option is float:
            return option
    return Any


def _build(cls: type[Any], data: dict[str, JSON]) -> object:
    if wire_type(cls.__name__) is not cls:
        raise _refuse(f"refusing to build unregistered type {cls.__name__}")
    kwargs = {name: decode(data[name], hint) for name, hint in _plan(cls) if name in data}
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise _refuse(f"cannot rebuild {cls.__name__}: {exc}") from None


def _sequence(value: list[JSON], hint: Any) -> object:
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple or hint is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(v, args[0]) for v in value)
        if args and len(args) == len(value):
            return tuple(decode(v, a) for v, a in zip(value, args, strict=True))
        return tuple(decode(v) for v in value)
    item = args[0] if origin in (list, set, frozenset) and args else Any
    items = [decode(v, item) for v in value]
    if origin in (set, frozenset):
        return origin(items)
    return items


def decode(value: JSON, hint: Any = Any) -> Any:
    """Rebuild a value from its JSON form, guided by `hint` (a type annotation) when known."""
    kind = type(value)
    if (
        (kind is str and (hint is str or hint is Any))
        or kind is float
        or value is None
        or kind is bool
    ):
        return value
    hint = _narrow(hint, value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if isinstance(hint, type) and issubclass(hint, PurePath):
            return hint(value)
        return value
    if isinstance(value, int | float):
        return float(value) if hint is float else value
    if isinstance(value, list):
        return _sequence(value, hint)
    if not isinstance(value, dict):
        raise _refuse(f"unexpected JSON value {type(value).__name__}")
    if ERROR in value:
        return error_from_wire(value[ERROR])
    if TAG in value:
        name = value[TAG]
        cls = wire_type(name) if isinstance(name, str) else None
        if cls is None:
            raise _refuse(f"refusing to build unregistered type {name!r}")
        return _build(cls, value)
    if PLAIN in value:
        value = value[PLAIN] if isinstance(value[PLAIN], dict) else {}
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _build(hint, value)
    args = get_args(hint)
    item = args[1] if get_origin(hint) is dict and len(args) == 2 else Any
    return {str(k): decode(v, item) for k, v in value.items()}

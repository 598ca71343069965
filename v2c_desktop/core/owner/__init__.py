"""One owner per library file: the owner serves its API to other processes over a socket.

`open_session` makes this process the library's owner (it holds the lock and the only
DuckDB connection, and serves the API with `OwnerServer`) or a client of the process that
is (`session.api` is then a `RemoteProxy` over an `OwnerClient`). See `protocol` for the
wire format; what may cross it is every dataclass registered with `core/wire.py` (`@wire`,
where the type is defined), in the JSON form of `core/wire_codec.py`.

The faces never call `open_session`: they open a library through `core.open.open_api`, and
take from this package only the `Session` and `ConnectedClient` types
(tests/unit/test_layers.py).
"""

from ..wire_codec import decode, encode, register
from .client import OwnerClient
from .connection import ConnectedClient
from .protocol import PROTOCOL_VERSION, OwnerGone
from .proxy import RemoteProxy
from .runtime import socket_path_for
from .server import OwnerServer
from .session import Session, open_session

__all__ = [
    "PROTOCOL_VERSION",
    "ConnectedClient",
    "OwnerClient",
    "OwnerGone",
    "OwnerServer",
    "RemoteProxy",
    "Session",
    "decode",
    "encode",
    "open_session",
    "register",
    "socket_path_for",
]

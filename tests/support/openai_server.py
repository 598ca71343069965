"""A real OpenAI-compatible HTTP server on 127.0.0.1, for tests that must go over sockets.

Mock transports cannot show what matters for streaming: a chunk cut mid-line by TCP, a
client that disconnects mid-answer, a server that stalls past the read timeout. This server
listens on an ephemeral loopback port (allowed by tests/conftest.py's network guard), speaks
the endpoints local servers offer, and can be scripted per test.

Usage::

    with OpenAITestServer() as server:          # or: with running_openai_server() as server:
        server.script(CHAT, rate_limited("2"), Stream(["Hel", "lo"]))
        ...  # point a client at server.base_url ("http://127.0.0.1:PORT/v1")
        assert server.requests_to(CHAT)[0].authorization == "Bearer sk-test"

Endpoints and their default behaviour (when nothing is scripted for the path):

* ``GET /v1/models`` -> ``{"object": "list", "data": [{"id": ...}]}`` for ``server.models``
* ``GET /api/tags`` -> Ollama's ``{"models": [{"name": ...}]}`` for ``server.models``
* ``POST /v1/chat/completions`` -> with ``stream: true``, SSE chunks in OpenAI's exact shape
  (role chunk, one chunk per word of ``server.reply_text``, finish chunk, a usage chunk when
  the request set ``stream_options.include_usage``, ``data: [DONE]``); otherwise one
  ``chat.completion`` JSON object
* ``POST /v1/embeddings`` -> one deterministic vector per input (``embedding_vector``), with
  ``index``; rows are sent in reverse order when ``server.reverse_embeddings`` is set
* anything else -> 404 with an OpenAI error body

``script(path, *responses)`` queues responses for a path: each request to it takes the next
one (a `Reply`, a `Stream`, or a callable taking the `RecordedRequest` and returning one);
when the queue is empty the default behaviour resumes. Every request is recorded
(`requests`, `requests_to`) before it is answered, and writes that fail because the client
went away are counted (`disconnects`, `wait_for_disconnect`). How each streamed answer ended
(how many of its pieces were written, whether the client hung up first) is kept too
(`stream_ends`, `wait_for_stream_ends`): a test checks "the client closed the stream early"
by what the server sent, not by the clock.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

MODELS = "/v1/models"
TAGS = "/api/tags"
CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the server received it; header names are lower-case."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # decoded JSON, or None when there was no (JSON) body
    raw: bytes = b""

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")


@dataclass(frozen=True)
class Reply:
    """One plain HTTP response: `payload` as JSON, or `body` as raw bytes."""

    status: int = 200
    payload: Any = None
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay: float = 0.0  # seconds to wait before answering (timeouts)


@dataclass(frozen=True)
class Stream:
    """A streamed chat answer in OpenAI's SSE chunk shape, one chunk per piece.

    `first_delay` waits after the headers (a slow prefill), `delay` between chunks (a slow
    generation); `keepalive` sends a `: keep-alive` comment before each chunk; `split` writes
    each event in two parts cut mid-line, with a pause between, so the client reads it in two
    pieces; `error` sends `data: {"error": ...}` after the pieces instead of finishing;
    `usage` is (prompt_tokens, completion_tokens), default counted from the request, sent
    only when the request asked for it and `send_usage` is true.
    """

    pieces: Sequence[str] = ("Hello", " world")
    delay: float = 0.0
    first_delay: float = 0.0
    keepalive: bool = False
    split: bool = False
    crlf: bool = False
    finish_reason: str = "stop"
    done: bool = True
    error: Any = None
    send_usage: bool = True
    usage: tuple[int, int] | None = None
    reasoning: Sequence[str] = ()  # `reasoning_content` chunks sent before the answer


@dataclass(frozen=True)
class StreamEnd:
    """How one streamed answer ended, as the server saw it.

    `sent` counts the content pieces written before the end (a write can still succeed
    just after the client hung up, so a cut stream may count one or two more than the
    client read); `cut` is true when the client went away (or the server stopped) first.
    """

    sent: int
    pieces: int
    cut: bool


Response = Reply | Stream
Responder = Response | Callable[[RecordedRequest], Response]

CONTEXT_ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "openai": (
        400,
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens. However, your "
                "messages resulted in 9001 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    "vllm": (
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 4096 tokens. However, you "
            "requested 5000 tokens (4488 in the messages, 512 in the completion). Please "
            "reduce the length of the messages or completion.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
    ),
    "vllm-v1": (
        400,
        {
            "object": "error",
            "message": "The decoder prompt (length 5000) is longer than the maximum model "
            "length of 4096. Make sure that `max_model_len` is no smaller than the number of "
            "text tokens.",
            "type": "BadRequestError",
            "code": 400,
        },
    ),
    "llamacpp": (
        400,
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5000,
                "n_ctx": 4096,
            }
        },
    ),
    "ollama": (400, {"error": "prompt too long; exceeded max context length by 904 tokens"}),
    "lmstudio": (
        400,
        {
            "error": "Trying to keep the first 5000 tokens when context the overflows. However, "
            "the model is loaded with context length of only 4096 tokens, which is not enough. "
            "Try to load the model with a larger context length, or provide a shorter input"
        },
    ),
}


def error_reply(
    status: int,
    message: str,
    *,
    kind: str = "invalid_request_error",
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """An error in OpenAI's `{"error": {"message", "type", "code"}}` shape."""
    error = {"message": message, "type": kind, "param": None, "code": code}
    return Reply(status, {"error": error}, headers=dict(headers or {}))


def rate_limited(retry_after: str | None = "2") -> Reply:
    """429; `retry_after` is the Retry-After header (seconds or HTTP date), None for none."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return error_reply(429, "Rate limit reached", kind="requests", headers=headers)


def unauthorized(echo_key: str | None = None) -> Reply:
    """401; with `echo_key` the body quotes the key back, as some APIs do."""
    message = f"Incorrect API key provided: {echo_key}" if echo_key else "Invalid API key"
    return error_reply(401, message, code="invalid_api_key")


def server_error(status: int = 500) -> Reply:
    return error_reply(status, "The server had an error while processing your request.")


def context_too_large(style: str = "openai") -> Reply:
    """The 400 a server sends when the prompt does not fit, worded as `style` words it."""
    status, payload = CONTEXT_ERRORS[style]
    return Reply(status, payload)


def json_schema_unsupported() -> Reply:
    """The 400 of a server that has `json_object` mode but not `json_schema`."""
    return error_reply(
        400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported."
    )


def chat_reply(content: str | None, *, finish_reason: str = "stop", model: str = "") -> Reply:
    """A non-streamed `chat.completion` with `content` as the assistant message."""
    return Reply(200, completion(content, model=model, finish_reason=finish_reason))


def completion(
    content: str | None, *, model: str = "", finish_reason: str = "stop"
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
    }


def embedding_vector(text: str, dimensions: int = 8) -> list[float]:
    """The (not normalised) vector the server sends for `text`: a function of its hash."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    while len(digest) < dimensions:
        digest += hashlib.sha256(digest).digest()
    return [(b - 127.5) / 127.5 for b in digest[:dimensions]]


class _ClientGone(Exception):
    """The client closed the connection, or the server is stopping."""


class OpenAITestServer:
    """The server; start with `start()` or `with`, stop with `stop()`. See the module doc."""

    def __init__(
        self,
        *,
        models: Sequence[str] = ("test-chat", "test-embed"),
        reply_text: str = "Hello from the test server.",
        embedding_dimensions: int = 8,
    ) -> None:
        self.models = list(models)
        self.reply_text = reply_text
        self.embedding_dimensions = embedding_dimensions
        self.reverse_embeddings = False
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._scripts: dict[str, deque[Responder]] = {}
        self._disconnects = 0
        self._disconnected = threading.Condition(self._lock)
        self._stream_ends: list[StreamEnd] = []
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> OpenAITestServer:
        httpd = _Server(self)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenAITestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not started"
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        """`http://127.0.0.1:PORT`: Ollama's native API root."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`: the OpenAI-compatible API root."""
        return f"{self.root_url}/v1"

    # -- scripting and inspection ----------------------------------------------------------

    def script(self, path: str, *responses: Responder) -> None:
        """Queue `responses` for the next requests to `path` (e.g. `CHAT`), in order."""
        with self._lock:
            self._scripts.setdefault(path, deque()).extend(responses)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    @property
    def disconnects(self) -> int:
        """How many responses were cut short because the client went away."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnect(self, timeout: float = 5.0, count: int = 1) -> bool:
        """Block until `count` client disconnects were seen; False on timeout."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects >= count, timeout)

    @property
    def stream_ends(self) -> list[StreamEnd]:
        """How the streamed answers that have ended so far ended, in order."""
        with self._lock:
            return list(self._stream_ends)

    def wait_for_stream_ends(self, count: int = 1, timeout: float = 60.0) -> list[StreamEnd]:
        """Block until `count` streamed answers have ended (cut or finished), and return them.

        `timeout` only keeps a test from hanging: pick it longer than the scripted stream
        would take to finish, so a stream that was not cut is seen finishing, not timing out.
        """
        with self._disconnected:
            self._disconnected.wait_for(lambda: len(self._stream_ends) >= count, timeout)
            return list(self._stream_ends)

    # -- used by the handler ---------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _note_disconnect(self) -> None:
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()

    def _note_stream_end(self, end: StreamEnd) -> None:
        with self._disconnected:
            self._stream_ends.append(end)
            self._disconnected.notify_all()

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self._stopping.wait(seconds):
            raise _ClientGone("server stopping")

    def _response_for(self, request: RecordedRequest) -> Response:
        with self._lock:
            queue = self._scripts.get(request.path)
            scripted = queue.popleft() if queue else None
        if scripted is not None:
            return scripted(request) if callable(scripted) else scripted
        return self._default(request)

    def _default(self, request: RecordedRequest) -> Response:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method == "GET" and request.path == MODELS:
            data = [{"id": m, "object": "model", "owned_by": "test"} for m in self.models]
            return Reply(200, {"object": "list", "data": data})
        if request.method == "GET" and request.path == TAGS:
            tags = [{"name": m, "model": m, "size": 0, "digest": ""} for m in self.models]
            return Reply(200, {"models": tags})
        if request.method == "POST" and request.path == CHAT:
            if body.get("stream"):
                words = self.reply_text.split(" ")
                return Stream([w if i == 0 else " " + w for i, w in enumerate(words)])
            return chat_reply(self.reply_text, model=str(body.get("model", "")))
        if request.method == "POST" and request.path == EMBEDDINGS:
            return self._embeddings(body)
        return error_reply(404, f"no route {request.method} {request.path}", code="not_found")

    def _embeddings(self, body: Mapping[str, Any]) -> Reply:
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
        rows = [
            {
                "object": "embedding",
                "index": i,
                "embedding": embedding_vector(str(t), self.embedding_dimensions),
            }
            for i, t in enumerate(texts)
        ]
        if self.reverse_embeddings:
            rows.reverse()
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        return Reply(
            200, {"object": "list", "data": rows, "model": body.get("model"), "usage": usage}
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # keep-alive connections must not hold up stop()

    def __init__(self, owner: OpenAITestServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return  # a client that hung up between requests is not a test failure
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small SSE writes leave at once, as they do from servers
    timeout = 30  # an idle keep-alive connection does not hold a thread forever

    @property
    def owner(self) -> OpenAITestServer:
        assert isinstance(self.server, _Server)
        return self.server.owner

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=urlsplit(self.path).path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=raw,
        )
        self.owner._record(request)
        response = self.owner._response_for(request)
        try:
            if isinstance(response, Stream):
                self._stream(response, request)
            else:
                self._reply(response)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, _ClientGone):
            self.owner._note_disconnect()
            self.close_connection = True

    def _reply(self, reply: Reply) -> None:
        self.owner._pause(reply.delay)
        data = reply.body if reply.body is not None else json.dumps(reply.payload).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _stream(self, stream: Stream, request: RecordedRequest) -> None:
        sent = [0]
        try:
            self._stream_pieces(stream, request, sent)
        except BaseException:
            self.owner._note_stream_end(StreamEnd(sent[0], len(stream.pieces), cut=True))
            raise
        self.owner._note_stream_end(StreamEnd(sent[0], len(stream.pieces), cut=False))

    def _stream_pieces(self, stream: Stream, request: RecordedRequest, sent: list[int]) -> None:
        """Write the answer; `sent[0]` counts the content pieces written so far."""
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", ""))
        options = body.get("stream_options") or {}
        wants_usage = bool(options.get("include_usage")) and stream.send_usage
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        self.owner._pause(stream.first_delay)
        newline = "\r\n" if stream.crlf else "\n"

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            out: dict[str, Any] = {
                "id": "chatcmpl-test",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": None,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
            if wants_usage:
                out["usage"] = None
            return out

        def send(payload: Any, *, pause: bool = True) -> None:
            if stream.keepalive:
                self._write(f": keep-alive{newline}{newline}".encode())
            data = payload if isinstance(payload, str) else json.dumps(payload)
            event = f"data: {data}{newline}{newline}".encode()
            if stream.split:
                cut = max(1, len(event) // 2)
                self._write(event[:cut])
                self.owner._pause(0.02)
                self._write(event[cut:])
            else:
                self._write(event)
            if pause:
                self.owner._pause(stream.delay)

        send(chunk({"role": "assistant", "content": ""}), pause=False)
        for thought in stream.reasoning:
            send(chunk({"reasoning_content": thought}))
        for piece in stream.pieces:
            send(chunk({"content": piece}), pause=False)
            sent[0] += 1
            self.owner._pause(stream.delay)
        if stream.error is not None:
            send({"error": stream.error}, pause=False)
        else:
            send(chunk({}, stream.finish_reason), pause=False)
            if wants_usage:
                prompt = sum(
                    len(str(m.get("content", "")).split()) for m in body.get("messages") or []
                )
                prompt, completion_tokens = stream.usage or (prompt, len(stream.pieces))
                usage = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt + completion_tokens,
                }
                final = chunk({}) | {"choices": [], "usage": usage}
                send(final, pause=False)
            if stream.done:
                send("[DONE]", pause=False)
        self._write(b"")  # the last chunk of the chunked encoding

    def _write(self, data: bytes) -> None:
        """One HTTP chunk (an empty one ends the body), flushed so it leaves at once."""
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


@contextmanager
def running_openai_server(**options: Any) -> Iterator[OpenAITestServer]:
    """A started server, stopped on exit; `options` go to `OpenAITestServer`."""
    server = OpenAITestServer(**options)
    server.start()
    try:
        yield server
    finally:
        server.stop()

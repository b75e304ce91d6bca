"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions and Anthropic messages
wire formats with scripted replies, so the real SDKs can be tested without a network or a key.

Replies are scripted per operator: the n-th request that names an operator gets the n-th item of
its script (the last item repeats). Every request is recorded. The server runs in a daemon thread
and shuts itself down after `lifetime_s` whatever happens to the test.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from kernelgenbench.suite import registry

from .conftest import CANDIDATES

OP = re.compile(r"replaces [^`]*`([a-z]+::\w+)`")


def task_of(prompt: str) -> str | None:
    """The operator a prompt asks for, as a model could tell: its id, and for a perturbed twin (asked
    for under its original's id) the contract its text states."""
    found = OP.search(prompt)
    if not found:
        return None
    twin = next((t for t in registry.twins() if t.twin_of == found.group(1) and t.doc.strip() in prompt), None)
    return twin.id if twin else found.group(1)


@dataclass(frozen=True)
class Item:
    """One scripted answer: a reply text with a finish reason, or an HTTP error status."""

    text: str = ""
    finish: str = "stop"
    status: int = 200


def code_reply(stem: str, prefix: str = "Here is the kernel.\n\n") -> Item:
    code = (CANDIDATES / f"{stem}.py").read_text()
    return Item(f"{prefix}```python\n{code}```\nIt computes the operator with a Triton kernel.")


def thinking_reply(stem: str) -> Item:
    wrong = "```python\nraise SystemExit\n```"
    return code_reply(stem, prefix=f"<think>First draft:\n{wrong}\nNo, better:</think>\n")


def no_code() -> Item:
    return Item("I cannot write this kernel without more information about the hardware.")


def truncated(stem: str) -> Item:
    code = (CANDIDATES / f"{stem}.py").read_text()
    return Item(f"```python\n{code[: len(code) // 2]}", finish="length")


def error(status: int) -> Item:
    return Item(status=status)


@dataclass
class Received:
    path: str
    body: dict[str, Any]
    op: str | None
    status: int


@dataclass
class Loopback:
    scripts: dict[str, list[Item]]
    requests: list[Received] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    held: threading.Event = field(default_factory=threading.Event)  # set (by `hold`): nothing is answered

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def generations(self, op: str | None = None) -> list[Received]:
        return [r for r in self.requests if r.path.endswith(("/chat/completions", "/messages"))
                and (op is None or r.op == op)]

    def hold(self) -> None:
        """From now on no generation is answered (until `held` is cleared); one being answered has
        been recorded by the time this returns."""
        with self.lock:
            self.held.set()

    def answer(self, path: str, body: dict[str, Any]) -> Item | None:
        """The scripted reply, recorded; None while held (the caller asks again)."""
        messages = body.get("messages") or []
        first = messages[0]["content"] if messages else ""
        op = task_of(first if isinstance(first, str) else json.dumps(first))
        with self.lock:
            if self.held.is_set():
                return None
            n = len(self.generations(op))
            script = self.scripts.get(op or "", [no_code()])
            item = script[min(n, len(script) - 1)]
            self.requests.append(Received(path, body, op, item.status))
        return item


def _openai_body(item: Item, body: dict[str, Any], n: int) -> dict[str, Any]:
    tokens_in = len(json.dumps(body.get("messages"))) // 4
    tokens_out = max(1, len(item.text) // 4)
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": item.text},
                         "finish_reason": item.finish, "logprobs": None}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out}}


def _anthropic_body(item: Item, body: dict[str, Any], n: int) -> dict[str, Any]:
    finish = {"stop": "end_turn", "length": "max_tokens"}.get(item.finish, item.finish)
    return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": [{"type": "text", "text": item.text}], "stop_reason": finish, "stop_sequence": None,
            "usage": {"input_tokens": len(json.dumps(body.get("messages"))) // 4,
                      "output_tokens": max(1, len(item.text) // 4)}}


def _handler(server: Loopback) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _client_gone(self) -> bool:
            try:
                return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                return False
            except OSError:
                return True

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/v1/models"):
                self._send(200, {"object": "list", "data": [], "has_more": False, "first_id": None,
                                 "last_id": None})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            anthropic = self.path.endswith("/v1/messages")
            if not anthropic and not self.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            item = server.answer(self.path, body)
            while item is None:  # a test froze what has been answered
                time.sleep(0.01)
                if self._client_gone():
                    return  # killed meanwhile: never answered, never recorded
                item = server.answer(self.path, body)
            n = len(server.requests)
            if item.status != 200:
                err = ({"type": "error", "error": {"type": "api_error", "message": f"scripted {item.status}"}}
                       if anthropic else {"error": {"message": f"scripted {item.status}", "type": "server_error"}})
                self._send(item.status, err, {"Retry-After": "0"})
            elif anthropic:
                self._send(200, _anthropic_body(item, body, n))
            else:
                self._send(200, _openai_body(item, body, n))

    return Handler


def start(scripts: dict[str, list[Item]], lifetime_s: float = 600.0) -> tuple[Loopback, ThreadingHTTPServer]:
    state = Loopback(scripts)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    timer = threading.Timer(lifetime_s, httpd.shutdown)
    timer.daemon = True
    timer.start()
    return state, httpd

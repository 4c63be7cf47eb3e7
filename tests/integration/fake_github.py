"""A stand-in for the GitHub REST API on 127.0.0.1, for the action's API steps: it keeps a pull
request's comments in memory, answers the code-scanning question with a chosen status, and
records every request (method, path, JSON body, headers) so a test asserts the exact payload."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

REPOSITORY = "acme/models"


@dataclass
class Request:
    method: str
    path: str
    body: Any
    headers: dict[str, str]


@dataclass
class FakeGitHub:
    url: str = ""
    #: (status, message) the code-scanning analyses endpoint answers.
    scanning: tuple[int, str] = (200, "")
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    next_id: int = 1000

    def add_comment(self, body: str, login: str = "someone") -> int:
        self.next_id += 1
        self.comments[self.next_id] = {"id": self.next_id, "body": body, "user": {"login": login}}
        return self.next_id

    def calls(self) -> list[tuple[str, str]]:
        return [(r.method, r.path) for r in self.requests]


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    prefix = f"/repos/{REPOSITORY}"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _answer(self, status: int, document: Any = None) -> None:
            data = b"" if document is None else json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            fake.requests.append(Request(self.command, self.path, body, dict(self.headers)))
            url = urlsplit(self.path)
            path = url.path.removeprefix(prefix)
            if not url.path.startswith(prefix):
                return self._answer(404, {"message": "Not Found"})
            if path == "/code-scanning/analyses":
                status, message = fake.scanning
                return self._answer(status, [] if status == 200 else {"message": message})
            parts = path.strip("/").split("/")
            if parts[:1] == ["issues"] and parts[2:] == ["comments"]:
                if self.command == "GET":
                    query = parse_qs(url.query)
                    size, page = int(query["per_page"][0]), int(query["page"][0])
                    listed = list(fake.comments.values())[(page - 1) * size : page * size]
                    return self._answer(200, listed)
                fake.next_id += 1
                fake.comments[fake.next_id] = {"id": fake.next_id, "body": body["body"]}
                return self._answer(201, fake.comments[fake.next_id])
            if parts[:2] == ["issues", "comments"] and len(parts) == 3:
                number = int(parts[2])
                if number not in fake.comments:
                    return self._answer(404, {"message": "Not Found"})
                if self.command == "DELETE":
                    del fake.comments[number]
                    return self._answer(204)
                fake.comments[number]["body"] = body["body"]
                return self._answer(200, fake.comments[number])
            return self._answer(404, {"message": "Not Found"})

        do_GET = do_POST = do_PATCH = do_DELETE = _handle

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

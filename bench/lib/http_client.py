"""A small HTTP/1.1 keep-alive client on asyncio streams, for the load drivers: no dependencies and a
few microseconds of Python per request, so the load generator leaves the CPU to what it measures.
It speaks only what the relay answers: Content-Length or chunked bodies."""

from __future__ import annotations

import asyncio
import json
import urllib.parse


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


class Pool:
    """Keep-alive connections to one origin; a request takes an idle one or opens a new one.

    Like httpx and browsers, it never reuses a connection that has sat idle longer than
    `keepalive_expiry` (below the relay's 60 s keep-alive timeout, so the server never closes a
    connection just as a request goes out on it), nor one the server has already closed."""

    def __init__(self, base_url: str, timeout: float = 60, keepalive_expiry: float = 30) -> None:
        parts = urllib.parse.urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.authority = parts.netloc
        self.timeout = timeout
        self.keepalive_expiry = keepalive_expiry
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []
        self.opened = 0

    def _take_idle(self):
        now = asyncio.get_running_loop().time()
        while self.idle:
            reader, writer, since = self.idle.pop()
            if now - since < self.keepalive_expiry and not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None

    async def request(self, method: str, target: str, headers: dict[str, str], body: bytes = b"") -> Response:
        connection = self._take_idle()
        if connection is None:
            connection = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
            self.opened += 1
        reader, writer = connection
        head = [f"{method} {target} HTTP/1.1", f"Host: {self.authority}", f"Content-Length: {len(body)}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            response = await asyncio.wait_for(self._read(reader), self.timeout)
        except BaseException:
            writer.close()
            raise
        if response.headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            self.idle.append((reader, writer, asyncio.get_running_loop().time()))
        return response

    @staticmethod
    async def _read(reader: asyncio.StreamReader) -> Response:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    while await reader.readuntil(b"\r\n") != b"\r\n":  # trailer fields
                        pass
                    break
                chunks.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(chunks)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        return Response(status, headers, body)

    def close(self) -> None:
        for _, writer, _ in self.idle:
            writer.close()
        self.idle.clear()

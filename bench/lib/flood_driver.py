"""The attacker and the probes of bench/flood (issue 38), standard library only.

    flood_driver.py attack --port P --shape idle|slowhead --addresses 40 --per-address 256 \
        --first-address 0 --seconds 45
    flood_driver.py probe --port P --token T --seconds 45 [--metrics URL]
    flood_driver.py quadratic --port P --token T --in-flight 8 --keys 27000 --seconds 45

attack: one process holds addresses × per-address connections (sources 127.10.x.y, numbered from
--first-address so two processes use different ones) and keeps them as the shape says:
  idle      each connection sends one complete `GET /healthz`, reads the answer, then sends nothing;
            when the relay closes it, it reconnects at once (a stronger attacker than issue 38's,
            who never came back);
  slowhead  each connection sends `POST /token HTTP/1.1` and `Host:`, then one header line every 4 s;
            when the relay answers or closes it, it reconnects at once.
A connection refused with 503 at accept tries again after 1 s. Prints one JSON line: connections
opened, answers by status, closes, bytes each way (the attacker's bandwidth), most held at once.

probe: the other clients. Twice a second, each from a new address (127.200.x.y) on a new connection
as a new visitor would: `GET /healthz`, and a real `tools/call get_me` (the relay calls the CloudKit
emulator). Every answer is timed from the connect to the last byte. Prints one JSON line per probe
kind with every status and time, and the relay's open connections (from /metrics, once a second).

quadratic: N `ping` requests in flight at once from one token (source 127.50.0.1), each with
`params` holding --keys distinct three-letter keys (27,000: 216 KB, under the body cap), sent again as
soon as each is answered. Prints the answers by status and their times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time
import urllib.request

IP_BIND_ADDRESS_NO_PORT = 24


def source_socket(address: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)  # the port is chosen at connect
    sock.bind((address, 0))
    return sock


def attack_address(index: int) -> str:
    return f"127.10.{index // 250}.{index % 250 + 1}"


class AttackStats:
    def __init__(self) -> None:
        self.opened = 0
        self.answers: dict[str, int] = {}
        self.closed_by_relay = 0
        self.connect_errors = 0
        self.sent = 0
        self.received = 0
        self.held = 0
        self.most_held = 0

    def answer(self, data: bytes) -> str:
        status = data[9:12].decode(errors="replace") if data.startswith(b"HTTP/1.") else "other"
        self.answers[status] = self.answers.get(status, 0) + 1
        return status


async def attacker(loop, port: int, address: str, shape: str, stop: float, stats: AttackStats, host: bytes) -> None:
    while time.monotonic() < stop:
        sock = None
        counted = False
        try:
            sock = source_socket(address)
            sock.setblocking(False)
            await loop.sock_connect(sock, ("127.0.0.1", port))
            stats.opened += 1
            stats.held += 1
            counted = True
            stats.most_held = max(stats.most_held, stats.held)
            if shape == "idle":
                request = b"GET /healthz HTTP/1.1\r\nHost: " + host + b"\r\n\r\n"
                await loop.sock_sendall(sock, request)
                stats.sent += len(request)
                data = await asyncio.wait_for(loop.sock_recv(sock, 4096), max(0.1, stop - time.monotonic()))
                stats.received += len(data)
                if not data:
                    stats.closed_by_relay += 1
                    continue
                if stats.answer(data) == "503":
                    await asyncio.sleep(1)
                    continue
                # Idle from here on: only the relay's close wakes this up.
                data = await asyncio.wait_for(loop.sock_recv(sock, 4096), max(0.1, stop - time.monotonic()))
                stats.received += len(data)
                stats.closed_by_relay += 1
            else:
                head = b"POST /token HTTP/1.1\r\nHost: " + host + b"\r\n"
                await loop.sock_sendall(sock, head)
                stats.sent += len(head)
                line = 0
                while True:
                    try:
                        data = await asyncio.wait_for(loop.sock_recv(sock, 4096), 4)
                    except asyncio.TimeoutError:
                        piece = b"X-Slow-%d: x\r\n" % line
                        line += 1
                        await loop.sock_sendall(sock, piece)
                        stats.sent += len(piece)
                        continue
                    stats.received += len(data)
                    if not data:
                        stats.closed_by_relay += 1
                    elif stats.answer(data) == "503":
                        await asyncio.sleep(1)
                    break
        except asyncio.TimeoutError:
            pass
        except OSError:
            stats.connect_errors += 1
            await asyncio.sleep(0.5)
        finally:
            if sock is not None:
                sock.close()
            if counted:
                stats.held -= 1


async def attack(args) -> dict:
    loop = asyncio.get_running_loop()
    stats = AttackStats()
    started = time.monotonic()
    stop = started + args.seconds
    host = f"127.0.0.1:{args.port}".encode()
    tasks = []
    total = args.addresses * args.per_address
    for n in range(total):
        address = attack_address(args.first_address + n % args.addresses)
        tasks.append(asyncio.ensure_future(attacker(loop, args.port, address, args.shape, stop, stats, host)))
        # Ramp over about --ramp seconds (the relay's accept queue is not what is measured).
        if n % 200 == 199:
            await asyncio.sleep(args.ramp * 200 / total)
    print("(ready)", file=sys.stderr, flush=True)
    await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.monotonic() - started
    return {
        "shape": args.shape,
        "addresses": args.addresses,
        "connections": total,
        "opened": stats.opened,
        "answers": stats.answers,
        "closed_by_relay": stats.closed_by_relay,
        "connect_errors": stats.connect_errors,
        "most_held": stats.most_held,
        "seconds": round(elapsed, 1),
        "upload_kb_per_s": round(stats.sent / elapsed / 1000, 1),
        "download_kb_per_s": round(stats.received / elapsed / 1000, 1),
    }


def exchange(port: int, source: str, request: bytes, timeout: float = 5.0) -> tuple[int, float, str]:
    """One request on a new connection (Connection: close); (status, seconds, detail)."""
    started = time.monotonic()
    try:
        sock = source_socket(source)
        sock.settimeout(timeout)
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(request)
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        finally:
            sock.close()
    except OSError as error:
        return 0, time.monotonic() - started, type(error).__name__
    seconds = time.monotonic() - started
    if not data.startswith(b"HTTP/1.1 "):
        return 0, seconds, "no answer"
    status = int(data[9:12])
    body = data.split(b"\r\n\r\n", 1)[-1]
    detail = "" if status == 200 else body[:120].decode(errors="replace")
    if status == 200 and b"tools/call" in request and b'"isError":true' in body:
        return 299, seconds, body[:160].decode(errors="replace")  # a tool error is not a success
    return status, seconds, detail


def probe(args) -> dict:
    host = f"127.0.0.1:{args.port}"
    healthz = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me","arguments":{}}}'
    call = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {args.token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    results: dict[str, list] = {"healthz": [], "tools/call": []}
    lock = threading.Lock()
    open_connections: list[float] = []
    stop = time.monotonic() + args.seconds
    serial = 0
    threads = []

    def run(kind: str, request: bytes, source: str) -> None:
        outcome = exchange(args.port, source, request)
        with lock:
            results[kind].append(outcome)

    def sample() -> None:
        while time.monotonic() < stop:
            try:
                text = urllib.request.urlopen(args.metrics, timeout=2).read().decode()
                for line in text.splitlines():
                    if line.startswith("relay_http_open_connections "):
                        open_connections.append(float(line.split()[1]))
            except OSError:
                pass
            time.sleep(1)

    if args.metrics:
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
    next_at = time.monotonic() + args.delay
    while next_at < stop:
        time.sleep(max(0, next_at - time.monotonic()))
        for kind, request in (("healthz", healthz), ("tools/call", call)):
            serial += 1
            source = f"127.200.{serial // 250}.{serial % 250 + 1}"
            thread = threading.Thread(target=run, args=(kind, request, source))
            thread.start()
            threads.append(thread)
        next_at += args.interval
    for thread in threads:
        thread.join()
    report = {}
    for kind, outcomes in results.items():
        good = sum(1 for status, seconds, _ in outcomes if status == 200 and seconds < 1)
        failures: dict[str, int] = {}
        for status, seconds, detail in outcomes:
            if status != 200 or seconds >= 1:
                key = f"{status}" if status != 200 else "200 but >= 1 s"
                failures[key] = failures.get(key, 0) + 1
        times = sorted(seconds for _, seconds, _ in outcomes)
        report[kind] = {
            "probes": len(outcomes),
            "ok_under_1s": good,
            "failures": failures,
            "p50_ms": round(times[len(times) // 2] * 1000, 1) if times else None,
            "max_ms": round(times[-1] * 1000, 1) if times else None,
            "sample_failure": next((d for s, _, d in outcomes if s != 200 and d), ""),
        }
    report["max_open_connections"] = max(open_connections) if open_connections else None
    return report


def three_letter_keys(count: int) -> bytes:
    letters = "abcdefghijklmnopqrstuvwxyz"
    keys = []
    for index in range(count):
        name, rest = "", index
        while True:
            name += letters[rest % 26]
            rest //= 26
            if rest == 0:
                break
        keys.append('"' + name.rjust(3, "a") + '":0')
    params = "{" + ",".join(keys) + "}"
    return ('{"jsonrpc":"2.0","id":1,"method":"ping","params":' + params + "}").encode()


def quadratic(args) -> dict:
    host = f"127.0.0.1:{args.port}"
    body = three_letter_keys(args.keys)
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {args.token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    stop = time.monotonic() + args.seconds
    answers: dict[str, int] = {}
    times: list[float] = []
    lock = threading.Lock()

    def worker() -> None:
        while time.monotonic() < stop:
            status, seconds, _ = exchange(args.port, "127.50.0.1", request, timeout=30)
            with lock:
                answers[str(status)] = answers.get(str(status), 0) + 1
                times.append(seconds)

    threads = [threading.Thread(target=worker) for _ in range(args.in_flight)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times.sort()
    return {
        "keys": args.keys,
        "body_bytes": len(body),
        "in_flight": args.in_flight,
        "answers": answers,
        "p50_ms": round(times[len(times) // 2] * 1000, 1) if times else None,
        "max_ms": round(times[-1] * 1000, 1) if times else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("attack")
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--shape", choices=["idle", "slowhead"], required=True)
    a.add_argument("--addresses", type=int, required=True)
    a.add_argument("--per-address", type=int, required=True)
    a.add_argument("--first-address", type=int, default=0)
    a.add_argument("--seconds", type=float, default=45)
    a.add_argument("--ramp", type=float, default=5)
    p = sub.add_parser("probe")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--seconds", type=float, default=45)
    p.add_argument("--delay", type=float, default=2)
    p.add_argument("--interval", type=float, default=0.5)
    p.add_argument("--metrics", default="")
    q = sub.add_parser("quadratic")
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--token", required=True)
    q.add_argument("--in-flight", type=int, default=8)
    q.add_argument("--keys", type=int, default=27000)
    q.add_argument("--seconds", type=float, default=45)
    args = parser.parse_args()
    if args.command == "attack":
        report = asyncio.run(attack(args))
    elif args.command == "probe":
        report = probe(args)
    else:
        report = quadratic(args)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()

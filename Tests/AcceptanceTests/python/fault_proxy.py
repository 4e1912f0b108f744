"""A loopback TCP proxy that can refuse, hang or slow what it forwards, one route at a time.

The fault tests put one route between each relay instance and each AWS service (moto): a route
can then play DynamoDB or KMS refusing connections, hanging, or answering slowly, for every
instance or only for one (a partition), while moto keeps its tables and keys.

Usage: python3 fault_proxy.py CONTROL_PORT NAME:LISTEN_PORT:TARGET_PORT [NAME:LISTEN:TARGET ...]

Control (HTTP on 127.0.0.1:CONTROL_PORT): GET /NAME/pass, /NAME/refuse, /NAME/hang,
/NAME/delay/MILLISECONDS; NAME may be a comma-separated list. The answer is "ok NAME=MODE".

- refuse: the listening socket is closed (new connections are refused) and open ones are reset.
- hang: connections are accepted and bytes are held, in both directions, until the mode changes.
- delay: every chunk sent towards the target waits that long first (one wait per request).
Exits when the process that started it dies.
"""

import asyncio
import os
import signal
import socket
import struct
import sys

signal.pthread_sigmask(signal.SIG_SETMASK, [])
PARENT = os.getppid()


class Route:
    def __init__(self, name, listen, target):
        self.name, self.listen, self.target = name, listen, target
        self.mode, self.delay = "pass", 0.0
        self.server = None
        self.writers = set()
        self.changed = asyncio.Event()

    async def open(self):
        if self.server is None:
            self.server = await asyncio.start_server(self.handle, "127.0.0.1", self.listen, reuse_address=True)

    async def set(self, mode, delay=0.0):
        self.mode, self.delay = mode, delay
        self.changed.set()
        self.changed = asyncio.Event()
        if mode == "refuse":
            if self.server is not None:
                self.server.close()
                self.server = None
            for writer in list(self.writers):
                reset(writer)
            self.writers.clear()
        else:
            await self.open()

    async def wait_while_hung(self):
        while self.mode == "hang":
            await self.changed.wait()

    async def pipe(self, reader, writer, towards_target):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await self.wait_while_hung()
                if towards_target and self.mode == "delay":
                    await asyncio.sleep(self.delay)
                if self.mode == "refuse":
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def handle(self, client_reader, client_writer):
        self.writers.add(client_writer)
        try:
            await self.wait_while_hung()
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
            except OSError:
                client_writer.close()
                return
            self.writers.add(upstream_writer)
            await asyncio.gather(
                self.pipe(client_reader, upstream_writer, True), self.pipe(upstream_reader, client_writer, False)
            )
        finally:
            self.writers.discard(client_writer)


def reset(writer):
    """Closes with RST, as a dead peer's kernel answers."""
    try:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
    except Exception:
        pass


async def control(routes, reader, writer):
    try:
        line = (await reader.readline()).decode("latin-1").split()
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        parts = line[1].strip("/").split("/") if len(line) > 1 else []
        names = parts[0].split(",") if parts else []
        mode = parts[1] if len(parts) > 1 else ""
        status, body = "200 OK", ""
        if not names or any(name not in routes for name in names) or mode not in ("pass", "refuse", "hang", "delay"):
            status, body = "404 Not Found", "unknown route or mode\n"
        else:
            delay = float(parts[2]) / 1000 if mode == "delay" and len(parts) > 2 else 0.0
            for name in names:
                await routes[name].set(mode, delay)
            body = "ok " + " ".join(f"{name}={mode}" for name in names) + "\n"
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n\r\n{body}".encode()
        )
        await writer.drain()
    finally:
        writer.close()


async def watch_parent():
    while os.getppid() == PARENT:
        await asyncio.sleep(0.5)
    os._exit(0)


async def main():
    control_port = int(sys.argv[1])
    routes = {}
    for spec in sys.argv[2:]:
        name, listen, target = spec.split(":")
        routes[name] = Route(name, int(listen), int(target))
        await routes[name].open()
    server = await asyncio.start_server(lambda r, w: control(routes, r, w), "127.0.0.1", control_port)
    print(f"fault proxy listening, control on {control_port}", flush=True)
    asyncio.ensure_future(watch_parent())
    async with server:
        await server.serve_forever()


asyncio.run(main())

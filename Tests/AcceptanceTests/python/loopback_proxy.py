"""The loopback TCP proxy the acceptance tests put between the relay and moto: routes that forward, refuse,
hang or slow what they carry, and an exit when the test process that started them dies.

`tcp_proxy.py` (one route that only forwards; killing it is the outage) and `fault_proxy.py` (named
routes switched over HTTP) are its two command lines.
"""

import asyncio
import os
import signal
import socket
import struct

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
            # The connection to the target opens only when the request's first bytes are due there
            # (after a delay): moto serves one connection at a time and would otherwise sit waiting on
            # a delayed request, slowing every other route to it (a slow DynamoDB slowing KMS too).
            try:
                first = await client_reader.read(65536)
            except (ConnectionError, OSError):
                first = b""
            if not first:
                client_writer.close()
                return
            await self.wait_while_hung()
            if self.mode == "delay":
                await asyncio.sleep(self.delay)
            if self.mode == "refuse":
                return
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
            except OSError:
                client_writer.close()
                return
            self.writers.add(upstream_writer)
            upstream_writer.write(first)
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


async def watch_parent():
    while os.getppid() == PARENT:
        await asyncio.sleep(0.5)
    os._exit(0)


async def serve(server, banner):
    """Says `banner` (the line the test waits for), then serves until the test process dies."""
    print(banner, flush=True)
    asyncio.ensure_future(watch_parent())
    async with server:
        await server.serve_forever()

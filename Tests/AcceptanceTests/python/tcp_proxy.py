"""A loopback TCP forwarder: listens on 127.0.0.1:LISTEN and pipes each connection to 127.0.0.1:TARGET.

The acceptance tests put it between the relay and moto: killing it makes "DynamoDB/KMS" refuse
connections (and resets the open ones) while moto keeps its tables and keys; starting it again on
the same port brings the service back. Exits when the test process that started it dies.

Usage: python3 tcp_proxy.py LISTEN_PORT TARGET_PORT
"""

import asyncio
import os
import signal
import sys

signal.pthread_sigmask(signal.SIG_SETMASK, [])
PARENT = os.getppid()


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
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


async def handle(target, client_reader, client_writer):
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))


async def watch_parent():
    while os.getppid() == PARENT:
        await asyncio.sleep(0.5)
    os._exit(0)


async def main():
    listen, target = int(sys.argv[1]), int(sys.argv[2])
    server = await asyncio.start_server(lambda r, w: handle(target, r, w), "127.0.0.1", listen, reuse_address=True)
    print(f"proxy listening on {listen}", flush=True)
    asyncio.ensure_future(watch_parent())
    async with server:
        await server.serve_forever()


asyncio.run(main())

"""A loopback TCP forwarder: listens on 127.0.0.1:LISTEN and pipes each connection to 127.0.0.1:TARGET.

The acceptance tests put it between the relay and moto: killing it makes "DynamoDB/KMS" refuse
connections (and resets the open ones) while moto keeps its tables and keys; starting it again on
the same port brings the service back. Exits when the test process that started it dies.

Usage: python3 tcp_proxy.py LISTEN_PORT TARGET_PORT
"""

import asyncio
import sys

from loopback_proxy import Route, serve


async def main():
    listen, target = int(sys.argv[1]), int(sys.argv[2])
    route = Route("moto", listen, target)
    await route.open()
    await serve(route.server, f"proxy listening on {listen}")


asyncio.run(main())

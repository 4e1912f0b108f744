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
import sys

from loopback_proxy import Route, serve


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


async def main():
    control_port = int(sys.argv[1])
    routes = {}
    for spec in sys.argv[2:]:
        name, listen, target = spec.split(":")
        routes[name] = Route(name, int(listen), int(target))
        await routes[name].open()
    server = await asyncio.start_server(lambda r, w: control(routes, r, w), "127.0.0.1", control_port)
    await serve(server, f"fault proxy listening, control on {control_port}")


asyncio.run(main())

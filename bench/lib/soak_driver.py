"""The load driver of bench/soak (it is the load generator, not the thing measured).

    python3 soak_driver.py soak  RELAY_URL EMULATOR_URL RELAY_PID   # steady mixed traffic
    python3 soak_driver.py burst RELAY_URL EMULATOR_URL RELAY_PID   # CALLS tool calls in flight at once

soak: SOAK_MINUTES of open-loop traffic at a fixed schedule — SOAK_RATE tool calls per second spread
over the grants (get_me 50 %, list_todos 30 %, add_todo 10 %, delete_todo of an earlier add 10 %),
every grant refreshing its tokens every SOAK_REFRESH_SECONDS, and a new connection (registration +
the full OAuth flow through the consent and sign-in pages) every SOAK_CONNECT_SECONDS, whose grant
then joins the pool while the oldest one leaves it: that client disconnects by revoking its
refresh token (RFC 7009), and its access token must then get 401. Connections come and go at a
steady rate and the pool stays at SOAK_GRANTS, so memory that retired grants leave behind shows
as growth (SOAK_RETIRE=0 keeps every grant instead). Latency runs from the scheduled start, so a stall shows up in it. The relay's
RSS, open descriptors and threads are sampled from /proc every 5 s.

burst: BURST_GRANTS grants made through the OAuth flow, then BURST_CALLS `get_me` calls sent at
once on as many connections (cycling over the grants), BURST_REPEAT times (RSS and descriptors after
each: a second round that does not grow them shows the first one's growth is not a leak), while the
relay's thread count is sampled every 50 ms and, with UPSTREAM_PORT set, the established TCP
connections to that port (the relay's connections to CloudKit: the emulator, or nginx in front of
it) every 100 ms. The emulator's latency is whatever bench/soak set (500 ms).

Both print a report and one final JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
import random
import sys
import time
import urllib.parse
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oauth_client  # noqa: E402
from http_client import Pool  # noqa: E402

MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


def proc(pid: int) -> dict[str, float]:
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                values["rss_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("RssAnon:"):
                values["rss_anon_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("RssFile:"):
                values["rss_file_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                values["threads"] = int(line.split()[1])
    values["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    values.update(memory_gauges_mb())
    values["rss_less_sqlite_mb"] = values["rss_mb"] - values["sqlite_mb"]
    return values


def upstream_connections(port: int) -> int:
    """Established TCP connections to 127.0.0.1:`port` from this host (/proc/net/tcp)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as file:
                next(file)
                for line in file:
                    fields = line.split(None, 4)
                    if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == port:
                        count += 1
        except FileNotFoundError:
            pass
    return count


MEMORY_GAUGES = {
    "relay_sqlite_memory_bytes": "sqlite_mb",  # SQLite's page caches
    "relay_heap_in_use_bytes": "heap_in_use_mb",  # malloc'd and not freed: what a leak would grow
    "relay_heap_held_bytes": "heap_held_mb",  # malloc's arenas, in use or kept for reuse
}


def memory_gauges_mb() -> dict[str, float]:
    """The relay's memory gauges from METRICS_URL, in MB; zeros without it."""
    values = dict.fromkeys(MEMORY_GAUGES.values(), 0.0)
    url = os.environ.get("METRICS_URL")
    if not url:
        return values
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            for line in response.read().decode().splitlines():
                name, _, value = line.partition(" ")
                if name in MEMORY_GAUGES:
                    values[MEMORY_GAUGES[name]] = float(value) / (1024 * 1024)
    except OSError:
        pass
    return values


def halves(samples: list[dict], warmup: float, key: str) -> list[float]:
    """How much `key` grew over the first and over the second half of the run after the warm-up:
    a leak grows about as much in both; memory that fills and levels off grows mostly in the first."""
    kept = [sample for sample in samples if sample["t"] >= warmup]
    middle = kept[len(kept) // 2]
    return [middle[key] - kept[0][key], kept[-1][key] - middle[key]]


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Stats:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.samples: list[dict] = []

    def ok(self, kind: str, seconds: float) -> None:
        self.latencies[kind].append(seconds * 1000)

    def error(self, kind: str, what: str) -> None:
        self.errors[f"{kind}: {what}"] += 1

    def table(self, elapsed: float) -> list[str]:
        lines = [f"{'kind':<14} {'count':>8} {'per s':>8} {'p50':>9} {'p99':>9} {'max':>9}"]
        for kind in sorted(self.latencies):
            values = self.latencies[kind]
            lines.append(
                f"{kind:<14} {len(values):>8} {len(values) / elapsed:>8.1f} {percentile(values, 0.5):>7.1f}ms "
                f"{percentile(values, 0.99):>7.1f}ms {max(values):>7.1f}ms"
            )
        return lines


class Grant:
    def __init__(self, tokens: dict) -> None:
        self.tokens = tokens
        self.todos: list[str] = []

    @property
    def headers(self) -> dict[str, str]:
        return {**MCP_HEADERS, "Authorization": "Bearer " + self.tokens["access_token"]}


async def tool_call(pool: Pool, grant: Grant, name: str, arguments: dict) -> dict:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    ).encode()
    response = await pool.request("POST", "/mcp", grant.headers, body)
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}")
    result = response.json().get("result") or {}
    if result.get("isError"):
        code = (result.get("structuredContent") or {}).get("error", {}).get("code", "tool error")
        raise RuntimeError(code)
    return result.get("structuredContent") or {}


async def one_call(pool: Pool, grant: Grant, stats: Stats, scheduled: float, serial: int) -> None:
    roll = random.random()
    if roll < 0.5:
        name, arguments = "get_me", {}
    elif roll < 0.8:
        name, arguments = "list_todos", {}
    elif roll < 0.9 or not grant.todos:
        name, arguments = "add_todo", {"title": f"soak {serial}", "due": "2031-01-02T09:00"}
    else:
        name, arguments = "delete_todo", {"id": grant.todos.pop(0)}
    try:
        result = await tool_call(pool, grant, name, arguments)
        if name == "add_todo":
            grant.todos.append(result["todo"]["id"])
        stats.ok(name, time.monotonic() - scheduled)
    except Exception as error:  # noqa: BLE001 - every failure is counted by kind
        stats.error(name, str(error) or type(error).__name__)


async def refresh(relay: str, pool: Pool, grant: Grant, stats: Stats) -> None:
    started = time.monotonic()
    form = urllib.parse.urlencode(
        {
            "grant_type": "refresh_token",
            "refresh_token": grant.tokens["refresh_token"],
            "client_id": grant.tokens["client_id"],
            "resource": relay + "/mcp",
        }
    )
    try:
        response = await pool.request(
            "POST", "/token", {"Content-Type": "application/x-www-form-urlencoded"}, form.encode()
        )
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status} {response.body[:80]!r}")
        grant.tokens = {**grant.tokens, **response.json()}
        stats.ok("refresh", time.monotonic() - started)
    except Exception as error:  # noqa: BLE001
        stats.error("refresh", str(error))


async def retire(pool: Pool, grant: Grant, stats: Stats) -> None:
    """A client disconnecting: its grant has left the rotation; once its last calls are done, it
    revokes its refresh token (RFC 7009), which ends the grant, and its access token must then be
    refused."""
    await asyncio.sleep(5)
    started = time.monotonic()
    form = urllib.parse.urlencode({"token": grant.tokens["refresh_token"], "client_id": grant.tokens["client_id"]})
    try:
        response = await pool.request(
            "POST", "/revoke", {"Content-Type": "application/x-www-form-urlencoded"}, form.encode()
        )
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status} {response.body[:80]!r}")
        stats.ok("revoke", time.monotonic() - started)
        try:
            await tool_call(pool, grant, "get_me", {})
            stats.error("revoke", "a revoked grant's access token still works")
        except RuntimeError as refused:
            if str(refused) != "HTTP 401":
                stats.error("revoke", f"after revocation: {refused}")
    except Exception as error:  # noqa: BLE001
        stats.error("revoke", str(error))


def new_connection(relay: str, emulator: str, apple_id: str, serial: int) -> dict:
    client_id = oauth_client.register(relay, "soak client")
    tokens = oauth_client.connect(relay, client_id, apple_id, f"10.200.{serial >> 8 & 255}.{serial & 255}")
    oauth_client.seed_account(emulator, apple_id)
    return tokens


async def soak(relay: str, emulator: str, pid: int) -> dict:
    minutes = float(os.environ.get("SOAK_MINUTES", "15"))
    rate = float(os.environ.get("SOAK_RATE", "40"))
    grant_count = int(os.environ.get("SOAK_GRANTS", "20"))
    refresh_every = float(os.environ.get("SOAK_REFRESH_SECONDS", "60"))
    connect_every = float(os.environ.get("SOAK_CONNECT_SECONDS", "10"))
    retiring = os.environ.get("SOAK_RETIRE", "1") != "0"
    retired = 0
    stats = Stats()
    grants = [
        Grant(tokens)
        for tokens in await asyncio.to_thread(oauth_client.grants, relay, grant_count, "soak", emulator, 4, True)
    ]
    pool = Pool(relay)
    duration = minutes * 60
    warmup = min(30.0, duration / 10)
    start = time.monotonic()
    tasks: set[asyncio.Task] = set()

    def spawn(coroutine) -> None:
        task = asyncio.create_task(coroutine)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def sampler() -> None:
        while time.monotonic() - start < duration:
            stats.samples.append({"t": round(time.monotonic() - start, 1), **proc(pid)})
            await asyncio.sleep(5)

    async def refresher() -> None:
        # Each grant refreshes once per interval, spread evenly; grants added later join the cycle.
        index = 0
        while time.monotonic() - start < duration:
            await asyncio.sleep(refresh_every / max(1, len(grants)))
            spawn(refresh(relay, pool, grants[index % len(grants)], stats))
            index += 1

    async def connector() -> None:
        nonlocal retired
        serial = 0
        while time.monotonic() - start + connect_every < duration:
            await asyncio.sleep(connect_every)
            began = time.monotonic()
            try:
                tokens = await asyncio.to_thread(new_connection, relay, emulator, f"soak-new{serial}@example.com", serial)
                grants.append(Grant(tokens))
                stats.ok("connect", time.monotonic() - began)
                if retiring and len(grants) > grant_count:
                    retired += 1
                    spawn(retire(pool, grants.pop(0), stats))
            except Exception as error:  # noqa: BLE001
                stats.error("connect", str(error))
            serial += 1

    background = [asyncio.create_task(job()) for job in (sampler, refresher, connector)]
    serial = 0
    while True:
        scheduled = start + serial / rate
        if scheduled - start >= duration:
            break
        delay = scheduled - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        spawn(one_call(pool, grants[serial % len(grants)], stats, scheduled, serial))
        serial += 1
    await asyncio.gather(*background)
    while tasks:
        await asyncio.gather(*list(tasks))
    elapsed = time.monotonic() - start
    stats.samples.append({"t": round(elapsed, 1), **proc(pid)})
    pool.close()

    first = next(sample for sample in stats.samples if sample["t"] >= warmup)
    last = stats.samples[-1]
    calls = [value for kind in ("get_me", "list_todos", "add_todo", "delete_todo") for value in stats.latencies[kind]]
    report = {
        "minutes": minutes,
        "tool_calls_per_second": len(calls) / elapsed,
        "tool_call_p50_ms": percentile(calls, 0.5),
        "tool_call_p99_ms": percentile(calls, 0.99),
        "errors": sum(stats.errors.values()),
        "error_kinds": dict(stats.errors),
        "grants_at_end": len(grants),
        "grants_retired": retired,
        "rss_mb_start": first["rss_mb"],
        "rss_mb_end": last["rss_mb"],
        "rss_mb_max": max(sample["rss_mb"] for sample in stats.samples),
        "sqlite_mb_start": first["sqlite_mb"],
        "sqlite_mb_end": last["sqlite_mb"],
        "rss_anon_mb_start": first["rss_anon_mb"],
        "rss_anon_mb_end": last["rss_anon_mb"],
        "rss_file_mb_start": first["rss_file_mb"],
        "rss_file_mb_end": last["rss_file_mb"],
        "heap_in_use_mb_start": first["heap_in_use_mb"],
        "heap_in_use_mb_end": last["heap_in_use_mb"],
        "heap_held_mb_start": first["heap_held_mb"],
        "heap_held_mb_end": last["heap_held_mb"],
        "rss_mb_halves": halves(stats.samples, warmup, "rss_mb"),
        "heap_in_use_mb_halves": halves(stats.samples, warmup, "heap_in_use_mb"),
        "rss_less_sqlite_mb_halves": halves(stats.samples, warmup, "rss_less_sqlite_mb"),
        "fds_start": first["fds"],
        "fds_end": last["fds"],
        "fds_max": max(sample["fds"] for sample in stats.samples),
        "threads_start": first["threads"],
        "threads_max": max(sample["threads"] for sample in stats.samples),
        "client_connections_opened": pool.opened,
    }
    print("\n".join(stats.table(elapsed)))
    for sample in stats.samples[:: max(1, len(stats.samples) // 12)] + [stats.samples[-1]]:
        print(
            f"  t={sample['t']:>6.0f}s  RSS {sample['rss_mb']:6.1f} MB (anon {sample['rss_anon_mb']:5.1f}, file "
            f"{sample['rss_file_mb']:5.1f}; heap in use {sample['heap_in_use_mb']:5.1f}, held {sample['heap_held_mb']:5.1f}; "
            f"SQLite {sample['sqlite_mb']:5.1f} MB)  "
            f"fds {sample['fds']:>4}  threads {sample['threads']}"
        )
    return report


async def burst(relay: str, emulator: str, pid: int) -> dict:
    grant_count = int(os.environ.get("BURST_GRANTS", "2000"))
    calls = int(os.environ.get("BURST_CALLS", "2000"))
    repeats = int(os.environ.get("BURST_REPEAT", "2"))
    began = time.monotonic()
    grants = [
        Grant(tokens)
        for tokens in await asyncio.to_thread(oauth_client.grants, relay, grant_count, "burst", None, 16, True)
    ]
    setup_seconds = time.monotonic() - began
    before = proc(pid)
    threads_max = before["threads"]
    done = False

    async def sampler() -> None:
        nonlocal threads_max
        while not done:
            threads_max = max(threads_max, proc(pid)["threads"])
            await asyncio.sleep(0.05)

    upstream_port = int(os.environ.get("UPSTREAM_PORT", "0"))
    upstream_max = 0

    async def upstream_sampler() -> None:
        nonlocal upstream_max
        while not done and upstream_port:
            upstream_max = max(upstream_max, upstream_connections(upstream_port))
            await asyncio.sleep(0.1)

    watcher = asyncio.create_task(sampler())
    upstream_watcher = asyncio.create_task(upstream_sampler())
    rounds = []
    for _ in range(repeats):
        stats = Stats()
        pools = [Pool(relay, timeout=120) for _ in range(calls)]

        async def call(index: int) -> None:
            started = time.monotonic()
            try:
                await tool_call(pools[index], grants[index % len(grants)], "get_me", {})
                stats.ok("get_me", time.monotonic() - started)
            except Exception as error:  # noqa: BLE001
                stats.error("get_me", str(error) or type(error).__name__)

        # Open every connection first, so the calls really are in flight together.
        for pool in pools:
            reader, writer = await asyncio.open_connection(pool.host, pool.port)
            pool.idle.append((reader, writer, asyncio.get_running_loop().time()))
        opened = proc(pid)
        started = time.monotonic()
        await asyncio.gather(*(call(index) for index in range(calls)))
        elapsed = time.monotonic() - started
        for pool in pools:
            pool.close()
        await asyncio.sleep(2)  # let the relay see the connections close
        values = stats.latencies["get_me"]
        print("\n".join(stats.table(elapsed)))
        after = proc(pid)
        rounds.append(
            {
                "completed": len(values),
                "errors": sum(stats.errors.values()),
                "error_kinds": dict(stats.errors),
                "seconds": elapsed,
                "p50_ms": percentile(values, 0.5),
                "p99_ms": percentile(values, 0.99),
                "fds_with_connections_open": opened["fds"],
                **{key + "_after": value for key, value in after.items() if key.endswith("_mb")},
                "fds_after": after["fds"],
            }
        )
    done = True
    await watcher
    await upstream_watcher
    after = proc(pid)
    await asyncio.sleep(15)  # the relay looks for free memory to give back every 10 s
    settled = proc(pid)
    return {
        "calls": calls,
        "grants": grant_count,
        "grant_setup_seconds": setup_seconds,
        "rounds": rounds,
        "completed": min(round["completed"] for round in rounds),
        "errors": sum(round["errors"] for round in rounds),
        "threads_before": before["threads"],
        "threads_max": threads_max,
        "threads_after": after["threads"],
        "upstream_connections_max": upstream_max if upstream_port else None,
        "rss_mb_before": before["rss_mb"],
        "fds_before": before["fds"],
        "rss_mb_settled": settled["rss_mb"],
        "heap_held_mb_settled": settled["heap_held_mb"],
        "heap_in_use_mb_settled": settled["heap_in_use_mb"],
        "fds_settled": settled["fds"],
    }


def main() -> None:
    mode, relay, emulator, pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    report = asyncio.run((soak if mode == "soak" else burst)(relay, emulator, pid))
    print(json.dumps(report))


if __name__ == "__main__":
    main()

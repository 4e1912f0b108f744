"""The load of bench/registration against one running relay (SQLite, 127.0.0.1 a trusted proxy, so
each request names its client address in X-Forwarded-For, as nginx would).

1. platform: PLATFORM_REGISTRATIONS registrations of one real client's metadata (ChatGPT's per-app
   DCR registration, a confidential client: docs/clients.md) from one address, as fast as they are
   answered. Every one must succeed, each with its own client ID and secret, and the store must
   gain one client record.
2. baseline: a legitimate client's registrations, one at a time (new metadata from an address of
   its own, then the same metadata again), timed. The legitimate client is a process of its own
   (`registration_driver.py --legit`), so its latency is the relay's and not this process's event
   loop busy with the flood.
3. flood: JUNK_REGISTRATIONS registrations of distinct junk metadata from one address while the
   legitimate client of (2) runs again; the store must gain at most the per-address budget, and the
   legitimate latency is compared with (2) (p50 and p99 ratios). The control: as many
   registrations of the platform's known metadata (all answered 201), with the same client beside.
4. issue 41's shapes: 25 distinct registrations from one address (Copilot Studio's per-connector
   callbacks, an office behind one NAT) all answered 201; then ISSUE_JUNK (3,222) registrations of
   distinct junk metadata from 162 addresses, after which a legitimate new client from an address of
   its own is still answered 201 (before issue 41: 503 until the next UTC day).
5. spread flood: SPREAD_REGISTRATIONS of distinct junk metadata, each from an address of its own:
   every one answered 201 (past the day's share the oldest unused client is evicted), the store
   never holds more than the day's share of unused clients, and a legitimate new client afterwards
   is answered 201.

Prints one JSON object; exits 1 when a check fails."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from http_client import Pool  # noqa: E402

BASE = os.environ["RELAY_URL"]
DATABASE = os.environ["RELAY_DATABASE"]
RELAY_PID = int(os.environ["RELAY_PID"])
PLATFORM = int(os.environ.get("PLATFORM_REGISTRATIONS", "5000"))
JUNK = int(os.environ.get("JUNK_REGISTRATIONS", "100000"))
SPREAD = int(os.environ.get("SPREAD_REGISTRATIONS", "20000"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "32"))
SAMPLES = int(os.environ.get("LEGIT_SAMPLES", "400"))
# Between the legitimate client's pairs: its new clients count against the day's share too.
PAUSE = float(os.environ.get("LEGIT_PAUSE", "0.05"))
PER_ADDRESS = int(os.environ.get("REGISTRATIONS_PER_HOUR", "60"))
ISSUE_JUNK = int(os.environ.get("ISSUE_JUNK_REGISTRATIONS", "3222"))
DAY_SHARE = int(os.environ["DAY_SHARE"])

CHATGPT = {
    "client_name": "ChatGPT",
    "redirect_uris": ["https://chatgpt.com/connector/oauth/c7Hq2bX9rTzA"],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "client_secret_post",
}


def junk(n: int, tag: str) -> dict:
    return {
        "client_name": f"junk {tag} {n}",
        "redirect_uris": [f"http://127.0.0.1:{1024 + n % 60000}/junk/{tag}/{n}"],
        "grant_types": ["authorization_code"],
        "token_endpoint_auth_method": "none",
    }


def clients_stored() -> int:
    with sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True) as db:
        return db.execute(
            "SELECT count(*) FROM items WHERE pk LIKE 'CLIENT#%' AND (expires_at IS NULL OR expires_at > ?)",
            (int(time.time()),),
        ).fetchone()[0]


def relay_cpu() -> float:
    with open(f"/proc/{RELAY_PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def register(pool: Pool, body: dict, address: str):
    started = time.perf_counter()
    response = await pool.request(
        "POST",
        "/register",
        {"Content-Type": "application/json", "X-Forwarded-For": address},
        json.dumps(body).encode(),
    )
    return response, time.perf_counter() - started


async def many(count: int, make, concurrency: int = CONCURRENCY):
    """Runs `count` registrations (make(n) -> (body, address)) `concurrency` at a time."""
    pool = Pool(BASE)
    statuses: dict[int, int] = {}
    answers = []
    next_n = 0

    async def worker():
        nonlocal next_n
        while next_n < count:
            n = next_n
            next_n += 1
            body, address = make(n)
            response, _ = await register(pool, body, address)
            statuses[response.status] = statuses.get(response.status, 0) + 1
            if response.status == 201 and len(answers) < PLATFORM:
                answers.append(response.json())

    started = time.perf_counter()
    cpu = relay_cpu()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    pool.close()
    return statuses, answers, elapsed, relay_cpu() - cpu


async def legitimate(samples: int, stop: asyncio.Event | None, tag: str):
    """A legitimate client, one request at a time: a new client from its own address, then the
    same metadata again (reused). Runs `samples` pairs, or until `stop` is set."""
    pool = Pool(BASE)
    new, reused, failures = [], [], 0
    n = 0
    while (stop is None and n < samples) or (stop is not None and not stop.is_set()):
        prefix = {"base": "10.0", "flood": "10.100", "control": "10.200"}[tag]
        address = f"{prefix}.{(n >> 8) & 255}.{n & 255}"
        body = {
            "client_name": f"legitimate {tag} {n}",
            "redirect_uris": ["https://www.cursor.com/agents/mcp/oauth/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        }
        first, seconds = await register(pool, body, address)
        new.append(seconds)
        second, seconds = await register(pool, body, address)
        reused.append(seconds)
        if first.status != 201 or second.status != 201:
            failures += 1
        n += 1
        await asyncio.sleep(PAUSE)
    pool.close()
    return new, reused, failures


async def legitimate_process_main(tag: str, samples: int) -> int:
    """The body of `--legit TAG [SAMPLES]`: runs `legitimate` (SAMPLES pairs, or until stdin
    closes) and prints its timings as JSON."""
    stop = None
    if samples == 0:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_reader(sys.stdin.fileno(), stop.set)
    new, reused, failures = await legitimate(samples, stop, tag)
    print(json.dumps({"new": new, "reused": reused, "failures": failures}))
    return 0


class LegitimateProcess:
    """The legitimate client in a process of its own (on the load generator's CPUs, which it
    inherits): started beside a flood, stopped when the flood ends."""

    def __init__(self, tag: str, samples: int = 0) -> None:
        self.child = subprocess.Popen(
            [sys.executable, __file__, "--legit", tag, str(samples)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    async def result(self):
        # communicate() closes the child's stdin: the end of the flood.
        out, _ = await asyncio.to_thread(self.child.communicate)
        answer = json.loads(out)
        return answer["new"], answer["reused"], answer["failures"]


def ratios(new: list[float], reused: list[float], quiet_new: list[float], quiet_reused: list[float]) -> dict:
    """p50 and p99 of a flood's legitimate timings over the quiet ones."""
    result = {}
    for name, flood, quiet in (("new", new, quiet_new), ("reused", reused, quiet_reused)):
        for q in ("p50_ms", "p99_ms"):
            result[f"ratio_{name}_{q[:3]}"] = round(quantiles(flood)[q] / quantiles(quiet)[q], 2)
    return result


def quantiles(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 3),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 3),
    }


async def main() -> int:
    result: dict = {
        "loadavg_start": open("/proc/loadavg").read().split()[:3],
        "cpus": {"relay": os.environ.get("RELAY_CPUS", "any"), "load": os.environ.get("LOAD_CPUS", "any")},
    }
    problems: list[str] = []

    # 1. One platform, one address, one client's metadata.
    before = clients_stored()
    statuses, answers, elapsed, cpu = await many(PLATFORM, lambda n: (CHATGPT, "198.51.100.10"))
    ids = {answer["client_id"] for answer in answers}
    secrets = {answer.get("client_secret") for answer in answers}
    grown = clients_stored() - before
    result["platform"] = {
        "registrations": PLATFORM,
        "statuses": statuses,
        "per_second": round(PLATFORM / elapsed),
        "relay_cpu_us_per_registration": round(cpu * 1e6 / PLATFORM, 1),
        "distinct_client_ids": len(ids),
        "distinct_secrets": len(secrets),
        "client_records_added": grown,
    }
    if statuses.get(201) != PLATFORM:
        problems.append(f"platform registrations not all 201: {statuses}")
    if len(ids) != PLATFORM or len(secrets) != PLATFORM:
        problems.append("a confidential registration shared a client ID or secret")
    if grown != 1:
        problems.append(f"the platform's registrations added {grown} client records, not 1")

    # 2. A legitimate client, quiet.
    new, reused, failures = await LegitimateProcess("base", SAMPLES).result()
    result["legitimate_quiet"] = {"new": quantiles(new), "reused": quantiles(reused), "failures": failures}

    # 3. Junk from one address, with the legitimate client beside it.
    before = clients_stored()
    sampler = LegitimateProcess("flood")
    statuses, _, elapsed, cpu = await many(JUNK, lambda n: (junk(n, "one"), "198.51.100.66"))
    flood_new, flood_reused, flood_failures = await sampler.result()
    grown = clients_stored() - before
    result["junk_one_address"] = {
        "registrations": JUNK,
        "statuses": statuses,
        "per_second": round(JUNK / elapsed),
        "relay_cpu_us_per_registration": round(cpu * 1e6 / JUNK, 1),
        "client_records_added": grown,
    }
    result["legitimate_during_junk"] = {
        "new": quantiles(flood_new),
        "reused": quantiles(flood_reused),
        "failures": flood_failures,
        **ratios(flood_new, flood_reused, new, reused),
    }
    if grown > PER_ADDRESS + len(flood_new):
        problems.append(f"junk from one address added {grown} client records")
    if failures or flood_failures:
        problems.append(f"the legitimate client was refused ({failures} quiet, {flood_failures} during the flood)")

    # 3b. The control: as many registrations of the platform's known metadata from its address (the
    # same parsing and one store read each, all answered 201), with the same legitimate client beside
    # them. What the junk costs the legitimate client beyond any flood of registrations is the
    # difference between the two ratios.
    sampler = LegitimateProcess("control")
    statuses, _, elapsed, cpu = await many(JUNK, lambda n: (CHATGPT, "198.51.100.10"))
    control_new, control_reused, control_failures = await sampler.result()
    result["platform_flood_control"] = {
        "registrations": JUNK,
        "statuses": statuses,
        "per_second": round(JUNK / elapsed),
        "relay_cpu_us_per_registration": round(cpu * 1e6 / JUNK, 1),
        "legitimate_new": quantiles(control_new),
        "legitimate_reused": quantiles(control_reused),
        **ratios(control_new, control_reused, new, reused),
    }
    if control_failures:
        problems.append(f"the legitimate client was refused during the platform flood ({control_failures})")

    # 4. Issue 41's shapes: 25 distinct clients from one address; 3,222 junk from 162 addresses, then
    # a legitimate new client.
    statuses, _, _, _ = await many(
        25,
        lambda n: (
            {
                "redirect_uris": [f"https://global.consent.azure-apim.net/redirect/cr938-5fconnector-{n}"],
                "token_endpoint_auth_method": "client_secret_post",
            },
            "198.51.100.25",
        ),
        concurrency=1,
    )
    result["distinct_from_one_address"] = {"registrations": 25, "statuses": statuses}
    if statuses != {201: 25}:
        problems.append(f"25 distinct registrations from one address: {statuses}")
    statuses, _, elapsed, _ = await many(
        ISSUE_JUNK, lambda n: (junk(n, "issue"), f"203.0.{113 + n % 162 // 256}.{n % 162 + 1}")
    )
    pool = Pool(BASE)
    after, _ = await register(pool, junk(0, "legitimate-after-issue-flood"), "192.0.2.200")
    pool.close()
    result["issue_junk_162_addresses"] = {
        "registrations": ISSUE_JUNK,
        "statuses": statuses,
        "per_second": round(ISSUE_JUNK / elapsed),
        "legitimate_new_client_after": after.status,
    }
    if after.status != 201:
        problems.append(f"a new client after {ISSUE_JUNK} junk registrations from 162 addresses got {after.status}")

    # 5. Junk from as many addresses as registrations: never refused, the store stays bounded.
    before = clients_stored()
    # In quarters, so the cost per registration can be compared as the flood goes on (issue 41,
    # item 5: past the day's share every registration evicts; the cost must not grow with the
    # clients evicted or stored before it).
    statuses, elapsed, cpu = {}, 0.0, 0.0
    quarters = []
    quarter = SPREAD // 4
    for q in range(4):
        part_statuses, _, part_elapsed, part_cpu = await many(
            quarter,
            lambda n, q=q: (
                junk(q * quarter + n, "spread"),
                f"172.{16 + ((q * quarter + n) >> 16) % 16}.{((q * quarter + n) >> 8) & 255}.{(q * quarter + n) & 255}",
            ),
        )
        for code, count in part_statuses.items():
            statuses[code] = statuses.get(code, 0) + count
        elapsed += part_elapsed
        cpu += part_cpu
        quarters.append(round(part_cpu * 1e6 / quarter, 1))
    grown = clients_stored() - before
    pool = Pool(BASE)
    after, _ = await register(pool, junk(0, "legitimate-after-spread"), "192.0.2.201")
    pool.close()
    result["junk_spread"] = {
        "registrations": SPREAD,
        "statuses": statuses,
        "per_second": round(SPREAD / elapsed),
        "relay_cpu_us_per_registration": round(cpu * 1e6 / (4 * quarter), 1),
        "relay_cpu_us_per_registration_by_quarter": quarters,
        "last_over_second_quarter": round(quarters[3] / quarters[1], 2) if quarters[1] else None,
        "client_records_added": grown,
        "client_records_stored": clients_stored(),
        "day_share": DAY_SHARE,
        "legitimate_new_client_after": after.status,
    }
    # Past the share (reached in the first quarter at the default sizes) every registration
    # evicts: the last quarter must cost about what the second did, not grow with the flood.
    if SPREAD >= 4 * DAY_SHARE // 3 and quarters[1] and quarters[3] > 1.5 * quarters[1]:
        problems.append(f"eviction cost grows with the flood: {quarters} us per registration by quarter")
    if statuses.get(201) != 4 * quarter:
        problems.append(f"spread junk was refused: {statuses} (eviction should admit every one)")
    # The day's share of unused clients, plus the platform's used record and the legitimate ones.
    if clients_stored() > DAY_SHARE + 3:
        problems.append(f"{clients_stored()} client records stored; the day's share is {DAY_SHARE}")
    if after.status != 201:
        problems.append(f"a new client after the spread flood got {after.status}")
    result["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    result["problems"] = problems
    print(json.dumps(result, indent=2))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--legit":
        sys.exit(asyncio.run(legitimate_process_main(sys.argv[2], int(sys.argv[3]))))
    sys.exit(asyncio.run(main()))

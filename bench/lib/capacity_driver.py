"""The driver of bench/capacity: runs each kind of operation a person's connection causes, one phase
at a time, and records what each phase cost the relay and the services behind it.

    python3 capacity_driver.py RELAY_URL EMULATOR_URL RELAY_PID METRICS_URL RECORDER_URL OUTPUT.json

Phases (GRANTS connections, ROUNDS calls per connection and tool; environment variables):

- register: one dynamic client registration per connection (RFC 7591), as an MCP client does;
- connect: the whole flow for each client: /authorize, the consent page, the emulator's Apple
  sign-in page, the callback, the code exchange (bench/lib/oauth_client.py);
- first_call: the first `get_me` of each fresh access token;
- refresh: one refresh-token rotation per connection (before the session phases, so that these
  see the grant as it is for most of its life: holding the last rotation's successor pair);
- first_call_after_refresh: the first `get_me` with the new access token;
- add_todo, list_todos, get_me: ROUNDS calls per connection, each at least PACE seconds after
  the connection's previous request (past the 5 s validation cache, within the 5-minute key
  cache): a person's assistant calling again within a session;
- get_me_burst: BURST calls back to back per connection (inside the validation cache);
- revoke: each client revoking its refresh token (RFC 7009), i.e. a disconnect.

Before them, an `idle` phase (IDLE seconds, no requests) measures what the relay burns doing
nothing, which the report subtracts from each phase's CPU time.

For each phase it reads, before and after: the relay's CPU time (/proc/PID/stat user + system, which
counts ended threads too, and the live threads' /proc/PID/task/*/schedstat run time in nanoseconds,
finer but blind to threads that end), the relay's
/metrics (store calls by operation, key-service calls, CloudKit calls, tool outcomes), and
/proc/loadavg. The recorder in front of moto (bench/lib/aws_recorder.py) counts the DynamoDB and KMS
requests and their billed item sizes per phase. Operation counts do not depend on machine load; CPU
times do, so the load average is written next to them.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import http.client
import json
import os
import platform
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oauth_client  # noqa: E402

GRANTS = int(os.environ.get("GRANTS", "60"))
ROUNDS = int(os.environ.get("ROUNDS", "4"))
BURST = int(os.environ.get("BURST", "5"))
PACE = float(os.environ.get("PACE", "6"))
WORKERS = int(os.environ.get("WORKERS", "4"))
IDLE = float(os.environ.get("IDLE", "15"))

METRIC = re.compile(r'^([a-z_]+)(?:\{([^}]*)\})? ([0-9.eE+-]+)$')


class Relay:
    """Keep-alive HTTP/1.1 connections to the relay, one per driver thread."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.url = parts.hostname, parts.port, url
        self.local = threading.local()

    def request(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
        for attempt in range(2):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
                self.local.connection = connection
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, OSError):
                connection.close()
                self.local.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def tool(self, grant: dict, name: str, arguments: dict) -> dict:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        ).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
            "Authorization": "Bearer " + grant["access_token"],
        }
        status, answer = self.request("POST", "/mcp", headers, body)
        grant["last"] = time.monotonic()
        if status != 200:
            raise RuntimeError(f"{name}: HTTP {status} {answer[:120]!r}")
        result = json.loads(answer).get("result") or {}
        if result.get("isError"):
            raise RuntimeError(f"{name}: tool error {json.dumps(result.get('structuredContent'))[:200]}")
        return result.get("structuredContent") or {}

    def form(self, path: str, fields: dict[str, str]) -> dict:
        status, answer = self.request(
            "POST", path, {"Content-Type": "application/x-www-form-urlencoded"}, urllib.parse.urlencode(fields).encode()
        )
        if status != 200:
            raise RuntimeError(f"{path}: HTTP {status} {answer[:120]!r}")
        return json.loads(answer) if answer.strip() else {}


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def post_json(url: str, body: dict) -> None:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=30):
        pass


def metrics(url: str) -> dict[str, float]:
    """The counters bench/capacity needs, summed by the label that matters."""
    values: dict[str, float] = {}
    for line in get(url).decode().splitlines():
        match = METRIC.match(line)
        if not match:
            continue
        name, labels, value = match.group(1), match.group(2) or "", float(match.group(3))
        wanted = {
            "relay_store_operation_duration_seconds_count": "store",
            "relay_key_service_duration_seconds_count": "key_service",
            "relay_cloudkit_calls_total": "cloudkit",
            "relay_mcp_tool_calls_total": "tool",
            "relay_store_errors_total": "store_error",
            "relay_key_service_errors_total": "key_service_error",
        }.get(name)
        if wanted is None:
            continue
        label = ",".join(sorted(part.split("=", 1)[1].strip('"') for part in labels.split(",") if part))
        key = f"{wanted}:{label}"
        values[key] = values.get(key, 0) + value
    return values


def cpu(pid: int) -> tuple[float, float]:
    """(seconds from /proc/PID/stat utime + stime, seconds from the threads' schedstat run time)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the whole line)
    run_ns = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                run_ns += int(schedstat.read().split()[0])
        except OSError:
            pass  # a thread that ended between listdir and open
    return ticks / os.sysconf("SC_CLK_TCK"), run_ns / 1e9


def loadavg() -> list[float]:
    with open("/proc/loadavg") as file:
        return [float(value) for value in file.read().split()[:3]]


class Bench:
    def __init__(self, relay_url: str, emulator: str, pid: int, metrics_url: str, recorder: str) -> None:
        self.relay = Relay(relay_url)
        self.relay_url, self.emulator, self.pid = relay_url, emulator, pid
        self.metrics_url, self.recorder = metrics_url, recorder
        self.phases: list[dict] = []
        self.errors: list[str] = []

    def quiet(self) -> None:
        """Waits until the relay has sent nothing to AWS for 1.5 s (background writes included)."""
        last, since = None, time.monotonic()
        while True:
            total = get(self.recorder + "/__recorder/total")
            if total != last:
                last, since = total, time.monotonic()
            elif time.monotonic() - since >= 1.5:
                return
            time.sleep(0.25)

    def phase(self, name: str, operations: int, work) -> None:
        self.quiet()
        post_json(self.recorder + "/__recorder/phase", {"name": name})
        load_before = loadavg()
        metrics_before, cpu_before, started = metrics(self.metrics_url), cpu(self.pid), time.monotonic()
        work()
        wall = time.monotonic() - started
        self.quiet()
        cpu_after, metrics_after = cpu(self.pid), metrics(self.metrics_url)
        window = time.monotonic() - started
        post_json(self.recorder + "/__recorder/phase", {"name": "between"})
        deltas = {
            key: metrics_after.get(key, 0) - metrics_before.get(key, 0)
            for key in set(metrics_before) | set(metrics_after)
            if metrics_after.get(key, 0) != metrics_before.get(key, 0)
        }
        record = {
            "name": name,
            "operations": operations,
            "wall_seconds": round(wall, 3),
            "cpu_window_seconds": round(window, 3),
            "cpu_seconds_stat": round(cpu_after[0] - cpu_before[0], 4),
            "cpu_seconds_schedstat": round(cpu_after[1] - cpu_before[1], 6),
            "loadavg_before": load_before,
            "loadavg_after": loadavg(),
            "relay_metrics": dict(sorted(deltas.items())),
        }
        self.phases.append(record)
        print(
            f"{name:<26} {operations:>5} ops  {wall:7.1f} s  relay CPU {record['cpu_seconds_stat'] * 1e6 / max(1, operations):8.0f} µs/op (gross)"
            f"  load {load_before[0]:.1f}",
            flush=True,
        )

    def each(self, items: list, function) -> None:
        with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
            for error in pool.map(self._guard(function), items):
                if error:
                    self.errors.append(error)

    @staticmethod
    def _guard(function):
        def run(item):
            try:
                function(item)
                return None
            except Exception as error:  # noqa: BLE001 - every failure is reported and fails the bench
                return str(error)

        return run

    def paced(self, grants: list[dict], function, rounds: int) -> None:
        """`rounds` sweeps over the grants; a connection's call waits until PACE seconds have passed
        since that connection's previous request (of this phase or the one before)."""

        def call(grant: dict) -> None:
            time.sleep(max(0.0, grant.get("last", 0.0) + PACE - time.monotonic()))
            try:
                function(grant)
            finally:
                grant["last"] = time.monotonic()

        for _ in range(rounds):
            self.each(grants, call)


def main() -> None:
    relay_url, emulator, pid, metrics_url, recorder, output = sys.argv[1:7]
    bench = Bench(relay_url, emulator, int(pid), metrics_url, recorder)
    relay = bench.relay
    load_start = loadavg()
    indexes = list(range(GRANTS))
    clients: dict[int, str] = {}
    grants: dict[int, dict] = {}

    def register(index: int) -> None:
        clients[index] = oauth_client.register(relay_url, f"capacity client {index}")

    def connect(index: int) -> None:
        address = f"10.77.{index >> 8 & 255}.{index & 255}"
        grants[index] = oauth_client.connect(relay_url, clients[index], f"capacity{index}@example.com", address)

    # The relay's own CPU while nothing is asked of it (timers, metrics, the log writer): the report
    # subtracts it, for the length of each phase's measurement window, from the phase's CPU time.
    bench.phase("idle", 0, lambda: time.sleep(IDLE))
    bench.phase("register", GRANTS, lambda: bench.each(indexes, register))
    bench.phase("connect", GRANTS, lambda: bench.each(indexes, connect))
    if bench.errors:
        raise SystemExit(f"bench/capacity: connections failed: {bench.errors[:3]}")
    post_json(recorder + "/__recorder/phase", {"name": "seed (emulator only)"})
    bench.each(indexes, lambda index: oauth_client.seed_account(emulator, grants[index]["apple_id"]))
    pool = [grants[index] for index in indexes]
    serial = iter(range(10**9))
    adds = lambda grant: relay.tool(grant, "add_todo", {"title": f"capacity {next(serial)}", "due": "2031-01-02T09:00"})  # noqa: E731

    bench.phase("first_call", GRANTS, lambda: bench.each(pool, lambda grant: relay.tool(grant, "get_me", {})))

    def refresh(grant: dict) -> None:
        tokens = relay.form(
            "/token",
            {"grant_type": "refresh_token", "refresh_token": grant["refresh_token"], "client_id": grant["client_id"],
             "resource": relay_url + "/mcp"},
        )
        grant.update(tokens)

    # A refresh first: from then on the grant holds its successor pair (the retry window's copy), as
    # a grant does for most of its life, and the session phases measure writes of that size.
    bench.phase("refresh", GRANTS, lambda: bench.each(pool, refresh))
    bench.phase("first_call_after_refresh", GRANTS, lambda: bench.each(pool, lambda grant: relay.tool(grant, "get_me", {})))
    bench.phase("add_todo", GRANTS * ROUNDS, lambda: bench.paced(pool, adds, ROUNDS))
    bench.phase("list_todos", GRANTS * ROUNDS, lambda: bench.paced(pool, lambda grant: relay.tool(grant, "list_todos", {}), ROUNDS))
    bench.phase("get_me", GRANTS * ROUNDS, lambda: bench.paced(pool, lambda grant: relay.tool(grant, "get_me", {}), ROUNDS))

    def burst(grant: dict) -> None:
        for _ in range(BURST):
            relay.tool(grant, "get_me", {})

    bench.phase("get_me_burst", GRANTS * BURST, lambda: bench.each(pool, burst))
    # Item lives for the storage estimate are read before the disconnects delete the grants.
    bench.quiet()
    lives = json.loads(get(recorder + "/__recorder/report"))["items"]

    def revoke(grant: dict) -> None:
        relay.form("/revoke", {"token": grant["refresh_token"], "client_id": grant["client_id"]})

    bench.phase("revoke", GRANTS, lambda: bench.each(pool, revoke))
    bench.quiet()
    report = json.loads(get(recorder + "/__recorder/report"))
    cpu_model = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "unknown"
    )
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
    result = {
        "benchmark": "bench/capacity",
        "commit": commit or "unknown",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"cores": os.cpu_count(), "cpu": cpu_model, "kernel": platform.release(),
                    "clock_ticks_per_second": os.sysconf("SC_CLK_TCK")},
        "loadavg_start": load_start,
        "loadavg_end": loadavg(),
        "settings": {"grants": GRANTS, "rounds": ROUNDS, "burst": BURST, "pace_seconds": PACE, "workers": WORKERS,
                     "idle_seconds": IDLE,
                     "store": "dynamodb (moto)", "key_service": "aws-kms (moto)",
                     "cloudkit": "cloudkit-emulator (production schema)"},
        "phases": bench.phases,
        "aws_requests": report["requests"],
        "item_lives": lives,
        "errors": bench.errors,
    }
    with open(output, "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    if bench.errors:
        raise SystemExit(f"bench/capacity: {len(bench.errors)} operations failed, e.g. {bench.errors[:3]}")


if __name__ == "__main__":
    main()

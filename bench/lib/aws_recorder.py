"""A counting HTTP proxy between the relay and moto (DynamoDB and KMS) for bench/capacity.

    python3 aws_recorder.py LISTEN_PORT MOTO_PORT

Every request the relay sends to "AWS" passes through here, one at a time (moto serves one at a
time anyway), and is counted under the phase the benchmark driver named last
(`POST /__recorder/phase {"name": …}`). For each DynamoDB request it records what DynamoDB bills
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
and "Read consumption" / "Write consumption" in the on-demand capacity mode guide):

- GetItem (strongly consistent): the size of the item returned (a missing item still costs 1 RRU);
- Query: the sum of the sizes of the items read (rounded up once per request);
- PutItem / UpdateItem: the larger of the item before and after the write;
- DeleteItem: the size of the item deleted;
- a write whose ConditionExpression fails: the size of the existing item (at least 1 WRU).

The "before" item of a write is read from moto with an extra GetItem that the relay never sent
(not counted). Item sizes follow AWS's published rules (names + values, 3 bytes per list or map,
1 byte per element, numbers 1 byte per two significant digits + 1). The recorder records sizes; the
unit arithmetic (rounding to 1 KB / 4 KB) is done by bench/capacity-report, where it is tested.

It also follows every item's life for the storage estimate: when it was created (and in which
phase), its size, its `expiresAt` (the table's TTL attribute) after the last write, and whether
the relay deleted it. `GET /__recorder/report` returns everything as JSON.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import signal
import sys
import threading
import time
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

signal.pthread_sigmask(signal.SIG_SETMASK, [])
PARENT = os.getppid()


def number_size(text: str) -> int:
    """1 byte per two significant digits, plus 1 (leading and trailing zeros trimmed)."""
    try:
        digits = format(abs(Decimal(text)), "f").replace(".", "").strip("0")
    except InvalidOperation:
        digits = text
    return (max(1, len(digits)) + 1) // 2 + 1


def value_size(value: dict) -> int:
    """Size of one DynamoDB-JSON attribute value (without its name)."""
    (kind, inner), = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        return number_size(inner)
    if kind == "B":
        return len(base64.b64decode(inner))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(name.encode()) + 1 + value_size(member) for name, member in inner.items())
    if kind == "L":
        return 3 + sum(1 + value_size(member) for member in inner)
    if kind == "SS":
        return sum(len(member.encode()) for member in inner)
    if kind == "NS":
        return sum(number_size(member) for member in inner)
    if kind == "BS":
        return sum(len(base64.b64decode(member)) for member in inner)
    raise ValueError(f"unknown DynamoDB type {kind}")


def item_size(item: dict | None) -> int:
    """An item's size as DynamoDB computes it: attribute names + values."""
    if not item:
        return 0
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def kind_of(key: dict) -> str:
    """The record kind from the partition key (`GRANT#…` → GRANT) and, for index entries, the sort key."""
    pk = key.get("pk", {}).get("S", "?")
    sk = key.get("sk", {}).get("S", "?")
    kind = pk.split("#", 1)[0]
    if sk != "META":
        kind += "/" + sk.split("#", 1)[0]
    return kind


class Recorder:
    def __init__(self, moto_port: int) -> None:
        self.moto_port = moto_port
        self.lock = threading.Lock()
        self.phase = "setup"
        self.requests: dict[tuple, int] = defaultdict(int)  # (phase, service, op, kind, outcome, bytes) -> count
        self.items: dict[tuple[str, str], dict] = {}
        self.total = 0

    def moto(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.moto_port, timeout=60)
        # http.client writes Content-Length for the body it sends (the probe's differs from the relay's).
        headers = {name: value for name, value in headers.items() if name not in ("content-length", "host")}
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()

    def forward(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, list, bytes]:
        target = headers.get("x-amz-target", "")
        service, _, operation = target.partition(".")
        with self.lock:
            request = json.loads(body) if body and service.startswith("DynamoDB") else {}
            before = None
            if operation in ("PutItem", "UpdateItem", "DeleteItem"):
                key = request.get("Key") or {name: request["Item"][name] for name in ("pk", "sk")}
                probe = dict(headers)
                probe["x-amz-target"] = "DynamoDB_20120810.GetItem"
                status, _, answer = self.moto(
                    "POST", path, probe,
                    json.dumps({"TableName": request["TableName"], "Key": key, "ConsistentRead": True}).encode())
                if status == 200:
                    before = json.loads(answer).get("Item")
            status, response_headers, answer = self.moto(method, path, headers, body)
            self.total += 1
            if service.startswith("DynamoDB"):
                self.account_dynamodb(operation, request, before, status, answer)
            else:
                label = "kms" if service == "TrentService" else (service or "other")
                self.requests[(self.phase, label, operation or path, "", "ok" if status == 200 else str(status), 0)] += 1
            return status, response_headers, answer

    def account_dynamodb(self, operation: str, request: dict, before: dict | None, status: int, answer: bytes) -> None:
        response = json.loads(answer) if answer else {}
        ok = status == 200
        outcome = "ok" if ok else response.get("__type", str(status)).rsplit("#", 1)[-1]
        now = time.time()
        if operation == "GetItem":
            kind, size = kind_of(request["Key"]), item_size(response.get("Item"))
        elif operation == "Query":
            items = response.get("Items", [])
            pk = request.get("ExpressionAttributeValues", {}).get(":pk", {}).get("S", "?")
            prefix = request.get("ExpressionAttributeValues", {}).get(":prefix", {}).get("S", "")
            kind = pk.split("#", 1)[0] + "/" + (prefix.split("#", 1)[0] or "*")
            size = sum(item_size(item) for item in items)
        elif operation in ("PutItem", "UpdateItem", "DeleteItem"):
            key = request.get("Key") or {name: request["Item"][name] for name in ("pk", "sk")}
            kind = kind_of(key)
            after = None
            if ok and operation == "PutItem":
                after = request["Item"]
            elif ok and operation == "UpdateItem":
                after = response.get("Attributes")
            size = max(item_size(before), item_size(after))
            self.follow(key, kind, before, after, ok and operation == "DeleteItem", now)
        else:
            kind, size = "", 0
        self.requests[(self.phase, "dynamodb", operation, kind, outcome, size)] += 1

    def follow(self, key: dict, kind: str, before: dict | None, after: dict | None, deleted: bool, now: float) -> None:
        """Tracks item lives for the storage estimate."""
        ident = (key["pk"]["S"], key["sk"]["S"])
        record = self.items.get(ident)
        live_before = before is not None and not self.expired(before, now)
        if after is not None and (record is None or not live_before or record.get("deleted")):
            record = {"kind": kind, "phase": self.phase, "created": now}
            self.items[ident] = record
        if record is None:
            return
        if after is not None:
            record["size"] = item_size(after)
            expires = after.get("expiresAt", {}).get("N")
            record["expiresAt"] = float(expires) if expires is not None else None
            record.pop("deleted", None)
        if deleted:
            record["deleted"] = now

    @staticmethod
    def expired(item: dict, now: float) -> bool:
        expires = item.get("expiresAt", {}).get("N")
        return expires is not None and float(expires) <= now

    def report(self) -> dict:
        with self.lock:
            requests = [
                {"phase": phase, "service": service, "operation": operation, "kind": kind, "outcome": outcome,
                 "bytes": size, "count": count}
                for (phase, service, operation, kind, outcome, size), count in sorted(self.requests.items())
            ]
            lives: dict[tuple, int] = defaultdict(int)
            for record in self.items.values():
                if "size" not in record:
                    continue
                if "deleted" in record:
                    lifetime = round(record["deleted"] - record["created"])
                    ending = "deleted"
                elif record.get("expiresAt") is None:
                    lifetime, ending = None, "never"
                else:
                    lifetime, ending = round(record["expiresAt"] - record["created"]), "ttl"
                # Lifetimes are bucketed to the minute so near-identical items group together.
                bucket = None if lifetime is None else int(round(lifetime / 60.0) * 60)
                lives[(record["phase"], record["kind"], record["size"], ending, bucket)] += 1
            items = [
                {"phase": phase, "kind": kind, "bytes": size, "ending": ending, "lifetime_seconds": lifetime,
                 "count": count}
                for (phase, kind, size, ending, lifetime), count in sorted(
                    lives.items(), key=lambda entry: tuple(str(part) for part in entry[0]))
            ]
            return {"total_requests": self.total, "requests": requests, "items": items}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    recorder: Recorder

    def log_message(self, *args) -> None:  # the relay's requests are counted, not logged
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, headers: list, body: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/__recorder/report":
            self._send(200, [("Content-Type", "application/json")], json.dumps(self.recorder.report()).encode())
        elif self.path == "/__recorder/total":
            self._send(200, [("Content-Type", "text/plain")], str(self.recorder.total).encode())
        else:
            self._proxy("GET")

    def do_POST(self) -> None:
        if self.path == "/__recorder/phase":
            name = json.loads(self._body())["name"]
            with self.recorder.lock:
                self.recorder.phase = name
            self._send(200, [], b"")
        else:
            self._proxy("POST")

    def _proxy(self, method: str) -> None:
        body = self._body()
        headers = {name.lower(): value for name, value in self.headers.items() if name.lower() != "connection"}
        try:
            status, response_headers, answer = self.recorder.forward(method, self.path, headers, body)
        except (OSError, ValueError, KeyError) as error:
            self._send(502, [("Content-Type", "text/plain")], f"recorder: {error}".encode())
            return
        self._send(status, response_headers, answer)


def watch_parent() -> None:
    while True:
        if os.getppid() != PARENT:
            os._exit(0)
        time.sleep(0.5)


def main() -> None:
    listen, moto_port = int(sys.argv[1]), int(sys.argv[2])
    Handler.recorder = Recorder(moto_port)
    server = ThreadingHTTPServer(("127.0.0.1", listen), Handler)
    server.daemon_threads = True
    threading.Thread(target=watch_parent, daemon=True).start()
    print("recorder listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

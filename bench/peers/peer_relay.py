"""The benchmark peer: MustDo's `get_me` as a strong Python team would build it on the official MCP
Python SDK (2.x, `MCPServer`, formerly FastMCP), for bench/peers/run to compare with the relay.

- Streamable HTTP in stateless JSON mode (`stateless_http=True, json_response=True`), served by
  uvicorn with uvloop and httptools, N worker processes (the driver starts 2).
- Bearer tokens through the SDK's own auth (`token_verifier` + `AuthSettings`): the token's
  HMAC-SHA-256 (peppered) looked up in SQLite (WAL, one connection per worker, one indexed join
  of token and grant), with a 5-second per-worker validation cache like the relay's
  (`PEER_VALIDATION_CACHE_TTL`, 0 turns it off).
- The grant's CloudKit web auth token sealed with AES-256-GCM (cryptography), unsealed per call;
  the token CloudKit rotates to is re-sealed and saved with a compare-and-swap on the grant's
  version before the response, as the relay does.
- One pooled `httpx2.AsyncClient` per worker (HTTP/2 when CloudKit offers it over TLS; or, with
  `PEER_HTTP_CLIENT=aiohttp`, an aiohttp session, HTTP/1.1) calling CloudKit's `records/lookup` for
  the Account record, verifying TLS with `PEER_CLOUDKIT_CA_FILE` trusted as well; "today" computed in the
  account's time zone with zoneinfo.

SQLite runs `synchronous=NORMAL` (the usual WAL setting: no fsync per commit) because a commit
with fsync would stall the event loop; the relay keeps `synchronous=FULL` with group commit.

Settings come from PEER_* environment variables (see `Settings`); `provision.py` makes the database.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import sqlite3
import ssl
import time
import urllib.parse
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import httpx2
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from typing_extensions import TypedDict


class Settings:
    def __init__(self) -> None:
        env = os.environ
        self.database = env["PEER_DB"]
        self.public_url = env["PEER_URL"]  # e.g. http://127.0.0.1:18390
        self.emulator = env["PEER_CLOUDKIT_URL"]
        self.container = env.get("PEER_CLOUDKIT_CONTAINER", "iCloud.bench.mustdo")
        self.environment = env.get("PEER_CLOUDKIT_ENVIRONMENT", "production")
        with open(env["PEER_SECRETS"], "rb") as file:  # 32-byte AES key, then 32-byte pepper
            secrets = file.read()
        self.seal_key, self.pepper = secrets[:32], secrets[32:64]
        with open(env["PEER_CLOUDKIT_API_TOKEN_FILE"]) as file:
            self.api_token = file.read().strip()
        self.cache_ttl = float(env.get("PEER_VALIDATION_CACHE_TTL", "5"))
        # CloudKit behind TLS with a private CA (bench UPSTREAM=tls): verified like any certificate,
        # with this CA trusted as well as the system's, as the relay's RELAY_CLOUDKIT_CA_FILE does.
        self.ca_file = env.get("PEER_CLOUDKIT_CA_FILE") or None


SETTINGS = Settings()
# No per-request log lines (httpx logs every request at INFO).
logging.getLogger("httpx2").setLevel(logging.WARNING)
logging.getLogger("httpx").setLevel(logging.WARNING)
RESOURCE = SETTINGS.public_url + "/mcp"
AEAD = AESGCM(SETTINGS.seal_key)
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def token_hash(token: str) -> bytes:
    return hmac.new(SETTINGS.pepper, token.encode(), hashlib.sha256).digest()


def seal(web_auth_token: str, grant_id: str) -> bytes:
    nonce = os.urandom(12)
    return nonce + AEAD.encrypt(nonce, web_auth_token.encode(), grant_id.encode())


def unseal(sealed: bytes, grant_id: str) -> str:
    return AEAD.decrypt(sealed[:12], sealed[12:], grant_id.encode()).decode()


class Store:
    """One SQLite connection for this worker. Every statement is a point read or write by primary
    key, microseconds long, so it runs inline on the event loop."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")

    def validate(self, hashed: bytes, now: int) -> tuple | None:
        return self.db.execute(
            "SELECT g.id, g.client_id, t.scopes, t.resource, t.expires_at, g.sealed, g.version"
            " FROM tokens t JOIN grants g ON g.id = t.grant_id"
            " WHERE t.hash = ? AND t.expires_at > ? AND g.state = 'active' AND g.ends_at > ?",
            (hashed, now, now),
        ).fetchone()

    def grant(self, grant_id: str) -> tuple[bytes, int] | None:
        return self.db.execute("SELECT sealed, version FROM grants WHERE id = ?", (grant_id,)).fetchone()

    def replace_sealed(self, grant_id: str, expected_version: int, sealed: bytes) -> bool:
        cursor = self.db.execute(
            "UPDATE grants SET sealed = ?, version = version + 1 WHERE id = ? AND version = ?",
            (sealed, grant_id, expected_version),
        )
        return cursor.rowcount == 1


STORE = Store(SETTINGS.database)
# token hash -> (AccessToken, cached until); grant id -> (sealed, version) this worker last saw.
VALIDATED: dict[bytes, tuple[AccessToken, float]] = {}
GRANTS: dict[str, tuple[bytes, int]] = {}


class SQLiteTokenVerifier:
    """The SDK's `TokenVerifier`: peppered hash → one indexed join → `AccessToken`."""

    async def verify_token(self, token: str) -> AccessToken | None:
        hashed = token_hash(token)
        now = time.time()
        cached = VALIDATED.get(hashed)
        if cached and cached[1] > now:
            return cached[0]
        row = STORE.validate(hashed, int(now))
        if row is None:
            return None
        grant_id, client_id, scopes, resource, expires_at, sealed, version = row
        access = AccessToken(
            token=token, client_id=client_id, scopes=scopes.split(), expires_at=expires_at, resource=resource,
            claims={"grant": grant_id},
        )
        GRANTS.setdefault(grant_id, (sealed, version))
        if SETTINGS.cache_ttl > 0:
            if len(VALIDATED) > 100_000:
                VALIDATED.clear()
            VALIDATED[hashed] = (access, min(now + SETTINGS.cache_ttl, expires_at))
        return access


class Upstream:
    """The pooled HTTP client of this worker: httpx2 (`PEER_HTTP_CLIENT=httpx2`, the default, as the
    MCP SDK itself uses) or aiohttp (`aiohttp`, which profiles at a fraction of httpx2's CPU per call)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.client: Any = None

    async def post(self, url: str, body: bytes) -> tuple[int, str | None, dict[str, Any]]:
        """(status, rotated token header, JSON body)."""
        if self.client is None:
            verify: ssl.SSLContext | bool = True
            if SETTINGS.ca_file:
                verify = ssl.create_default_context()
                verify.load_verify_locations(SETTINGS.ca_file)
            if self.kind == "aiohttp":
                import aiohttp

                # aiohttp speaks HTTP/1.1 only: a connection per call in flight, as many as 256.
                self.client = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=256, ssl=verify), timeout=aiohttp.ClientTimeout(total=15)
                )
            else:
                # HTTP/2 when the server offers it through ALPN (the h2 package), as the relay does;
                # `httpx2-http1` keeps to HTTP/1.1, in case h2's pure-Python framing costs more CPU
                # than the connections it saves (bench/peers/run runs both with UPSTREAM=tls).
                self.client = httpx2.AsyncClient(
                    limits=httpx2.Limits(max_connections=256, max_keepalive_connections=256), timeout=15,
                    verify=verify, http2=self.kind != "httpx2-http1",
                )
        headers = {"Content-Type": "application/json"}
        if self.kind == "aiohttp":
            async with self.client.post(url, data=body, headers=headers) as response:
                payload = await response.json(content_type=None) if response.status == 200 else {}
                return response.status, response.headers.get("X-Apple-CloudKit-Web-Auth-Token"), payload
        response = await self.client.post(url, content=body, headers=headers)
        payload = response.json() if response.status_code == 200 else {}
        return response.status_code, response.headers.get("X-Apple-CloudKit-Web-Auth-Token"), payload


UPSTREAM = Upstream(os.environ.get("PEER_HTTP_CLIENT", "httpx2"))


LOOKUP_URL = (
    f"{SETTINGS.emulator}/database/1/{SETTINGS.container}/{SETTINGS.environment}/private/records/lookup"
    f"?ckAPIToken={urllib.parse.quote(SETTINGS.api_token, safe='')}&ckWebAuthToken="
)
LOOKUP_BODY = b'{"zoneID":{"zoneName":"MustDo"},"records":[{"recordName":"account"}]}'


class CloudKitFailure(Exception):
    pass


async def lookup_account(grant_id: str) -> dict[str, Any]:
    """records/lookup of the Account record with the grant's newest token; saves the rotated one."""
    state = GRANTS.get(grant_id) or STORE.grant(grant_id)
    if state is None:
        raise CloudKitFailure("grant gone")
    sealed, version = state
    web_auth_token = unseal(sealed, grant_id)
    status, rotated, payload = await UPSTREAM.post(LOOKUP_URL + urllib.parse.quote(web_auth_token, safe=""), LOOKUP_BODY)
    if rotated and rotated != web_auth_token:
        resealed = seal(rotated, grant_id)
        if STORE.replace_sealed(grant_id, version, resealed):
            GRANTS[grant_id] = (resealed, version + 1)
        else:  # the other worker saved a newer token: read it next time
            GRANTS.pop(grant_id, None)
    if status != 200:
        raise CloudKitFailure(f"CloudKit answered {status}")
    records = payload.get("records") or []
    if not records or "fields" not in records[0]:
        return {}
    return {name: field.get("value") for name, field in records[0]["fields"].items()}


class Today(TypedDict):
    date: str
    weekday: str
    weekdayNumber: int


class QuietHours(TypedDict):
    start: str
    end: str


class GetMeResult(TypedDict):
    timeZone: str
    locale: str | None
    defaultTime: str
    quietHours: QuietHours | None
    trialStartedAt: str | None
    subscribedUntil: str | None
    canAddTodos: bool
    today: Today
    now: str
    defaultDueNext: str
    warnings: list[str]


def hh_mm(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 5 and value[2] == ":" and value[:2].isdigit()
        and value[3:].isdigit() and int(value[:2]) < 24 and int(value[3:]) < 60
    )


def account_result(fields: dict[str, Any], now: datetime) -> GetMeResult:
    # Settings the app saved that cannot be used fall back to the defaults with a warning, as the relay's do.
    warnings: list[str] = []
    try:
        zone_name = fields.get("timeZone") or "UTC"
        zone = ZoneInfo(zone_name)
    except (KeyError, ValueError):
        warnings.append(f"The MustDo app saved a time zone this server does not know ({zone_name!r}), so UTC is used.")
        zone_name, zone = "UTC", ZoneInfo("UTC")
    default_time = fields.get("defaultTime") or "09:00"
    if not hh_mm(default_time):
        warnings.append(f"The MustDo app saved a default alarm time that is not HH:mm ({default_time!r}), so 09:00 is used.")
        default_time = "09:00"
    local = now.astimezone(zone)

    def instant(milliseconds: Any) -> str | None:
        if milliseconds is None:
            return None
        return datetime.fromtimestamp(milliseconds / 1000, zone).isoformat(timespec="seconds")

    trial = fields.get("trialStartedAt")
    subscribed = fields.get("subscribedUntil")
    now_ms = now.timestamp() * 1000
    can_add = (
        (subscribed is not None and subscribed > now_ms)
        or trial is None
        or now_ms < trial + 30 * 86_400_000
        or fields.get("canAddTodos") == 1
    )
    hour, minute = (int(part) for part in default_time.split(":"))
    tomorrow = (local + timedelta(days=1)).date()
    due = datetime(tomorrow.year, tomorrow.month, tomorrow.day, hour, minute, tzinfo=zone)
    start, end = fields.get("quietHoursStart") or None, fields.get("quietHoursEnd") or None
    if (start or end) and not (hh_mm(start) and hh_mm(end)):
        warnings.append("The MustDo app saved quiet hours that are incomplete or not HH:mm, so none apply.")
        start = end = None
    return {
        "timeZone": zone_name,
        "locale": fields.get("locale"),
        "defaultTime": default_time,
        "quietHours": {"start": start, "end": end} if start and end and start != end else None,
        "trialStartedAt": instant(trial),
        "subscribedUntil": instant(subscribed),
        "canAddTodos": bool(can_add),
        "today": {
            "date": local.date().isoformat(),
            "weekday": WEEKDAYS[local.weekday()],
            "weekdayNumber": (local.isoweekday() % 7) + 1,
        },
        "now": local.isoformat(timespec="seconds"),
        "defaultDueNext": due.isoformat(timespec="seconds"),
        "warnings": warnings,
    }


server = MCPServer(
    name="mustdo-peer",
    version="0.1.0",
    log_level="WARNING",
    token_verifier=SQLiteTokenVerifier(),
    auth=AuthSettings(issuer_url=SETTINGS.public_url, resource_server_url=RESOURCE, validate_token_resource=True),
)


@server.tool(
    name="get_me",
    title="Account and today",
    description="The user's MustDo settings and the current date and time in the user's time zone.",
    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False),
)
async def get_me() -> GetMeResult:
    access = get_access_token()
    assert access is not None and access.claims is not None
    fields = await lookup_account(access.claims["grant"])
    return account_result(fields, datetime.now(timezone.utc))


app = server.streamable_http_app(
    stateless_http=True,
    json_response=True,
    transport_security=TransportSecuritySettings(allowed_hosts=["127.0.0.1:*", "localhost:*"]),
)

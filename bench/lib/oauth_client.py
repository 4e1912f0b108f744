"""A small OAuth 2.1 client for the benchmarks, standard library only: dynamic client registration,
PKCE, the browser part walked by examples/headless_sign_in.py (consent page, the emulator's Apple
sign-in page, the callback), the code exchange, and refresh. It is the same real flow an MCP client
runs; nothing is minted behind the relay's back.

    python3 bench/lib/oauth_client.py RELAY_URL COUNT [PREFIX [EMULATOR_URL]]

prints COUNT grants (Apple IDs PREFIX0@example.com, …) as JSON lines; with EMULATOR_URL each user
also gets an Account record (a Tokyo time zone, quiet hours, a subscription) seeded through the
emulator's control API, so get_me decodes a real record rather than falling back to defaults.
"""

from __future__ import annotations

import base64
import concurrent.futures
import hashlib
import json
import os
import secrets
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from headless_sign_in import Browser, sign_in  # noqa: E402

REDIRECT_URI = "http://127.0.0.1:9/callback"  # loopback: never contacted, the walk stops at the redirect


def _post(url: str, body: bytes, content_type: str) -> dict:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def register(relay: str, name: str = "bench client") -> str:
    """POST /register (RFC 7591) for a public client; returns the client ID."""
    metadata = {
        "client_name": name,
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    return _post(relay + "/register", json.dumps(metadata).encode(), "application/json")["client_id"]


def _form(relay: str, fields: dict[str, str]) -> dict:
    return _post(relay + "/token", urllib.parse.urlencode(fields).encode(), "application/x-www-form-urlencoded")


def connect(relay: str, client_id: str, apple_id: str, forwarded_for: str | None = None) -> dict:
    """One full connect flow: authorize → consent → Apple sign-in → callback → code exchange.
    With `forwarded_for`, the browser's requests carry `X-Forwarded-For` as if through a proxy (the
    relay believes it only from RELAY_TRUSTED_PROXIES): the relay limits consent pages per client
    address, and a load test from one address would otherwise hit that limit."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(16)
    query = urllib.parse.urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": relay + "/mcp",
        }
    )
    browser = Browser()
    if forwarded_for:
        browser._opener.addheaders.append(("X-Forwarded-For", forwarded_for))
    code, returned_state, _ = sign_in(f"{relay}/authorize?{query}", apple_id, browser)
    if returned_state != state:
        raise RuntimeError("state mismatch")
    tokens = _form(
        relay,
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "code_verifier": verifier,
            "client_id": client_id,
            "resource": relay + "/mcp",
        },
    )
    return {"client_id": client_id, "apple_id": apple_id, **tokens}


def refresh(relay: str, grant: dict) -> dict:
    """Rotates the refresh token; returns the grant with the new pair."""
    tokens = _form(
        relay,
        {
            "grant_type": "refresh_token",
            "refresh_token": grant["refresh_token"],
            "client_id": grant["client_id"],
            "resource": relay + "/mcp",
        },
    )
    return {**grant, **tokens}


def seed_account(emulator: str, apple_id: str) -> None:
    """An Account record like the app writes, through the emulator's control API."""
    now_ms = 1_780_000_000_000
    fields = {
        "timeZone": {"value": "Asia/Tokyo", "type": "STRING"},
        "locale": {"value": "ja_JP", "type": "STRING"},
        "defaultTime": {"value": "08:30", "type": "STRING"},
        "quietHoursStart": {"value": "22:00", "type": "STRING"},
        "quietHoursEnd": {"value": "07:00", "type": "STRING"},
        "trialStartedAt": {"value": now_ms, "type": "TIMESTAMP"},
        "subscribedUntil": {"value": now_ms + 400 * 86_400_000, "type": "TIMESTAMP"},
        "canAddTodos": {"value": 1, "type": "INT64"},
    }
    body = {"zone": "MustDo", "records": [{"recordName": "account", "recordType": "Account", "fields": fields}]}
    user = urllib.parse.quote(apple_id, safe="")
    _post(f"{emulator}/control/users/{user}/records", json.dumps(body).encode(), "application/json")


def grants(
    relay: str, count: int, prefix: str = "bench", emulator: str | None = None, workers: int = 4,
    forwarded: bool = False,
) -> list[dict]:
    """COUNT grants of COUNT different Apple IDs through one registered client; with `forwarded`,
    each flow comes from its own (forwarded) address 10.x.y.z."""
    client_id = register(relay)

    def one(index: int) -> dict:
        address = f"10.{index >> 16 & 255}.{index >> 8 & 255}.{index & 255}" if forwarded else None
        grant = connect(relay, client_id, f"{prefix}{index}@example.com", address)
        if emulator:
            seed_account(emulator, grant["apple_id"])
        return grant

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, range(count)))


if __name__ == "__main__":
    relay_url, how_many = sys.argv[1], int(sys.argv[2])
    prefix = sys.argv[3] if len(sys.argv) > 3 else "bench"
    for grant in grants(relay_url, how_many, prefix, sys.argv[4] if len(sys.argv) > 4 else None):
        print(json.dumps(grant))

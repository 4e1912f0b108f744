"""What the end-to-end scripts share: the real OAuth flow against a running relay (DCR, PKCE, the
headless sign-in walk, the code exchange), refresh, and raw /mcp POSTs. Standard library only."""

import base64
import hashlib
import http.client
import json
import os
import secrets
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples"))
from headless_sign_in import sign_in  # noqa: E402

REDIRECT = "http://127.0.0.1:9/callback"


def post(relay, path, body, content_type):
    request = urllib.request.Request(relay + path, data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def connect(relay, apple_id, scope=None, registered_scope=None):
    """Registers a client (with `registered_scope`, if given) and runs the flow asking for `scope` (None:
    the default, every scope); returns the token response plus client_id."""
    metadata = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", "client_name": "e2e"}
    if registered_scope is not None:
        metadata["scope"] = registered_scope
    client = post(relay, "/register", json.dumps(metadata).encode(), "application/json")["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    parameters = {"response_type": "code", "client_id": client, "redirect_uri": REDIRECT, "code_challenge": challenge,
                  "code_challenge_method": "S256", "state": "s", "resource": relay + "/mcp"}
    if scope is not None:
        parameters["scope"] = scope
    query = urllib.parse.urlencode(parameters)
    code, _, _ = sign_in(f"{relay}/authorize?{query}", apple_id)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
            "client_id": client, "resource": relay + "/mcp"}
    tokens = post(relay, "/token", urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    return {**tokens, "client_id": client}


def refresh(relay, tokens):
    form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": tokens["client_id"],
            "resource": relay + "/mcp"}
    fresh = post(relay, "/token", urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")
    return {**tokens, **fresh}


def mcp(relay, target, authorizations, body=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'):
    """POSTs `body` with these Authorization header values; returns (status, WWW-Authenticate error,
    parsed JSON body or None)."""
    parts = urllib.parse.urlsplit(relay)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.putrequest("POST", target)
    for value in authorizations:
        connection.putheader("Authorization", value)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Accept", "application/json, text/event-stream")
    connection.putheader("MCP-Protocol-Version", "2025-11-25")
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    payload = response.read()
    challenge = response.getheader("WWW-Authenticate") or ""
    error = challenge.split('error="', 1)[1].split('"', 1)[0] if 'error="' in challenge else None
    connection.close()
    return response.status, error, (json.loads(payload) if payload and response.status == 200 else None)


def tool_call(relay, token, name, arguments=None):
    """(status, tool error code or None) of one tools/call."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments or {}}}).encode()
    status, error, payload = mcp(relay, "/mcp", ["Bearer " + token], body)
    if status != 200:
        return [status, error]
    result = payload["result"]
    return [status, (result.get("structuredContent") or {}).get("error", {}).get("code") if result.get("isError") else None]

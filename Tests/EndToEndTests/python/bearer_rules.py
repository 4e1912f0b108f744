"""Connects to a running relay through the real OAuth flow (DCR, PKCE, the headless sign-in walk),
then sends /mcp requests that a cached token must not let through, and prints one JSON line:
{"case": [status, error]} per case. Standard library only.

    python3 bearer_rules.py http://127.0.0.1:PORT
"""

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

RELAY = sys.argv[1]
REDIRECT = "http://127.0.0.1:9/callback"


def post(path, body, content_type):
    request = urllib.request.Request(RELAY + path, data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def access_token():
    client = post(
        "/register",
        json.dumps(
            {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", "client_name": "bearer rules"}
        ).encode(),
        "application/json",
    )["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode(
        {"response_type": "code", "client_id": client, "redirect_uri": REDIRECT, "code_challenge": challenge,
         "code_challenge_method": "S256", "state": "s", "resource": RELAY + "/mcp"}
    )
    code, _, _ = sign_in(f"{RELAY}/authorize?{query}", "rules@example.com")
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier,
            "client_id": client, "resource": RELAY + "/mcp"}
    return post("/token", urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")["access_token"]


def mcp(target, authorizations):
    """POST tools/list with these Authorization header values; returns [status, WWW-Authenticate error]."""
    parts = urllib.parse.urlsplit(RELAY)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    connection.putrequest("POST", target)
    for value in authorizations:
        connection.putheader("Authorization", value)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Accept", "application/json, text/event-stream")
    connection.putheader("MCP-Protocol-Version", "2025-11-25")
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    response.read()
    challenge = response.getheader("WWW-Authenticate") or ""
    error = challenge.split('error="', 1)[1].split('"', 1)[0] if 'error="' in challenge else None
    connection.close()
    return [response.status, error]


token = access_token()
results = {"first": mcp("/mcp", ["Bearer " + token])}
results["cached"] = mcp("/mcp", ["Bearer " + token])
results["lowercaseScheme"] = mcp("/mcp", ["bearer " + token])
results["tokenInQuery"] = mcp("/mcp?access_token=" + token, ["Bearer " + token])
results["otherQuery"] = mcp("/mcp?x=1", ["Bearer " + token])
results["twoHeaders"] = mcp("/mcp", ["Bearer " + token, "Bearer " + token])
results["brokenChecksum"] = mcp("/mcp", ["Bearer " + token[:-1] + ("A" if token[-1] != "A" else "B")])
results["otherScheme"] = mcp("/mcp", ["Basic " + token])
print(json.dumps(results))

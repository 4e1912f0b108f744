"""What a client sees of the relay behind nginx, and what it can and cannot make the relay believe.
Standard library only; the proxy's certificate is verified against the test CA.

    python3 proxy_checks.py --public https://127.0.0.1:P --relay http://127.0.0.1:R \
        --redirector http://127.0.0.1:H --ca-file ca.pem --registrations N

Prints one JSON line of observations; the Swift test compares them with what they must be. Each
spoofing probe is also sent straight to the relay (whose loopback peer is a trusted proxy), so
the test shows that the relay would believe the header and that it is nginx that overwrites it.
"""

from __future__ import annotations

import argparse
import json
import ssl
import urllib.error
import urllib.request

SPOOFED = {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example", "X-Forwarded-For": "192.0.2.7"}
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def opener(cafile: str):
    context = ssl.create_default_context(cafile=cafile)
    return urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))


def fetch(open_, url: str, data: bytes | None = None, headers: dict[str, str] | None = None):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data else "GET")
    try:
        response = open_.open(request, timeout=15)
    except urllib.error.HTTPError as error:
        response = error
    body = response.read().decode("utf-8", "replace")
    return response.status, response.headers, body


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--public", required=True)
    parser.add_argument("--relay", required=True)
    parser.add_argument("--redirector", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--registrations", type=int, required=True, help="the relay's hourly budget per address")
    args = parser.parse_args()
    open_ = opener(args.ca_file)
    report: dict = {}

    status, _, body = fetch(open_, args.public + "/.well-known/oauth-protected-resource/mcp")
    report["prm"] = {"status": status, "document": json.loads(body)}
    status, _, body = fetch(open_, args.public + "/.well-known/oauth-authorization-server")
    report["asm"] = {"status": status, "document": json.loads(body)}

    status, headers, _ = fetch(open_, args.public + "/mcp", PING, MCP_HEADERS)
    report["mcp"] = {"status": status, "wwwAuthenticate": headers.get("WWW-Authenticate")}
    status, headers, body = fetch(open_, args.public + "/mcp", PING, {**MCP_HEADERS, **SPOOFED})
    report["mcpSpoofed"] = {"status": status, "wwwAuthenticate": headers.get("WWW-Authenticate"), "body": body}
    # Straight to the relay with the public Host, as nginx sends it: plain, then one spoofed header at a time.
    public_host = {"Host": args.public.split("://", 1)[1]}
    report["direct"] = {"none": fetch(open_, args.relay + "/mcp", PING, {**MCP_HEADERS, **public_host})[0]}
    for name in ("X-Forwarded-Proto", "X-Forwarded-Host"):
        headers = {**MCP_HEADERS, **public_host, name: SPOOFED[name]}
        report["direct"][name] = fetch(open_, args.relay + "/mcp", PING, headers)[0]
    # Load balancers probe health over plain http: never refused.
    probe = {**public_host, "X-Forwarded-Proto": "http"}
    report["direct"]["healthz"] = fetch(open_, args.relay + "/healthz", headers=probe)[0]

    # The disconnect page through the proxy: its protective headers survive, and its binding
    # cookie is a __Host- cookie (Secure), as an https issuer requires.
    status, headers, _ = fetch(open_, args.public + "/disconnect", headers={"X-Forwarded-Proto": "http"})
    report["page"] = {
        "status": status,
        "setCookie": headers.get("Set-Cookie"),
        "frameOptions": headers.get("X-Frame-Options"),
        "csp": headers.get("Content-Security-Policy"),
        "hsts": headers.get("Strict-Transport-Security"),
    }

    status, headers, _ = fetch(open_, args.redirector + "/mcp")
    report["plainHTTP"] = {"status": status, "location": headers.get("Location")}

    # New clients are limited per client address. Through nginx every request is 127.0.0.1, whatever
    # X-Forwarded-For it carries; straight to the relay (a trusted peer) each spoofed address counts
    # on its own, so the same loop never hits the limit there. Each registration is new metadata (a
    # registration of a stored client's metadata reuses it and is never counted).
    for target, key in ((args.public, "registerViaProxy"), (args.relay, "registerDirect")):
        statuses = []
        for attempt in range(args.registrations + 1):
            registration = json.dumps(
                {
                    "client_name": f"probe {key} {attempt}",
                    "redirect_uris": ["http://127.0.0.1:9/callback"],
                    "token_endpoint_auth_method": "none",
                }
            ).encode()
            headers = {"Content-Type": "application/json", "X-Forwarded-For": f"198.51.100.{attempt + 1}"}
            statuses.append(fetch(open_, target + "/register", registration, headers)[0])
        report[key] = statuses
    print(json.dumps(report))


if __name__ == "__main__":
    main()

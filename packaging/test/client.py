"""The package test's client, from outside the chroot: one connection made through the relay's real
OAuth flow (bench/lib/oauth_client.py: registration, PKCE, consent, the emulator's Apple sign-in,
the code exchange) and kept in a JSON file, so the same tokens can be tried again after an upgrade.

    client.py connect RELAY EMULATOR APPLE_ID GRANT_FILE
    client.py check RELAY GRANT_FILE VERSION [--add TITLE] [--expect TITLE...]
    client.py refresh RELAY GRANT_FILE

`check` sends MCP initialize (serverInfo.version must be VERSION), then get_me (the Account's
Asia/Tokyo zone must be found: a relay without time-zone data would fall back to UTC), optionally
add_todo, and list_todos (every --expect title must be listed). Any failure exits non-zero with
the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "lib"))
import oauth_client  # noqa: E402

PROTOCOL_VERSION = "2025-11-25"


def mcp(relay: str, grant: dict, method: str, params: dict) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(
        relay + "/mcp",
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
            "Authorization": "Bearer " + grant["access_token"],
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method}: HTTP {error.code} {error.read()[:200]!r}") from None
    if "error" in answer:
        raise SystemExit(f"{method}: {answer['error']}")
    return answer["result"]


def tool(relay: str, grant: dict, name: str, arguments: dict) -> dict:
    result = mcp(relay, grant, "tools/call", {"name": name, "arguments": arguments})
    if result.get("isError"):
        raise SystemExit(f"{name}: {result.get('structuredContent') or result.get('content')}")
    return result["structuredContent"]


def check(relay: str, grant: dict, version: str, add: str | None, expect: list[str]) -> None:
    initialized = mcp(
        relay,
        grant,
        "initialize",
        {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "package test", "version": "1"}},
    )
    served = initialized["serverInfo"]["version"]
    if served != version:
        raise SystemExit(f"initialize: serverInfo.version is {served!r}, the package is {version!r}")
    me = tool(relay, grant, "get_me", {})
    if me["timeZone"] != "Asia/Tokyo" or not me["now"].endswith("+09:00"):
        raise SystemExit(f"get_me: the Account's Asia/Tokyo was not applied: {me['timeZone']}, now {me['now']}")
    if add:
        tool(relay, grant, "add_todo", {"title": add, "due": "2031-01-02T09:00"})
    listed = tool(relay, grant, "list_todos", {"status": "all"})
    titles = [item["title"] for item in (listed.get("items") or []) + (listed.get("repeating") or [])]
    missing = [title for title in expect + ([add] if add else []) if title not in titles]
    if missing:
        raise SystemExit(f"list_todos: {missing} missing from {titles}")
    print(f"client: serverInfo.version {served}; get_me {me['timeZone']} {me['now']}; to-dos {titles}")


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    connect = commands.add_parser("connect")
    connect.add_argument("relay")
    connect.add_argument("emulator")
    connect.add_argument("apple_id")
    connect.add_argument("grant_file")
    checking = commands.add_parser("check")
    checking.add_argument("relay")
    checking.add_argument("grant_file")
    checking.add_argument("version")
    checking.add_argument("--add")
    checking.add_argument("--expect", nargs="*", default=[])
    refreshing = commands.add_parser("refresh")
    refreshing.add_argument("relay")
    refreshing.add_argument("grant_file")
    args = parser.parse_args()

    if args.command == "connect":
        client_id = oauth_client.register(args.relay, "package test")
        grant = oauth_client.connect(args.relay, client_id, args.apple_id)
        oauth_client.seed_account(args.emulator, args.apple_id)
        with open(args.grant_file, "w") as file:
            json.dump(grant, file)
        print(f"client: connected {args.apple_id} (client {client_id})")
        return
    with open(args.grant_file) as file:
        grant = json.load(file)
    if args.command == "check":
        check(args.relay, grant, args.version, args.add, args.expect)
    else:
        try:
            grant = oauth_client.refresh(args.relay, grant)
        except urllib.error.HTTPError as error:
            raise SystemExit(f"refresh: HTTP {error.code} {error.read()[:200]!r}") from None
        with open(args.grant_file, "w") as file:
            json.dump(grant, file)
        print("client: refreshed; the old refresh token was accepted")


if __name__ == "__main__":
    main()

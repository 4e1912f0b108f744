"""The official MCP Python SDK (1.x or 2.x, whichever this interpreter has) holding a read-only
token from MustDo Relay: reads work; a write gets 403 insufficient_scope, and the SDK steps up
(re-authorizes with the challenged scopes through the headless sign-in) once, then retries.
Where the step-up cannot succeed (a client registered for todos:read only), each call makes one
attempt and fails: nothing loops.

    .venv-mcp2/bin/python scope_step_up.py RELAY_URL

Prints one JSON line: {"sdk", "granted": {...}, "refused": {...}}; every count comes from an httpx
event hook (each request the SDK sent, auth-flow requests included) and from the sign-in handler.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import urllib.parse
from importlib import metadata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..", "examples")))
from headless_sign_in import sign_in  # noqa: E402
from mcp_client import MemoryTokens, code_result, open_session, tool_result  # noqa: E402
from relay_flow import REDIRECT, connect  # noqa: E402


class Recorder:
    """What the SDK sent (method, path, status) and which sign-ins it started (their scope)."""

    def __init__(self, apple_id: str):
        self.apple_id = apple_id
        self.exchanges: list[list] = []
        self.authorizations: list[str] = []
        self.result = None

    async def on_response(self, response) -> None:
        self.exchanges.append([response.request.method, response.request.url.path, response.status_code])

    async def redirect(self, authorization_url: str) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(authorization_url).query)
        self.authorizations.append(query.get("scope", [""])[0])
        self.result = None
        self.result = await asyncio.to_thread(sign_in, authorization_url, self.apple_id)

    async def callback(self):
        return code_result(*self.result)

    def count(self, path: str, status: int) -> int:
        return sum(1 for _, p, s in self.exchanges if p == path and s == status)


def provider(relay: str, tokens: dict, recorder: Recorder):
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

    storage = MemoryTokens()
    storage.tokens = OAuthToken(
        access_token=tokens["access_token"], token_type="Bearer", expires_in=tokens["expires_in"],
        refresh_token=tokens["refresh_token"], scope=tokens["scope"])
    storage.client_info = OAuthClientInformationFull(
        client_id=tokens["client_id"], redirect_uris=[REDIRECT], token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"], response_types=["code"])
    return storage, OAuthClientProvider(
        server_url=relay + "/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="e2e step-up", redirect_uris=[REDIRECT], grant_types=["authorization_code", "refresh_token"],
            response_types=["code"], token_endpoint_auth_method="none"),
        storage=storage, redirect_handler=recorder.redirect, callback_handler=recorder.callback)


@contextlib.asynccontextmanager
async def session(relay: str, auth, recorder: Recorder):
    async with open_session(relay + "/mcp", auth, event_hooks={"response": [recorder.on_response]}) as opened:
        yield opened.call_tool, opened.list_tools


def is_error(result) -> bool:
    return tool_result(result)[0]


async def attempt(call_tool, name: str, arguments: dict) -> str:
    """"ok", "toolError", "exception: <type>" or "timeout" (a hang would be a loop or a stall)."""
    try:
        result = await asyncio.wait_for(call_tool(name, arguments), timeout=45)
    except asyncio.TimeoutError:
        return "timeout"
    except Exception as error:  # noqa: BLE001 - whatever the SDK raises is the observation
        return f"exception: {type(error).__name__}"
    return "toolError" if is_error(result) else "ok"


async def granted(relay: str) -> dict:
    """A read-only token whose client may ask for more: one step-up, then writes work."""
    tokens = connect(relay, "stepup@example.com", scope="todos:read")
    recorder = Recorder("stepup@example.com")
    storage, auth = provider(relay, tokens, recorder)
    report: dict = {"grantedScope": tokens["scope"]}
    async with session(relay, auth, recorder) as (call_tool, list_tools):
        report["tools"] = len((await list_tools()).tools)
        report["read"] = await attempt(call_tool, "get_me", {})
        report["forbiddenBefore"] = recorder.count("/mcp", 403)
        report["write"] = await attempt(call_tool, "add_todo", {"title": "stepped up"})
        report["forbiddenAfterWrite"] = recorder.count("/mcp", 403)
        report["secondWrite"] = await attempt(call_tool, "add_todo", {"title": "again"})
        report["forbiddenAtEnd"] = recorder.count("/mcp", 403)
    report["authorizations"] = recorder.authorizations
    report["scopeAfter"] = storage.tokens.scope if storage.tokens else None
    return report


async def refused(relay: str) -> dict:
    """A client registered for todos:read only: the step-up's authorization is refused
    (invalid_scope), so each write makes exactly one attempt and fails; reads keep working."""
    tokens = connect(relay, "capped@example.com", scope="todos:read", registered_scope="todos:read")
    recorder = Recorder("capped@example.com")
    _, auth = provider(relay, tokens, recorder)
    report: dict = {}
    async with session(relay, auth, recorder) as (call_tool, _):
        report["read"] = await attempt(call_tool, "get_me", {})
    async def one_write() -> str:
        async with session(relay, auth, recorder) as (call_tool, _):
            return await attempt(call_tool, "add_todo", {"title": "never"})

    writes = []
    for _ in range(2):
        # A fresh session each time: the SDK may give up the whole session when its auth flow fails.
        try:
            writes.append(await asyncio.wait_for(one_write(), timeout=60))
        except asyncio.TimeoutError:
            writes.append("timeout")
        except Exception as error:  # noqa: BLE001 - the observation
            writes.append(f"session failed: {type(error).__name__}")
    report["writes"] = writes
    report["forbidden"] = recorder.count("/mcp", 403)
    report["authorizations"] = recorder.authorizations
    async with session(relay, auth, recorder) as (call_tool, _):
        report["readAfter"] = await attempt(call_tool, "get_me", {})
    return report


async def main() -> None:
    relay = sys.argv[1].rstrip("/")
    if relay.endswith("/mcp"):
        relay = relay[: -len("/mcp")]
    print(json.dumps({"sdk": metadata.version("mcp"), "granted": await granted(relay),
                      "refused": await refused(relay)}))


if __name__ == "__main__":
    asyncio.run(main())

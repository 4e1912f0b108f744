"""A small MCP client for MustDo Relay, built on the official MCP Python SDK (1.x or 2.x).

It connects to the relay, runs the OAuth flow (dynamic client registration, PKCE, Apple sign-in
through the relay's pages), then calls get_me and list_todos and prints what it got.

    pip install -r examples/requirements.txt
    python3 examples/mcp_client.py http://127.0.0.1:8080/mcp                 # opens your browser
    python3 examples/mcp_client.py http://127.0.0.1:8080/mcp --headless alice@example.com
    python3 examples/mcp_client.py URL --headless alice@example.com --add "Buy milk" --due 2030-01-02T09:00
    python3 examples/mcp_client.py https://127.0.0.1:8443/mcp --ca-file test-ca.pem --headless alice@example.com

With --headless the sign-in pages are walked by a tiny built-in browser (for the local demo, where
the Apple sign-in page is the emulator's and accepts any Apple ID). --ca-file trusts a private CA
(a test proxy's) instead of the system's; certificates are always verified.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import json
import os
import ssl
import sys
import threading
import urllib.parse
import webbrowser
from importlib import metadata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from headless_sign_in import sign_in  # noqa: E402

SDK_MAJOR = int(metadata.version("mcp").split(".")[0])


class MemoryTokens:
    """TokenStorage in memory (a real client would keep tokens in the OS keychain)."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Callback:
    """Receives the authorization code: from the headless walk, or from a loopback HTTP server
    that the browser is sent back to."""

    def __init__(self, headless_apple_id: str | None, cafile: str | None = None):
        self.apple_id = headless_apple_id
        self.cafile = cafile
        self.result = None
        self.done = threading.Event()
        self.server = None
        if headless_apple_id is None:
            outer = self

            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                    if "code" in query:
                        outer.result = (query["code"][0], query.get("state", [None])[0], query.get("iss", [None])[0])
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain; charset=utf-8")
                    self.end_headers()
                    self.wfile.write(b"Connected. You can close this window.")
                    outer.done.set()

                def log_message(self, *args):
                    pass

            self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def redirect_uri(self) -> str:
        port = self.server.server_address[1] if self.server else 8765
        return f"http://127.0.0.1:{port}/callback"

    async def redirect(self, authorization_url: str) -> None:
        if self.apple_id is not None:
            self.result = await asyncio.to_thread(sign_in, authorization_url, self.apple_id, cafile=self.cafile)
            self.done.set()
        else:
            print(f"Opening your browser to connect: {authorization_url}", file=sys.stderr)
            webbrowser.open(authorization_url)

    async def wait(self):
        await asyncio.to_thread(self.done.wait, 300)
        if self.result is None:
            raise RuntimeError("no authorization code arrived")
        return code_result(*self.result)


def code_result(code: str, state: str | None, iss: str | None):
    """What the installed SDK line's OAuth callback handler returns for an authorization code."""
    if SDK_MAJOR >= 2:
        from mcp.shared.auth import AuthorizationCodeResult

        return AuthorizationCodeResult(code=code, state=state, iss=iss)
    return code, state


def provider(url: str, callback: Callback):
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="MustDo Relay example client",
            redirect_uris=[callback.redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryTokens(),
        redirect_handler=callback.redirect,
        callback_handler=callback.wait,
    )


def tool_result(result) -> tuple[bool, dict | None, list[str]]:
    """A tool result's parts as either SDK line names them: whether it is an error, its structuredContent (None
    when empty) and its text blocks."""
    is_error = bool(getattr(result, "is_error", None) or getattr(result, "isError", None))
    content = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    return is_error, content, texts


def structured(result) -> dict:
    is_error, content, texts = tool_result(result)
    if content is None:
        content = json.loads(texts[0]) if texts else {}
    if is_error:
        raise RuntimeError(f"tool error: {content}")
    return content


class Session:
    """The SDK-neutral surface the example and the tests use: list_tools, call_tool, protocol_version."""

    def __init__(self, call_tool, list_tools, protocol_version: str):
        self.call_tool = call_tool
        self.list_tools = list_tools
        self.protocol_version = protocol_version


@contextlib.asynccontextmanager
async def open_session(
    url: str, auth, cafile: str | None = None, mode: str = "auto", headers: dict | None = None,
    event_hooks: dict | None = None,
):
    """Connects with whichever SDK line is installed; `cafile` is the CA to trust instead of the system's.
    `auth` is the SDK's OAuth provider, or None with a fixed `Authorization` in `headers` (tests that
    hold a token already); `event_hooks` are httpx's (tests that record every exchange).

    With the 2.x SDK, `mode` is the Client's: "auto" probes server/discover and speaks MCP 2026-07-28
    with the relay (no initialize); "legacy" starts a 2025-11-25 session with initialize. The 1.x SDK
    always initializes."""
    verify = ssl.create_default_context(cafile=cafile) if cafile else True
    if SDK_MAJOR >= 2:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(
            auth=auth, headers=headers, timeout=30, verify=verify, event_hooks=event_hooks
        ) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                yield Session(client.call_tool, client.list_tools, client.protocol_version)
    else:
        import httpx
        from mcp import ClientSession
        from mcp.client.streamable_http import streamablehttp_client

        def http_client(headers=None, timeout=None, auth=None):
            return httpx.AsyncClient(
                headers=headers, timeout=timeout or 30, auth=auth, verify=verify, event_hooks=event_hooks
            )

        async with streamablehttp_client(url, headers=headers, auth=auth, httpx_client_factory=http_client) as (
            read, write, _
        ):
            async with ClientSession(read, write) as session:
                version = (await session.initialize()).protocolVersion
                yield Session(session.call_tool, session.list_tools, version)


async def run(args) -> dict:
    callback = Callback(args.headless, cafile=args.ca_file)
    auth = provider(args.url, callback)
    report = {"sdk": metadata.version("mcp")}
    async with open_session(args.url, auth, cafile=args.ca_file) as session:
        report["protocolVersion"] = session.protocol_version
        tools = await session.list_tools()
        report["tools"] = [tool.name for tool in tools.tools]
        me = structured(await session.call_tool("get_me", {}))
        report["today"] = me.get("today")
        if args.add:
            arguments = {"title": args.add}
            if args.due:
                arguments["due"] = args.due
            report["added"] = structured(await session.call_tool("add_todo", arguments))
        report["todos"] = structured(await session.call_tool("list_todos", {"status": "all"}))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="the relay's MCP URL, e.g. http://127.0.0.1:8080/mcp")
    parser.add_argument("--headless", metavar="APPLE_ID", help="sign in without a browser (local demo only)")
    parser.add_argument("--add", metavar="TITLE", help="also add a to-do with this title")
    parser.add_argument("--due", metavar="TIME", help="its due time (YYYY-MM-DDTHH:mm, ISO 8601, or YYYY-MM-DD)")
    parser.add_argument("--ca-file", metavar="PEM", help="trust this CA instead of the system's (a test proxy)")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return
    print(f"Connected with MCP SDK {report['sdk']} (protocol {report['protocolVersion']}).")
    print(f"Tools: {', '.join(report['tools'])}")
    today = report.get("today") or {}
    print(f"Today: {today.get('date')} ({today.get('weekday')})")
    todos = report["todos"]
    items = (todos.get("items") or []) + (todos.get("repeating") or [])
    print(f"{len(items)} to-do(s):")
    for item in items:
        print(f"  - {item.get('title')}  {item.get('due') or ''}")


if __name__ == "__main__":
    main()

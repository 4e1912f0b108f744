"""`mustdo-relay local` through the official MCP Python SDK's stdio client (1.x or 2.x, whichever this
interpreter has): not signed in, the sign_in tool (the browser played by local_browser.py through the whole
real path), the to-do tools, the prompts and their argument errors, a session CloudKit ends.

    python local_stdio.py BINARY HOME EMULATOR_URL CALLBACK_PORT APPLE_ID CA_FILE JOURNAL
                          [--mode auto|legacy] [--parallel] [--crash-loop N]

--mode is the 2.x Client's ("auto": 2026-07-28 through server/discover; "legacy": a 2025-11-25 session).
--parallel also runs a second server process on the same HOME next to the first, both calling at once
(the lock file keeps them from signing each other out). --crash-loop N kills a server with SIGKILL N times
in the middle of calls and checks the token file each time.

The server's standard error goes to HOME/stderr.log. Each token the file held is appended to HOME/tokens
(for the Swift test to look for in the logs; never printed). Prints one JSON line, the report; exits 1
when a check failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from importlib import metadata

SDK = metadata.version("mcp")
parser = argparse.ArgumentParser()
for name in ["binary", "home", "emulator", "callback_port", "apple_id", "ca_file", "journal"]:
    parser.add_argument(name)
parser.add_argument("--mode", default="auto")
parser.add_argument("--parallel", action="store_true")
parser.add_argument("--crash-loop", type=int, default=0)
ARGS = parser.parse_args()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..", "examples")))
from mcp_client import tool_result  # noqa: E402
TOKEN_FILE = os.path.join(ARGS.home, "auth.json")

ENV = {
    "MUSTDO_CK_API_TOKEN": "test-api-token",
    "MUSTDO_CK_BASE_URL": ARGS.emulator,
    "MUSTDO_CK_CONTAINER": "iCloud.test.mustdo",
    "MUSTDO_CK_ENV": "development",
    "MUSTDO_HOME": ARGS.home,
    "MUSTDO_CALLBACK_PORT": ARGS.callback_port,
    "MUSTDO_LOG_LEVEL": "DEBUG",
    "MUSTDO_BROWSER": " ".join(
        [sys.executable, os.path.join(HERE, "local_browser.py"), ARGS.journal, ARGS.apple_id, ARGS.ca_file]
    ),
}

failures: list[str] = []
report: dict = {"sdk": SDK}


def expect(condition, message, value=None):
    if not condition:
        failures.append(f"{message}: {json.dumps(value, ensure_ascii=False, default=str)[:400]}")


def remember_token():
    """Appends the token the file holds now to HOME/tokens; returns the file's mode."""
    with open(TOKEN_FILE) as handle:
        token = json.load(handle)["ckWebAuthToken"]
    with open(os.path.join(ARGS.home, "tokens"), "a") as tokens:
        tokens.write(token + "\n")
    return stat.S_IMODE(os.stat(TOKEN_FILE).st_mode)


def content(result):
    is_error, data, texts = tool_result(result)
    if data is None:
        data = json.loads(texts[0]) if texts else {}
    return is_error, data


def error_code(error):
    code = getattr(error, "code", None)
    if code is None and hasattr(error, "error"):
        code = error.error.code
    return code


def control(path, body):
    request = urllib.request.Request(
        ARGS.emulator + "/control/" + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


async def exercise(session):
    async def call(name, arguments=None):
        return content(await session.call_tool(name, arguments or {}))

    listed = await session.list_tools()
    report["tools"] = sorted(tool.name for tool in listed.tools)

    is_error, data = await call("get_me")
    expect(is_error and data.get("error", {}).get("code") == "NOT_SIGNED_IN", "get_me before signing in", data)
    expect("sign_in" in data.get("error", {}).get("message", ""), "the error names sign_in", data)

    is_error, data = await call("sign_in", {"waitSeconds": 60})
    expect(not is_error and data.get("status") == "signed_in", "sign_in", data)
    report["modeAfterSignIn"] = oct(remember_token())

    is_error, me = await call("get_me")
    expect(not is_error and "today" in me, "get_me after signing in", me)
    today = me.get("today", {}).get("date", "")
    is_error, added = await call("add_todo", {"title": "Water the plants", "due": today})
    expect(not is_error, "add_todo", added)
    todo_id = added.get("todo", {}).get("id")
    is_error, listing = await call("list_todos", {"date": today})
    expect(not is_error and todo_id in [item["id"] for item in listing.get("items", [])], "list_todos", listing)
    is_error, done = await call("complete_todo", {"id": todo_id})
    expect(not is_error, "complete_todo", done)
    report["modeAfterCalls"] = oct(remember_token())

    prompts = await session.list_prompts()
    report["prompts"] = [prompt.name for prompt in prompts.prompts]
    report["promptTitles"] = {prompt.name: getattr(prompt, "title", None) for prompt in prompts.prompts}
    plan = await session.get_prompt("plan_my_day", {"date": today})
    text = plan.messages[0].content.text
    expect(f'date set to "{today}"' in text and "get_me" in text, "plan_my_day with a date", text)
    plan_ja = await session.get_prompt("plan_my_day_ja", {"focus": "確定申告"})
    expect("「確定申告」" in plan_ja.messages[0].content.text, "plan_my_day_ja with a focus", plan_ja.messages[0].content.text)
    review = await session.get_prompt("weekly_review", {})
    expect("list_todos" in review.messages[0].content.text, "weekly_review", review.messages[0].content.text)
    errors = {}
    for label, name, arguments in [
        ("unknownPrompt", "plan_my_week", {}),
        ("badDate", "plan_my_day", {"date": "2026-02-30"}),
        ("unknownArgument", "clear_backlog", {"after": "2026-01-01"}),
        ("longFocus", "plan_my_day_ja", {"focus": "x" * 201}),
    ]:
        try:
            await session.get_prompt(name, arguments)
            errors[label] = "answered"
        except Exception as error:  # an MCP error; the connection stays up
            errors[label] = error_code(error)
    report["promptErrors"] = errors

    if ARGS.parallel:
        report["parallel"] = await parallel(session, today)

    # CloudKit ends every session: the next call says to sign in again, and the dead token is gone.
    control("sessions/expire", {})
    is_error, data = await call("get_me")
    message = data.get("error", {}).get("message", "")
    expect(is_error and data.get("error", {}).get("code") == "NOT_SIGNED_IN", "get_me after expiry", data)
    expect("iCloud ended the sign-in" in message and "sign_in" in message, "the expiry message", message)
    report["tokenFileAfterExpiry"] = os.path.exists(TOKEN_FILE)


async def parallel(first, today):
    """A second server process on the same token file, both calling at once."""
    async def calls(session, count):
        results = []
        for _ in range(count):
            is_error, data = content(await session.call_tool("list_todos", {"date": today}))
            results.append("ok" if not is_error else data.get("error", {}).get("code", "error"))
        return results

    async with connect() as second:
        outcomes = await asyncio.gather(calls(first, 8), calls(second, 8))
    remember_token()
    return sorted(set(outcomes[0] + outcomes[1]))


def connect():
    """A stdio connection to a new server process, on either SDK line."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    errlog = open(os.path.join(ARGS.home, "stderr.log"), "a")
    parameters = StdioServerParameters(command=ARGS.binary, args=["local"], env=ENV)
    if SDK.startswith("1."):
        return _session_v1(stdio_client(parameters, errlog=errlog))
    from mcp import Client

    return Client(stdio_client(parameters, errlog=errlog), mode=ARGS.mode)


class _session_v1:
    """A 1.x ClientSession over a transport, initialized on entry (the 2.x Client does this itself)."""

    def __init__(self, transport):
        self.transport = transport

    async def __aenter__(self):
        from mcp import ClientSession

        read, write = await self.transport.__aenter__()
        self.session = ClientSession(read, write)
        await self.session.__aenter__()
        result = await self.session.initialize()
        self.session.protocol_version = result.protocolVersion
        self.session.capabilities = result.capabilities.model_dump(by_alias=True, exclude_none=True)
        return self.session

    async def __aexit__(self, *exc):
        await self.session.__aexit__(*exc)
        await self.transport.__aexit__(*exc)


def crash_loop(count):
    """SIGKILL a server in the middle of calls, again and again: the token file is always one whole token."""
    control("settings", {"rotation": "keep"})  # so the session outlives a kill between rotation and rename
    seen = []
    for index in range(count):
        process = subprocess.Popen(
            [ARGS.binary, "local"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, **ENV},
        )
        lines = [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ] + [
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "get_me", "arguments": {}}}
            for n in range(1, 40)
        ]
        process.stdin.write(("\n".join(json.dumps(line) for line in lines) + "\n").encode())
        process.stdin.flush()
        time.sleep(random.uniform(0.05, 0.4))
        process.send_signal(signal.SIGKILL)
        process.wait()
        try:
            mode = stat.S_IMODE(os.stat(TOKEN_FILE).st_mode)
            with open(TOKEN_FILE) as handle:
                saved = json.load(handle)
            seen.append("ok" if mode == 0o600 and saved["ckWebAuthToken"] else f"bad mode {oct(mode)}")
        except Exception as error:  # a torn or missing file
            seen.append(f"{type(error).__name__}")
    remember_token()
    control("settings", {"rotation": "invalidate"})
    return sorted(set(seen))


async def main():
    os.makedirs(ARGS.home, exist_ok=True)
    async with connect() as session:
        report["protocolVersion"] = session.protocol_version
        capabilities = getattr(session, "server_capabilities", None)
        if capabilities is not None and not isinstance(capabilities, dict):
            capabilities = capabilities.model_dump(by_alias=True, exclude_none=True)
        report["capabilities"] = capabilities if capabilities is not None else getattr(session, "capabilities", None)
        await exercise(session)
    if ARGS.crash_loop:
        # Signed in again for the crash loop (the expiry above ended the session).
        async with connect() as session:
            is_error, data = content(await session.call_tool("sign_in", {"waitSeconds": 60}))
            expect(not is_error and data.get("status") == "signed_in", "sign_in again", data)
        report["crashLoop"] = crash_loop(ARGS.crash_loop)
        async with connect() as session:
            is_error, data = content(await session.call_tool("get_me", {}))
            expect(not is_error, "get_me after the crash loop", data)
        # Whatever a kill left beside the file, the next write cleared away.
        report["leftovers"] = sorted(name for name in os.listdir(ARGS.home) if ".tmp-" in name)
    report["failures"] = failures
    print(json.dumps(report, ensure_ascii=False))
    sys.exit(1 if failures else 0)


asyncio.run(main())

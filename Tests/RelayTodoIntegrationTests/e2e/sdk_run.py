"""What the SDK scripts of this folder share: the emulator's control API, record field values as the app
writes them, the check counter, and the run itself (connect with the test's token through the official MCP
Python SDK, whichever line this interpreter has, exercise the tools, print one JSON line {"sdk", "checks",
"calls", "failures"}, exit 1 when a check failed)."""

from __future__ import annotations

import asyncio
import json
import pathlib
import sys
import urllib.request
from datetime import datetime
from importlib import metadata

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples"))  # the repository's examples/
from mcp_client import open_session, tool_result  # noqa: E402


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def text(value: str) -> dict:
    return {"value": value, "type": "STRING"}


def millis(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def stamp(iso: str) -> dict:
    return {"value": millis(iso), "type": "TIMESTAMP"}


class Checks:
    """Counts checks and tool calls and keeps what failed."""

    def __init__(self, client):
        self.client = client
        self.failures: list[str] = []
        self.checks = 0
        self.calls = 0

    def expect(self, condition: bool, label: str, value=None) -> None:
        self.checks += 1
        if not condition:
            self.failures.append(f"{label}: {json.dumps(value, ensure_ascii=False, default=str)[:500]}")

    async def call(self, name: str, arguments: dict, client=None) -> tuple[bool, dict, str]:
        """Calls a tool (through `client`, or this run's); returns is_error, structuredContent and the first text,
        as either SDK line names them."""
        self.calls += 1
        is_error, data, texts = tool_result(await (client or self.client).call_tool(name, arguments))
        return is_error, data or {}, (texts[0] if texts else "")

    async def ok(self, name: str, arguments: dict, label: str) -> dict:
        """Calls a tool that must succeed; returns its structuredContent."""
        is_error, data, message = await self.call(name, arguments)
        self.expect(not is_error, f"{label}: {name} succeeds", message)
        return data


def main(mcp_url: str, token: str, exercise) -> None:
    """Runs `exercise(session)` (it returns its Checks) with the token as a bearer header; exits with the result."""

    async def session() -> int:
        async with open_session(mcp_url, None, headers={"Authorization": f"Bearer {token}"}) as session:
            checks = await exercise(session)
        report = {"sdk": metadata.version("mcp"), "checks": checks.checks, "calls": checks.calls,
                  "failures": checks.failures}
        print(json.dumps(report, ensure_ascii=False))
        return 1 if checks.failures else 0

    sys.exit(asyncio.run(session()))

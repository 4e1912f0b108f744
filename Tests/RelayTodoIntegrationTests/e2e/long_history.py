"""Issue 42 through the official MCP Python SDK (1.x or 2.x, whichever this interpreter has): an account whose
5 live to-dos sit among hundreds of soft-deleted ones (the Swift test seeds it and sets where the emulator puts
records without the sort field: first, last or left out). `list_todos` (twice: the second without the Account
lookup) and `search` list every live one and say they are complete; `structuredContent` and the text agree.
Prints one JSON line {"sdk", "checks", "calls", "failures"}.

    python long_history.py MCP_URL TOKEN
"""

from __future__ import annotations

import json
import sys

import sdk_run
from sdk_run import Checks, tool_result

MCP_URL, TOKEN = sys.argv[1:3]
LIVE = [f"live{index:04d}" for index in range(5)]


async def exercise(client) -> Checks:
    run = Checks(client)

    async def call(name: str, arguments: dict) -> dict:
        run.calls += 1
        result = await client.call_tool(name, arguments)
        is_error, structured, _ = tool_result(result)
        structured = structured or {}
        run.expect(not is_error, f"{name}: not an error", structured)
        document = json.loads(result.content[0].text) if result.content else None
        run.expect(document == structured, f"{name}: structuredContent says the same as the text", structured)
        return structured

    for attempt in ("first", "second"):
        listed = await call("list_todos", {})
        ids = [item.get("id") for item in listed.get("items", [])]
        run.expect(ids == LIVE, f"list_todos ({attempt}): every live one", ids)
        run.expect(listed.get("complete") is True and "warning" not in listed, f"list_todos ({attempt}): complete",
                   {key: listed.get(key) for key in ("complete", "warning")})

    found = await call("search", {"query": "water plants"})
    ids = [item.get("id") for item in found.get("results", [])]
    run.expect(ids[:5] == LIVE and not any(name.startswith("gone") for name in ids), "search: the live ones", ids)
    return run


if __name__ == "__main__":
    sdk_run.main(MCP_URL, TOKEN, exercise)

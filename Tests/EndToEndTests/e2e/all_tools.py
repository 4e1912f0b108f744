"""Every tool of the relay through the official MCP Python SDK (1.x or 2.x, whichever this
interpreter has), after the full OAuth flow (discovery, DCR, PKCE, consent, the emulator's Apple
sign-in, the callback, tokens) done by the example client's code.

    python all_tools.py URL APPLE_ID [--ca-file PEM] [--mode auto|legacy]

--mode is the 2.x SDK Client's: "auto" (the default) negotiates 2026-07-28 through server/discover,
"legacy" initializes a 2025-11-25 session; the 1.x SDK always initializes.

Checks each result and prints one JSON line: {"sdk", "protocolVersion", "tools", "iss" (from the
redirect back to the client), "calls", "failures"}. Exits 1 when a check failed; the failures say
which, and the Swift test shows them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from importlib import metadata

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples")
sys.path.insert(0, os.path.abspath(EXAMPLES))
from mcp_client import Callback, open_session, provider, tool_result  # noqa: E402

TOOLS = ["get_me", "list_todos", "search", "fetch", "add_todo", "update_todo", "complete_todo", "snooze_todo",
         "delete_todo", "add_todos", "complete_todos", "snooze_todos", "delete_todos", "undo"]


class Checks:
    def __init__(self):
        self.failures: list[str] = []
        self.calls: list[str] = []
        self.tools: list[str] = []

    def expect(self, condition: bool, message: str, value=None) -> None:
        if not condition:
            self.failures.append(f"{message}: {json.dumps(value, ensure_ascii=False)[:400]}")


def content(result) -> tuple[bool, dict]:
    """(is_error, structured content) of a tool result on either SDK line."""
    is_error, data, texts = tool_result(result)
    if data is None:
        try:
            data = json.loads(texts[0]) if texts else {}
        except ValueError:
            data = {"text": texts}
    return is_error, data


async def exercise(session, checks: Checks, tag: str) -> None:
    async def call(name: str, arguments: dict, expect_error: bool = False) -> dict:
        checks.calls.append(name)
        is_error, data = content(await session.call_tool(name, arguments))
        checks.expect(is_error == expect_error, f"{name} {arguments} is_error={is_error}", data)
        return data

    checks.tools = [tool.name for tool in (await session.list_tools()).tools]
    checks.expect(checks.tools == TOOLS, "tools/list", checks.tools)

    me = await call("get_me", {})
    checks.expect(len((me.get("today") or {}).get("date", "")) == 10, "get_me today", me)
    zone = me.get("timeZone")
    checks.expect(isinstance(zone, str) and zone, "get_me timeZone", me)

    # A one-off and a repeating to-do (Monday and Wednesday at 08:00, from Monday 2030-01-07).
    one = (await call("add_todo", {"title": f"Pay rent {tag}", "due": "2030-01-02T09:00", "notes": "by transfer"}))
    one_id = (one.get("todo") or {}).get("id")
    checks.expect(one_id and one["todo"]["due"] == "2030-01-02T09:00:00+00:00", "add_todo one-off", one)
    series = await call(
        "add_todo",
        {"title": f"Water plants {tag}", "due": "2030-01-07T08:00", "repeat": {"kind": "weekly", "weekdays": [2, 4]}},
    )
    series_todo = series.get("todo") or {}
    series_id = series_todo.get("id")
    checks.expect((series_todo.get("repeat") or {}).get("kind") == "weekly", "add_todo repeating: rule", series)
    checks.expect((series_todo.get("repeat") or {}).get("weekdays") == [2, 4], "add_todo repeating: weekdays", series)
    checks.expect("Monday" in (series_todo.get("repeatDescription") or ""), "add_todo repeating: words", series)

    listed = await call("list_todos", {"status": "all"})
    checks.expect([t["id"] for t in listed.get("items", [])] == [one_id], "list_todos items", listed)
    checks.expect([t["id"] for t in listed.get("repeating", [])] == [series_id], "list_todos repeating", listed)

    # ChatGPT's search and fetch: words in the title, then the whole to-do as a document.
    found = await call("search", {"query": f"RENT {tag}"})
    checks.expect([r.get("id") for r in found.get("results", [])] == [one_id], "search by words", found)
    document = await call("fetch", {"id": one_id})
    checks.expect(document.get("title") == f"Pay rent {tag}" and "by transfer" in (document.get("text") or ""),
                  "fetch the document", document)

    updated = await call("update_todo", {"id": one_id, "title": f"Pay the rent {tag}", "notes": None})
    changed = sorted(updated.get("changed", []))
    checks.expect(changed == ["changedAt", "notes", "title"], "update_todo changed", changed)
    checks.expect((updated.get("todo") or {}).get("notes") is None, "update_todo cleared notes", updated)

    snoozed = await call("snooze_todo", {"id": one_id, "until": "2030-01-02T10:30"})
    checks.expect(snoozed.get("snoozedUntil") == "2030-01-02T10:30:00+00:00", "snooze_todo one-off", snoozed)
    checks.expect(snoozed.get("occurrence") is None, "snooze_todo one-off has no occurrence", snoozed)

    done = await call("complete_todo", {"id": one_id})
    checks.expect((done.get("todo") or {}).get("status") == "done" and done.get("alreadyDone") is False,
                  "complete_todo one-off", done)
    again = await call("complete_todo", {"id": one_id})
    checks.expect(again.get("alreadyDone") is True, "complete_todo twice says alreadyDone", again)

    day = await call("complete_todo", {"id": series_id, "occurrenceDate": "2030-01-07"})
    occurrence = day.get("occurrence") or {}
    checks.expect(occurrence.get("date") == "2030-01-07" and occurrence.get("state") == "done",
                  "complete_todo one day of the series", day)
    checks.expect((day.get("todo") or {}).get("status") == "pending", "the series goes on", day)
    later = await call("snooze_todo", {"id": series_id, "occurrenceDate": "2030-01-09", "until": "2030-01-09T09:15"})
    checks.expect((later.get("occurrence") or {}).get("date") == "2030-01-09", "snooze_todo one day", later)
    checks.expect(later.get("snoozedUntil") == "2030-01-09T09:15:00+00:00", "snooze_todo series until", later)

    deleted = await call("delete_todo", {"id": one_id})
    checks.expect(deleted.get("deleted") is True and deleted.get("id") == one_id, "delete_todo", deleted)
    missing = await call("delete_todo", {"id": one_id}, expect_error=True)
    checks.expect("NOT_FOUND" in json.dumps(missing), "delete_todo twice is NOT_FOUND", missing)

    final = await call("list_todos", {"status": "all", "from": "2030-01-01", "to": "2030-01-31"})
    checks.expect(final.get("items") == [], "list_todos after delete", final)
    entries = final.get("repeating", [])
    states = sorted((o.get("date"), o.get("state")) for e in entries for o in e.get("occurrences", []))
    checks.expect([e.get("id") for e in entries] == [series_id], "list_todos keeps the series", final)
    checks.expect(states == [("2030-01-07", "done"), ("2030-01-09", "snoozed")], "list_todos occurrences", states)

    # Issue 44: undo brings the deleted one back; the batches answer per item and undo as one.
    restored = await call("undo", {"undo": deleted.get("undo", "")})
    checks.expect(restored.get("results") == [{"id": one_id, "ok": True}], "undo the delete", restored)
    batch = await call("add_todos", {"items": [{"title": f"Batch one {tag}", "due": "2030-01-03T09:00"},
                                               {"title": f"Batch two {tag}", "due": "2030-01-03T10:00"}]})
    ids = [r.get("id") for r in batch.get("results", []) if r.get("ok") is True]
    checks.expect(len(ids) == 2, "add_todos", batch)
    for name, arguments in [("complete_todos", {}), ("snooze_todos", {"until": "2030-01-04T09:00"}),
                            ("delete_todos", {})]:
        result = await call(name, {"ids": ids, **arguments})
        checks.expect([r.get("ok") for r in result.get("results", [])] == [True, True], name, result)
    gone = result
    back = await call("undo", {"undo": gone.get("undo", "")})
    checks.expect([r.get("ok") for r in back.get("results", [])] == [True, True], "undo the batch delete", back)
    stale = await call("undo", {"undo": batch.get("undo", "")})
    checks.expect([(r.get("error") or {}).get("code") for r in stale.get("results", [])] == ["CONFLICT", "CONFLICT"],
                  "the add's undo after later changes is refused", stale)
    relisted = await call("list_todos", {"status": "all", "from": "2030-01-01", "to": "2030-01-31"})
    checks.expect(sorted(t["id"] for t in relisted.get("items", [])) == sorted([one_id] + ids), "all back", relisted)


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("apple_id")
    parser.add_argument("--ca-file")
    parser.add_argument("--mode", default="auto")
    args = parser.parse_args()
    checks = Checks()
    callback = Callback(args.apple_id, cafile=args.ca_file)
    report = {"sdk": metadata.version("mcp")}
    async with open_session(args.url, provider(args.url, callback), cafile=args.ca_file, mode=args.mode) as session:
        report["protocolVersion"] = session.protocol_version
        await exercise(session, checks, tag=args.apple_id.split("@")[0])
    report["iss"] = callback.result[2] if callback.result else None
    report["tools"] = checks.tools
    report["calls"] = checks.calls
    report["failures"] = checks.failures
    print(json.dumps(report, ensure_ascii=False))
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

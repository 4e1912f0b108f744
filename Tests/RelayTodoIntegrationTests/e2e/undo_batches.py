"""Issue 44 through the official MCP Python SDK (1.x or 2.x, whichever this interpreter has): every write's undo
puts back the exact record (read back from the emulator's store), a stale undo is refused and changes nothing, a
forged, another person's or an expired handle is refused, and a batch of 25 adds is 25 records with a result each
that one undo removes.

    python undo_batches.py MCP_URL TOKEN EMULATOR_URL CLOCK_URL APPLE_ID OTHER_TOKEN

OTHER_TOKEN is another person's connection to the same relay. Prints one JSON line {"sdk", "checks", "calls",
"failures"}; exits 1 when a check failed.
"""

from __future__ import annotations

import json
import sys

import sdk_run
from mcp_client import open_session
from sdk_run import Checks, get, post, stamp, text

MCP_URL, TOKEN, EMULATOR, CLOCK, USER, OTHER = sys.argv[1:7]
CANARY = "CANARY-44-undo-title"


class Run(Checks):
    def set_clock(self, iso: str) -> None:
        post(CLOCK, {"now": iso})

    def seed(self, records: list[dict]) -> None:
        post(f"{EMULATOR}/control/users/{USER}/records", {"records": records})

    def stored(self, record_type: str) -> dict[str, dict]:
        listed = get(f"{EMULATOR}/control/users/{USER}/records?recordType={record_type}")["records"]
        return {record["recordName"]: record for record in listed}

    def fields(self, name: str, record_type: str = "Todo") -> dict:
        return self.stored(record_type).get(name, {}).get("fields", {})

    def app_todo(self, name: str, **extra) -> None:
        fields = {"title": text(CANARY), "notes": text("Canary notes"), "dueAt": stamp("2026-06-12T09:00:00+00:00"),
                  "timeZone": text("UTC"), "status": text("pending"), "source": text("app"), "sound": text("chime"),
                  "createdAt": stamp("2026-05-01T00:00:00+00:00"), "changedAt": stamp("2026-05-01T00:00:00+00:00")}
        fields.update(extra)
        self.seed([{"recordName": name, "recordType": "Todo", "fields": fields}])


DAILY = text(json.dumps({"kind": "daily", "interval": 1, "weekdays": [], "end": {"kind": "never"}},
                        separators=(",", ":")))


async def exact_undo(run: Run) -> None:
    """Each single write, then its undo: the stored record is the one before, field for field."""
    writes = [
        ("update_todo", {"title": "Renamed", "notes": None, "due": "2026-06-20T10:00", "sound": "harp"}),
        ("complete_todo", {}), ("snooze_todo", {"until": "2026-06-12T18:00"}), ("delete_todo", {}),
    ]
    for index, (tool, arguments) in enumerate(writes):
        name = f"exact-{index}"
        run.app_todo(name, snoozedUntil=stamp("2026-06-12T09:30:00+00:00"))
        before = run.fields(name)
        data = await run.ok(tool, {"id": name, **arguments}, tool)
        run.expect(run.fields(name) != before, f"{tool}: the write changed the record", data)
        run.expect(isinstance(data.get("undo"), str) and CANARY not in data["undo"], f"{tool}: sealed undo", data)
        undone = await run.ok("undo", {"undo": data.get("undo", "")}, f"{tool} undo")
        run.expect(undone.get("results") == [{"id": name, "ok": True}], f"{tool}: undo result", undone)
        run.expect(run.fields(name) == before, f"{tool}: the exact record is back", [before, run.fields(name)])

    # One day of a repeating to-do: the Occurrence the write created goes, one that existed comes back exactly.
    run.app_todo("rep", dueAt=stamp("2026-06-01T09:00:00+00:00"), repeatRule=DAILY)
    run.seed([{"recordName": "rep|2026-06-11", "recordType": "Occurrence",
               "fields": {"todoId": text("rep"), "date": text("2026-06-11"), "state": text("snoozed"),
                          "snoozedUntil": stamp("2026-06-11T10:00:00+00:00"),
                          "changedAt": stamp("2026-06-09T00:00:00+00:00")}}])
    days = {name: record.get("fields") for name, record in run.stored("Occurrence").items()}
    for arguments in [{"occurrenceDate": "2026-06-10"}, {"occurrenceDate": "2026-06-11"}]:
        data = await run.ok("complete_todo", {"id": "rep", **arguments}, "occurrence")
        await run.ok("undo", {"undo": data.get("undo", "")}, "occurrence undo")
    skipped = await run.ok("snooze_todo", {"id": "rep", "occurrenceDate": "2026-06-12", "until": "2026-06-13"},
                           "tomorrow")
    run.expect(skipped.get("snoozedUntil") is None, "tomorrow skips the day", skipped)
    await run.ok("undo", {"undo": skipped.get("undo", "")}, "tomorrow undo")
    now = {name: record.get("fields") for name, record in run.stored("Occurrence").items()}
    run.expect(now == days, "the days are as they were", now)


async def refusals(run: Run, other) -> None:
    run.app_todo("stale")
    data = await run.ok("update_todo", {"id": "stale", "title": "By the AI"}, "stale")
    fields = run.fields("stale")
    fields["title"] = text("By the app")
    run.seed([{"recordName": "stale", "recordType": "Todo", "fields": fields}])
    newer = run.stored("Todo")["stale"]
    is_error, refused, message = await run.call("undo", {"undo": data.get("undo", "")})
    run.expect(is_error and (refused.get("error") or {}).get("code") == "CONFLICT" and "title" in message,
               "a stale undo is refused naming what changed", refused)
    run.expect(run.stored("Todo")["stale"] == newer, "a stale undo changes nothing", run.stored("Todo")["stale"])

    run.app_todo("guarded")
    deleted = await run.ok("delete_todo", {"id": "guarded"}, "guarded")
    handle = deleted.get("undo", "")
    kept = run.stored("Todo")["guarded"]
    middle = len(handle) // 2
    forged = handle[:middle] + ("B" if handle[middle] == "A" else "A") + handle[middle + 1:]
    for label, attempt, client in [("forged", forged, None), ("truncated", handle[:-3], None),
                                   ("another person's", handle, other)]:
        is_error, refused, _ = await run.call("undo", {"undo": attempt}, client)
        error = refused.get("error") or {}
        run.expect(is_error and error.get("code") == "INVALID_ARGUMENT" and error.get("field") == "undo",
                   f"{label} handle refused", refused)
    run.set_clock("2026-06-11T12:00:01+00:00")
    is_error, refused, message = await run.call("undo", {"undo": handle})
    run.expect(is_error and "expired" in message, "an expired handle is refused", refused)
    run.expect(run.stored("Todo")["guarded"] == kept, "refused handles change nothing", run.stored("Todo")["guarded"])
    run.set_clock("2026-06-10T12:00:00+00:00")


async def batches(run: Run) -> None:
    items = [{"title": f"{CANARY} {index}", "due": "2026-06-12T08:00"} for index in range(25)]
    is_error, refused, message = await run.call("add_todos", {"items": items + [{"title": "26th"}]})
    run.expect(is_error and "at most 25" in message, "26 items are refused", refused)
    before = set(run.stored("Todo"))
    added = await run.ok("add_todos", {"items": items}, "25 adds")
    results = added.get("results", [])
    ids = [result.get("id") for result in results]
    run.expect(len(results) == 25 and all(result.get("ok") is True for result in results), "25 ok results", added)
    stored = run.stored("Todo")
    run.expect(set(stored) - before == set(ids), "25 records written", sorted(set(stored) - before))
    run.expect(all(stored[i]["fields"]["title"]["value"] == f"{CANARY} {n}" for n, i in enumerate(ids) if i in stored),
               "in order", ids)
    run.set_clock("2026-06-10T12:30:00+00:00")
    undone = await run.ok("undo", {"undo": added.get("undo", "")}, "batch undo")
    run.expect(len(undone.get("results", [])) == 25 and all(r.get("ok") for r in undone.get("results", [])),
               "the batch undo answers each", undone)
    removed = run.stored("Todo")
    run.expect(all(removed[i]["fields"].get("deletedAt") == stamp("2026-06-10T12:30:00+00:00") for i in ids),
               "one undo soft-deletes all 25", [removed[i]["fields"].get("deletedAt") for i in ids[:3]])
    listed = await run.ok("list_todos", {"status": "all"}, "after the batch undo")
    shown = {todo.get("id") for todo in listed.get("items", [])}
    run.expect(not shown & set(ids), "none of them is listed", sorted(shown & set(ids)))


async def exercise(client) -> Run:
    run = Run(client)
    run.set_clock("2026-06-10T12:00:00+00:00")
    await exact_undo(run)
    async with open_session(MCP_URL, None, headers={"Authorization": f"Bearer {OTHER}"}) as other:
        await refusals(run, other)
    await batches(run)
    return run


if __name__ == "__main__":
    sdk_run.main(MCP_URL, TOKEN, exercise)

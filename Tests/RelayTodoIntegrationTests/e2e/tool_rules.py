"""The to-do tools behave like the MustDo app (issue 22), driven by the official MCP Python SDK (1.x or 2.x,
whichever this interpreter has) against the relay's MCP endpoint, whose CloudKit is the emulator over HTTP.

    python tool_rules.py MCP_URL TOKEN EMULATOR_URL CLOCK_URL APPLE_ID

The Swift test (SDKToolRulesTests) serves the nine tools with a clock it lets this script set
(CLOCK_URL: POST {"now": ISO 8601}); records are seeded "as the app writes them" and read back through the
emulator's loopback control API. Each rule is tried on a DST weekend in New York and London and on the same
weekend in Tokyo (no DST). Prints one JSON line {"sdk", "checks", "calls", "failures"}; exits 1 when a check
failed.
"""

from __future__ import annotations

import json
import sys

import sdk_run
from sdk_run import Checks, get, millis, post, stamp, text

MCP_URL, TOKEN, EMULATOR, CLOCK, USER = sys.argv[1:6]

# Saturday, the Sunday the clocks change (Tokyo: an ordinary Sunday), Monday, the next Sunday; the UTC offset at
# 07:30 on the Saturday and on the Sunday; the skipped hour's quiet-hours end and the first minute after it.
WEEKENDS = [
    {"zone": "America/New_York", "sat": "2026-03-07", "sun": "2026-03-08", "mon": "2026-03-09",
     "next": "2026-03-15", "satOff": "-05:00", "sunOff": "-04:00", "gapEnd": "02:30", "gapUsed": "03:00"},
    {"zone": "Europe/London", "sat": "2026-03-28", "sun": "2026-03-29", "mon": "2026-03-30",
     "next": "2026-04-05", "satOff": "+00:00", "sunOff": "+01:00", "gapEnd": "01:30", "gapUsed": "02:00"},
    {"zone": "Asia/Tokyo", "sat": "2026-03-07", "sun": "2026-03-08", "mon": "2026-03-09",
     "next": "2026-03-15", "satOff": "+09:00", "sunOff": "+09:00", "gapEnd": None, "gapUsed": None},
]


class Run(Checks):
    # The relay: tool calls through the SDK (`Checks.call`, `Checks.ok`).
    async def refused(self, name: str, arguments: dict, code: str, field: str | None, label: str) -> str:
        is_error, data, message = await self.call(name, arguments)
        error = data.get("error") or {}
        self.expect(is_error and error.get("code") == code and error.get("field") == field,
                    f"{label}: {name} refused with {code} on {field}", data or message)
        return message

    # The emulator and the clock.
    def set_clock(self, iso: str) -> None:
        post(CLOCK, {"now": iso})

    def seed(self, records: list[dict]) -> None:
        post(f"{EMULATOR}/control/users/{USER}/records", {"records": records})

    def account(self, fields: dict) -> None:
        self.seed([{"recordName": "account", "recordType": "Account", "fields": fields}])

    def records(self, record_type: str) -> dict[str, dict]:
        listed = get(f"{EMULATOR}/control/users/{USER}/records?recordType={record_type}")["records"]
        return {record["recordName"]: record.get("fields", {}) for record in listed}

    def app_todo(self, name: str, due: str, zone: str, **extra) -> None:
        fields = {"title": text("From the app"), "dueAt": stamp(due), "timeZone": text(zone),
                  "status": text("pending"), "source": text("app"), "sound": text("chime"),
                  "createdAt": stamp("2026-01-01T00:00:00+00:00"), "changedAt": stamp("2026-01-01T00:00:00+00:00")}
        fields.update(extra)
        self.seed([{"recordName": name, "recordType": "Todo", "fields": fields}])


def rule(value: dict) -> dict:
    return text(json.dumps(value, separators=(",", ":")))


async def weekend_rules(run: Run, w: dict) -> None:
    zone, tag = w["zone"], w["zone"].split("/")[1].lower()
    sat = lambda time: f"{w['sat']}T{time}:00{w['satOff']}"  # noqa: E731
    sun = lambda time: f"{w['sun']}T{time}:00{w['sunOff']}"  # noqa: E731
    run.set_clock(sat("07:35"))
    run.account({"timeZone": text(zone), "defaultTime": text("06:00"), "quietHoursStart": text("22:00"),
                 "quietHoursEnd": text("07:00")})

    # get_me.defaultDueNext is what add_todo without due writes (06:00 is quiet: 07:00 on the DST Sunday).
    me = await run.ok("get_me", {}, zone)
    run.expect(me.get("defaultDueNext") == sun("07:00"), f"{zone}: defaultDueNext", me)
    run.expect(me.get("warnings") == [], f"{zone}: no warnings", me)
    added = await run.ok("add_todo", {"title": f"Default {tag}"}, zone)
    default_id = (added.get("todo") or {}).get("id")
    run.expect(run.records("Todo").get(default_id, {}).get("dueAt", {}).get("value") == millis(sun("07:00")),
               f"{zone}: add_todo without due writes defaultDueNext", added)

    # Bug 1: occurrence dates are checked (Sundays at 07:30 from the DST Sunday, three times).
    weekly = f"w-{tag}"
    run.app_todo(weekly, sun("07:30"), zone, repeatRule=rule(
        {"kind": "weekly", "interval": 1, "weekdays": [1], "end": {"kind": "count", "count": 3}}))
    message = await run.refused("complete_todo", {"id": weekly, "occurrenceDate": w["mon"]}, "INVALID_ARGUMENT",
                                "occurrenceDate", zone)
    run.expect(f"{w['sun']} and {w['next']}" in message, f"{zone}: names the nearest occurrences", message)
    message = await run.refused("snooze_todo", {"id": weekly, "occurrenceDate": w["sat"], "until": sun("10:00")},
                                "INVALID_ARGUMENT", "occurrenceDate", zone)
    run.expect(f"first occurrence is {w['sun']}" in message, f"{zone}: names the first occurrence", message)
    run.expect(not any(name.startswith(weekly) for name in run.records("Occurrence")),
               f"{zone}: nothing written for refused days", run.records("Occurrence"))
    await run.ok("complete_todo", {"id": weekly, "occurrenceDate": w["sun"]}, zone)
    run.expect(run.records("Occurrence").get(f"{weekly}|{w['sun']}", {}).get("state", {}).get("value") == "done",
               f"{zone}: a real occurrence is written", run.records("Occurrence"))

    # Bug 3: "tomorrow" on a repeat (daily at 07:30 from the Saturday): a snooze to the next alarm skips today.
    daily = f"d-{tag}"
    run.app_todo(daily, sat("07:30"), zone, repeatRule=rule(
        {"kind": "daily", "interval": 1, "weekdays": [], "end": {"kind": "never"}}))
    snoozed = await run.ok("snooze_todo", {"id": daily, "until": f"{w['sun']}T07:29"}, zone)
    run.expect(snoozed.get("snoozedUntil") == sun("07:29"), f"{zone}: one minute before the next alarm snoozes",
               snoozed)
    skipped = await run.ok("snooze_todo", {"id": daily, "until": f"{w['sun']}T07:30"}, zone)
    run.expect(skipped.get("snoozedUntil") is None and (skipped.get("occurrence") or {}).get("state") == "skipped",
               f"{zone}: at the next alarm it skips", skipped)
    stored = run.records("Occurrence").get(f"{daily}|{w['sat']}", {})
    run.expect(stored.get("state", {}).get("value") == "skipped" and "snoozedUntil" not in stored,
               f"{zone}: the stored day is skipped", stored)

    # A snooze never rings before the alarm it postpones; done clears a pending snooze.
    one = await run.ok("add_todo", {"title": f"Call {tag}", "due": f"{w['sun']}T09:00"}, zone)
    one_id = (one.get("todo") or {}).get("id")
    await run.refused("snooze_todo", {"id": one_id, "until": f"{w['sun']}T08:00"}, "INVALID_ARGUMENT", "until", zone)
    await run.ok("snooze_todo", {"id": one_id, "until": f"{w['sun']}T09:30"}, zone)
    run.expect("snoozedUntil" in run.records("Todo")[one_id], f"{zone}: snooze stored", run.records("Todo")[one_id])
    await run.ok("complete_todo", {"id": one_id}, zone)
    done = run.records("Todo")[one_id]
    run.expect(done.get("status", {}).get("value") == "done" and "snoozedUntil" not in done,
               f"{zone}: done clears the snooze", done)

    # A done one-off made repeating is pending again, without completedAt.
    made = await run.ok("update_todo", {"id": one_id, "repeat": {"kind": "daily"}}, zone)
    run.expect(any("It was done" in notice for notice in made.get("notices", [])), f"{zone}: says it reopened", made)
    stored = run.records("Todo")[one_id]
    run.expect(stored.get("status", {}).get("value") == "pending" and "completedAt" not in stored,
               f"{zone}: repeat is pending", stored)

    # A first occurrence on an unlisted day moves to the next listed one (Mondays, asked on the Saturday).
    gym = await run.ok("add_todo", {"title": f"Gym {tag}", "due": f"{w['sat']}T08:00",
                                    "repeat": {"kind": "weekly", "weekdays": [2]}}, zone)
    actual = (gym.get("dueAligned") or {}).get("actual", "")
    run.expect(actual.startswith(f"{w['mon']}T08:00:00"), f"{zone}: dueAligned", gym)
    gym_id = (gym.get("todo") or {}).get("id")
    run.expect(run.records("Todo")[gym_id]["dueAt"]["value"] == millis(actual), f"{zone}: aligned due stored", gym)

    # A due time already past is kept, with a notice.
    late = await run.ok("add_todo", {"title": f"Late {tag}", "due": f"{w['sat']}T07:00"}, zone)
    run.expect(any("already past" in notice for notice in late.get("notices", [])), f"{zone}: past-due notice", late)

    # Bug 4: control characters are refused; nothing is written.
    before = run.records("Todo")
    await run.refused("add_todo", {"title": "Pay \u202etner"}, "INVALID_ARGUMENT", "title", zone)
    await run.refused("add_todo", {"title": "Pay", "notes": "by\u0000transfer"}, "INVALID_ARGUMENT", "notes", zone)
    await run.refused("update_todo", {"id": gym_id, "title": "Wake\u0007up"}, "INVALID_ARGUMENT", "title", zone)
    run.expect(run.records("Todo") == before, f"{zone}: control characters change nothing", None)
    await run.ok("update_todo", {"id": gym_id, "notes": "line one\nline two"}, zone)
    run.expect(run.records("Todo")[gym_id].get("notes", {}).get("value") == "line one\nline two",
               f"{zone}: notes keep line breaks", run.records("Todo")[gym_id])

    # A quiet-hours end inside the skipped hour: the message names the minute actually used.
    if w["gapEnd"]:
        run.account({"timeZone": text(zone), "quietHoursStart": text("23:00"), "quietHoursEnd": text(w["gapEnd"])})
        night = await run.ok("add_todo", {"title": f"Night {tag}", "due": f"{w['sat']}T23:30"}, zone)
        adjusted = night.get("quietHoursAdjusted") or {}
        run.expect(adjusted.get("actual") == sun(w["gapUsed"]) and f"moved to {w['gapUsed']}" in adjusted.get(
            "message", ""), f"{zone}: quiet-hours end in the gap", adjusted)

    # Bug 2: the app's verdict wins; no trial date does not mean yes when the app said no.
    run.account({"timeZone": text(zone), "canAddTodos": {"value": 0, "type": "INT64"}})
    me = await run.ok("get_me", {}, zone)
    run.expect(me.get("canAddTodos") is False, f"{zone}: canAddTodos 0 is reported", me)
    count = len(run.records("Todo"))
    await run.refused("add_todo", {"title": "Not allowed"}, "PAYMENT_REQUIRED", None, zone)
    run.expect(len(run.records("Todo")) == count, f"{zone}: nothing added", None)
    await run.ok("complete_todo", {"id": weekly, "occurrenceDate": w["next"]}, f"{zone}: done is never gated")


async def shared_rules(run: Run) -> None:
    run.set_clock("2026-06-10T12:00:00+00:00")
    # Account data the device wrote badly is reported.
    run.account({"timeZone": text("Mars/Olympus"), "defaultTime": text("25:99")})
    me = await run.ok("get_me", {}, "warnings")
    warnings = me.get("warnings", [])
    run.expect(len(warnings) == 2 and "Mars/Olympus" in warnings[0] and "25:99" in warnings[1], "get_me warnings", me)
    # Descriptions: the fifth Monday, 29 February, and a to-do zone other than the account's.
    run.account({"timeZone": text("Asia/Tokyo")})
    run.app_todo("fifth", "2026-03-30T08:00:00+01:00", "Europe/London", repeatRule=rule(
        {"kind": "monthly", "interval": 1, "weekdays": [], "monthly": {"mode": "weekdayOrdinal", "ordinal": 5,
                                                                       "weekday": 2}, "end": {"kind": "never"}}))
    listed = await run.ok("list_todos", {"status": "all"}, "descriptions")
    entry = next((e for e in listed.get("repeating", []) if e.get("id") == "fifth"), {})
    run.expect(entry.get("repeatDescription") == "on the fifth Monday of every month (skipped in months without a "
               "fifth Monday) at 08:00 (Europe/London time)", "fifth Monday description", entry)
    # A cursor used with other filters is refused.
    run.seed([{"recordName": f"bulk{index:03d}", "recordType": "Todo",
               "fields": {"title": text("Bulk"), "dueAt": stamp("2026-06-20T09:00:00+00:00"),
                          "status": text("pending"), "timeZone": text("UTC"), "source": text("app")}}
              for index in range(201)])
    first = await run.ok("list_todos", {"status": "all", "includeRepeating": False}, "cursor")
    cursor = first.get("nextCursor")
    run.expect(isinstance(cursor, str), "a second page exists", len(first.get("items", [])))
    if isinstance(cursor, str):
        await run.refused("list_todos", {"status": "pending", "cursor": cursor}, "INVALID_ARGUMENT", "cursor", "cursor")
        rest = await run.ok("list_todos", {"status": "all", "includeRepeating": False, "cursor": cursor}, "cursor")
        run.expect(len(rest.get("items", [])) > 0, "the same filters page on", rest)


async def exercise(client) -> Run:
    run = Run(client)
    for weekend in WEEKENDS:
        await weekend_rules(run, weekend)
    await shared_rules(run)
    return run


if __name__ == "__main__":
    sdk_run.main(MCP_URL, TOKEN, exercise)

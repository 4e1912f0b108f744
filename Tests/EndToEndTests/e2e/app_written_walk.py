"""The "just written" MCP Apps view in the test host (app_host.html, headless Chromium), with the real relay
(mustdo-relay-demo and its CloudKit emulator) behind it; run after app_host_walk.py against the same demo.

The account is put on New York's clock with quiet hours 22:00-02:00 (the Account record, as the app writes
it), then the host makes real writes and shows their results in the view named by the tool's
_meta.ui.resourceUri. Checks: the ring time shown is the one the relay resolved (quiet hours applied, a time
the clocks skip moved, a weekly repeat's first day aligned) and the view says why; the four buttons send
the Today view's calls and the emulator's stored record changes (Done last: then nothing rings and no button
is left); Undo appears only with an `undo` token and calls the `undo` tool with it (the host adds one when
the relay's result has none: issue 44 adds them); a read-only connection's view shows no button; no browser
storage. Screenshots en/ja x light/dark x phone/desktop.

    python3 app_written_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "clicks": {...}, "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import urllib.parse
import zoneinfo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from app_host_walk import APPLE_ID, PATIENCE, Host, call, emulator_records, set_account, wall  # noqa: E402
from browser_walk import SIZES, Walk, walk_arguments  # noqa: E402
from relay_flow import connect  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ZONE = "America/New_York"
BUTTONS = {"en": ["Done", "10 min", "1 h", "Tomorrow"], "ja": ["完了", "10分", "1時間", "明日"]}


def main() -> int:
    args = walk_arguments()
    relay, emulator = args.relay, args.emulator
    walk = Walk(relay, emulator, args.out)
    report: dict = {"runs": [], "clicks": {}, "failures": walk.failures}

    writer = connect(relay, APPLE_ID)  # the person signs in first: the emulator then knows them
    reader = connect(relay, APPLE_ID, scope="todos:read")
    set_account(emulator, APPLE_ID, {"timeZone": ZONE, "quietHoursStart": "22:00", "quietHoursEnd": "02:00"})
    token = writer["access_token"]
    zone = zoneinfo.ZoneInfo(ZONE)
    today = datetime.datetime.now(zone).date()
    host = Host(relay, {"writer": token, "reader": reader["access_token"]})

    def open_view(driver, tool: str, arguments: dict, language="en", theme="light", host_zone=ZONE, extra=""):
        query = urllib.parse.urlencode({"who": "writer", "lang": language, "theme": theme, "zone": host_zone,
                                        "date": today.isoformat(), "tool": tool, "args": json.dumps(arguments)})
        driver.get(f"{host.origin}/?{query}{extra}")
        WebDriverWait(driver, PATIENCE).until(lambda d: d.execute_script("return !!window.viewResource"))
        result = driver.execute_script("return window.toolResult")  # the host's copy: the view is another origin
        driver.switch_to.frame(driver.find_element(By.ID, "view"))
        WebDriverWait(driver, PATIENCE).until(lambda d: d.find_element(By.ID, "card").is_displayed())
        return result

    def shown(driver) -> dict:
        return driver.execute_script(
            "return {heading: document.getElementById('heading').textContent,"
            " time: document.getElementById('time').textContent, ring: document.getElementById('card').dataset.ring,"
            " text: document.querySelector('main').innerText,"
            " buttons: Array.from(document.querySelectorAll('button')).map(b => b.textContent),"
            " undo: document.querySelectorAll('button[data-action=undo]').length}")

    # Quiet hours: 23:30 tomorrow is inside them; the relay moves it to their end, 02:00 the day after.
    night = call(relay, token, "add_todo", {"title": "Take the night pills",
                                            "due": f"{today + datetime.timedelta(days=3)}T20:00"})["todo"]
    runs = 0
    for language in ("en", "ja"):
        for theme in ("light", "dark"):
            for size_name in SIZES:
                if walk.failures:  # a run that failed fails the next ones too, 30 s each: report it now
                    continue
                label = f"written-{language}-{theme}-{size_name}"
                # A new day each run: an update that changes nothing has nothing to say.
                runs += 1
                asked = f"{today + datetime.timedelta(days=runs)}T23:30"
                moved = f"{today + datetime.timedelta(days=runs + 1)}T02:00"
                driver = walk.browser(language, SIZES[size_name])
                try:
                    host_zone = ZONE if language == "en" else "Asia/Tokyo"
                    result = open_view(driver, "update_todo", {"id": night["id"], "due": asked}, language, theme,
                                       host_zone)
                    view = shown(driver)
                    adjusted = result["structuredContent"].get("quietHoursAdjusted") or {}
                    walk.expect(wall(datetime.datetime.fromisoformat(adjusted.get("actual", "1970-01-01T00:00Z")),
                                     zone) == moved, f"{label}: the relay did not move it: {result}")
                    walk.expect(view["ring"] == moved and view["time"] == "02:00", f"{label}: shows {view}")
                    walk.expect(view["heading"] == ("Updated" if language == "en" else "変更しました"), f"{label}: {view}")
                    said = "in quiet hours" if language == "en" else "おやすみ時間のため"
                    walk.expect(said in view["text"] and "23:30" in view["text"], f"{label}: no quiet hours note: {view}")
                    walk.expect(view["buttons"][:4] == BUTTONS[language], f"{label}: buttons {view['buttons']}")
                    walk.expect(view["undo"] == (1 if "undo" in result["structuredContent"] else 0),
                                f"{label}: Undo button without an undo token, or none with one: {view}")
                    if language == "ja":
                        walk.expect("MustDo の時計" in view["text"], f"{label}: no zone flag: {view['text']!r}")
                    storage = driver.execute_script("try { return localStorage.length } catch (e) { return 'blocked' }")
                    walk.expect(storage == "blocked", f"{label}: the view reached storage: {storage!r}")
                    driver.switch_to.default_content()
                    walk.snap(driver, label)
                    report["runs"].append({"label": label, "ring": view["ring"], "buttons": view["buttons"],
                                           "storage": storage})
                except Exception as error:  # noqa: BLE001
                    walk.failed(driver, label, error)
                finally:
                    driver.quit()
    stored = emulator_records(emulator, APPLE_ID, "Todo")[night["id"]]
    report["quietStored"] = stored["dueAt"]["value"]
    walk.expect(stored["dueAt"]["value"] == int(datetime.datetime.fromisoformat(moved).replace(tzinfo=zone).timestamp()
                                                * 1000), f"stored dueAt {stored['dueAt']} != {moved}")

    # A time the clocks skip (New York, 14 March 2027, 02:00-03:00: the first minute that exists, 03:00, rings)
    # and a weekly repeat's first day.
    driver = walk.browser("en", SIZES["phone"])
    try:
        open_view(driver, "update_todo", {"id": night["id"], "due": "2027-03-14T02:30"})
        view = shown(driver)
        report["gap"] = view["ring"]
        walk.expect(view["ring"] == "2027-03-14T03:00" and "clocks go forward" in view["text"], f"gap: {view}")
        driver.switch_to.default_content()
        walk.snap(driver, "written-en-light-phone-clock-change")
        monday = today + datetime.timedelta(days=(7 - today.weekday()) % 7 or 7)
        tuesday = monday + datetime.timedelta(days=1)
        open_view(driver, "add_todo", {"title": "Weekly review", "due": f"{tuesday}T08:00",
                                       "repeat": {"kind": "weekly", "weekdays": [2]}})
        view = shown(driver)
        report["aligned"] = view["ring"]
        walk.expect(view["ring"] == f"{monday + datetime.timedelta(days=7)}T08:00"
                    and "first day its rule lists" in view["text"] and "Repeats: every week on Monday" in view["text"],
                    f"aligned: {view}")
        driver.switch_to.default_content()
        walk.snap(driver, "written-en-light-phone-repeat")
        # Done on the repeat: that day's occurrence (the day shown), and the view moves to the next Monday.
        driver.switch_to.frame(driver.find_element(By.ID, "view"))
        first = monday + datetime.timedelta(days=7)
        driver.find_element(By.CSS_SELECTOR, 'button[data-action="done"]').click()
        WebDriverWait(driver, PATIENCE).until(lambda d: host.tool_calls("complete_todo")
                                              and shown(d)["ring"] == f"{first + datetime.timedelta(days=7)}T08:00")
        made = host.tool_calls("complete_todo")[-1]
        repeat_id = made["params"]["arguments"].get("id")
        occurrence = emulator_records(emulator, APPLE_ID, "Occurrence").get(f"{repeat_id}|{first}", {})
        report["repeatDone"] = [made["params"]["arguments"], occurrence.get("state", {}).get("value")]
        walk.expect(made["params"]["arguments"] == {"id": repeat_id, "occurrenceDate": first.isoformat()},
                    f"repeat done: call {made['params']}")
        walk.expect(occurrence.get("state", {}).get("value") == "done", f"repeat done: stored {occurrence}")
        walk.expect(f"Done for {first}" in shown(driver)["text"], f"repeat done: {shown(driver)}")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "rules", error)
    finally:
        driver.quit()

    # The view reads a repeat's next day from its rule (write results carry no "next"): for rules whose first
    # day is past, the ring it shows must be the relay's own next occurrence (fetch's metadata, RepeatSchedule).
    rules = [
        ("every 3 days", "2026-11-01T08:00", {"kind": "daily", "interval": 3}),
        ("every other Mon and Thu", "2026-10-05T08:00", {"kind": "weekly", "interval": 2, "weekdays": [2, 5]}),
        ("the 31st", "2026-01-31T08:00", {"kind": "monthly", "monthly": {"mode": "dayOfMonth"}}),
        ("last Friday", "2026-01-30T08:00", {"kind": "monthly", "monthly": {"mode": "weekdayOrdinal", "ordinal": -1,
                                                                             "weekday": 6}}),
        ("29 February", "2024-02-29T08:00", {"kind": "yearly"}),
        ("ended", "2026-10-05T08:00", {"kind": "weekly", "end": {"kind": "until", "until": "2026-11-01"}}),
        ("three times", "2026-01-15T08:00", {"kind": "monthly", "interval": 2, "end": {"kind": "count", "count": 3}}),
    ]
    report["rules"] = {}
    driver = walk.browser("en", SIZES["phone"])
    try:
        for title, due, rule in rules:
            result = open_view(driver, "add_todo", {"title": title, "due": due, "repeat": rule})
            view = shown(driver)
            driver.switch_to.default_content()
            fetched = call(relay, token, "fetch", {"id": result["structuredContent"]["todo"]["id"]})
            nxt = fetched["metadata"].get("nextOccurrence")
            relay_ring = wall(datetime.datetime.fromisoformat(nxt), zone) if nxt else ""
            report["rules"][title] = [view["ring"], relay_ring]
            walk.expect(view["ring"] == relay_ring, f"{title}: the view shows {view['ring']!r}, the relay's next "
                        f"occurrence is {relay_ring!r}")
            walk.expect(relay_ring or "nothing will ring" in view["text"], f"{title}: {view}")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "rules", error)
    finally:
        driver.quit()

    # The four buttons on one to-do, through the host to the relay, each checked in the emulator's record.
    due = (datetime.datetime.now(zone) + datetime.timedelta(hours=2)).replace(second=0, microsecond=0)
    if not 7 <= due.hour < 20:  # keep every snooze out of quiet hours: the meaning checked is the button's
        due = due.replace(hour=12, minute=0) + datetime.timedelta(days=1)
    driver = walk.browser("en", SIZES["desktop"])
    steps = []
    try:
        result = open_view(driver, "add_todo", {"title": "Stretch", "due": due.strftime("%Y-%m-%dT%H:%M")})
        todo_id = result["structuredContent"]["todo"]["id"]
        ring = due
        plan = [("m10", ring + datetime.timedelta(minutes=10))]
        plan.append(("h1", plan[-1][1] + datetime.timedelta(hours=1)))
        plan.append(("tomorrow", plan[-1][1] + datetime.timedelta(days=1)))
        for action, until in plan:
            before = len(host.tool_calls("snooze_todo"))
            button = driver.find_element(By.CSS_SELECTOR, f'button[data-action="{action}"]')
            button.send_keys("\n") if action == "h1" else button.click()  # one by keyboard
            WebDriverWait(driver, PATIENCE).until(
                lambda d: len(host.tool_calls("snooze_todo")) > before and shown(d)["ring"] == wall(until, zone))
            made = host.tool_calls("snooze_todo")[-1]
            record = emulator_records(emulator, APPLE_ID, "Todo")[todo_id]
            stored_until = record.get("snoozedUntil", {}).get("value")
            steps.append([action, made["params"]["arguments"], made["status"], stored_until])
            walk.expect(made["params"]["arguments"] == {"id": todo_id, "until": wall(until, zone)},
                        f"{action}: call {made['params']}")
            walk.expect(stored_until == int(until.timestamp() * 1000), f"{action}: stored {stored_until} != {until}")
        walk.expect(shown(driver)["heading"] == "Snoozed", f"after snoozes: {shown(driver)}")
        done_before = len(host.tool_calls("complete_todo"))
        driver.find_element(By.CSS_SELECTOR, 'button[data-action="done"]').click()
        WebDriverWait(driver, PATIENCE).until(lambda d: len(host.tool_calls("complete_todo")) > done_before
                                              and "nothing will ring" in shown(d)["text"])
        made = host.tool_calls("complete_todo")[-1]
        record = emulator_records(emulator, APPLE_ID, "Todo")[todo_id]
        steps.append(["done", made["params"]["arguments"], made["status"], record["status"]["value"]])
        walk.expect(made["params"]["arguments"] == {"id": todo_id}, f"done: call {made['params']}")
        walk.expect(record["status"]["value"] == "done", f"done: stored {record['status']}")
        after = shown(driver)
        walk.expect([b for b in after["buttons"] if b != "Undo"] == [], f"buttons after done: {after}")
        driver.switch_to.default_content()
        walk.snap(driver, "written-en-light-desktop-after")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "clicks", error)
    finally:
        driver.quit()
    report["clicks"]["steps"] = steps

    # Undo: the relay's own token when its result has one (issue 44), else one the host adds; either way the
    # view calls the undo tool with exactly that token, and a real one puts the record back.
    driver = walk.browser("en", SIZES["phone"])
    try:
        before = emulator_records(emulator, APPLE_ID, "Todo")[night["id"]]["dueAt"]["value"]
        result = open_view(driver, "update_todo", {"id": night["id"], "due": f"{today + datetime.timedelta(days=4)}T18:00"},
                           extra="&undo=inject")
        undo_token = result["structuredContent"]["undo"]
        driver.find_element(By.CSS_SELECTOR, 'button[data-action="undo"]').click()
        WebDriverWait(driver, PATIENCE).until(lambda d: host.tool_calls("undo") and not d.find_elements(
            By.CSS_SELECTOR, "button[disabled]"))
        made = host.tool_calls("undo")[-1]
        report["undo"] = {"arguments": made["params"]["arguments"], "injected": undo_token == "host-injected-undo-token",
                          "status": driver.find_element(By.ID, "status").get_attribute("textContent")}
        walk.expect(made["params"]["arguments"] == {"undo": undo_token}, f"undo call {made['params']}")
        if undo_token != "host-injected-undo-token":
            after = emulator_records(emulator, APPLE_ID, "Todo")[night["id"]]["dueAt"]["value"]
            walk.expect(after == before, f"undo left dueAt {after}, not {before}")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "undo", error)
    finally:
        driver.quit()

    # Read-only: the view on the reader's connection (its own _meta) shows no button at all.
    driver = walk.browser("en", SIZES["phone"])
    try:
        open_view(driver, "update_todo", {"id": night["id"], "due": f"{today + datetime.timedelta(days=20)}T23:30"},
                  extra="&as=reader&undo=inject")
        view = shown(driver)
        report["readOnlyButtons"] = len(view["buttons"])
        walk.expect(view["buttons"] == [] and "can only read" in view["text"], f"read-only: {view}")
        driver.switch_to.default_content()
        walk.snap(driver, "written-en-light-phone-read-only")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "read-only", error)
    finally:
        driver.quit()

    report["schema"] = host.schema_check()
    walk.expect(not report["schema"]["problems"], f"answers off the spec's schema: {report['schema']}")
    print(json.dumps(report, ensure_ascii=False))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

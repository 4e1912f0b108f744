"""A host for the MCP Apps view in headless Chromium, with the real relay (mustdo-relay-demo and its
CloudKit emulator) behind it. app_host.html is the host page: it lists the tools, calls list_todos,
reads the view named by the tool's _meta.ui.resourceUri with resources/read, runs it in an iframe
sandboxed without allow-same-origin, and answers the view's ui/initialize, tool-input/tool-result and
tools/call as the ext-apps specification (2026-01-26) says. Its back end (this script) forwards /mcp to
the relay with a real OAuth token, recording every call.

Checks: the view renders the real result; each of Done, 10 min, 1 h and Tomorrow sends the tool call the
app's button means and changes the stored record (read back through the relay with list_todos); a
read-only token shows no write button (and the relay still refuses a write with 403); no browser storage
is touched. Screenshots in English and Japanese, light and dark, phone and desktop.

    python3 app_host_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "clicks": {...}, "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import datetime
import http.server
import json
import os
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import zoneinfo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "RelayMCPTests", "e2e"))
from browser_walk import SIZES, Walk, walk_arguments  # noqa: E402
from spec_schema import problems  # noqa: E402
from relay_flow import connect, tool_call  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PATIENCE = 30
APPLE_ID = "app-host@example.com"


class Host:
    """The host's back end: serves app_host.html and forwards POST /mcp?who=… to the relay."""

    def __init__(self, relay: str, tokens: dict[str, str]):
        self.calls: list[dict] = []
        host = self
        page = open(os.path.join(HERE, "app_host.html"), "rb").read()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def do_POST(self):
                who = self.path.split("who=", 1)[1] if "who=" in self.path else "writer"
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                message = json.loads(body)
                request = urllib.request.Request(
                    relay + "/mcp", data=body, method="POST",
                    headers={"Authorization": "Bearer " + tokens[who], "Content-Type": "application/json",
                             "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        status, reply = response.status, response.read()
                except urllib.error.HTTPError as error:
                    status, reply = error.code, error.read() or b"{}"
                host.calls.append({"who": who, "method": message.get("method"), "params": message.get("params"),
                                   "status": status, "reply": json.loads(reply) if reply else None})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def schema_check(self) -> dict:
        """Every answer the relay gave the host (the 2025-11-25 revision it asked for), against the spec's
        published schema: {"validated": n, "problems": [...]}. Refusals without a JSON-RPC body (HTTP 403)
        are not MCP messages."""
        names = {"tools/list": "ListToolsResult", "tools/call": "CallToolResult",
                 "resources/read": "ReadResourceResult"}
        checked, wrong = 0, []
        for c in self.calls:
            if c["status"] != 200 or not c["reply"]:
                continue
            checked += 1
            wrong += [f"{c['method']}: {p}" for p in problems(c["reply"], names[c["method"]], "2025-11-25")]
        return {"validated": checked, "problems": wrong}

    def tool_calls(self, name: str) -> list[dict]:
        return [c for c in self.calls if c["method"] == "tools/call" and c["params"].get("name") == name]


def call(relay: str, token: str, name: str, arguments: dict) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode()
    request = urllib.request.Request(
        relay + "/mcp", data=body, method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
    with urllib.request.urlopen(request, timeout=30) as response:
        result = json.loads(response.read())["result"]
    if result.get("isError"):
        raise RuntimeError(f"{name} failed: {result['content'][0]['text']}")
    return result["structuredContent"]


def emulator_records(emulator: str, user: str, record_type: str) -> dict[str, dict]:
    """The records as the emulator (standing in for iCloud) stores them, by record name."""
    url = f"{emulator}/control/users/{urllib.parse.quote(user)}/records?zone=MustDo&recordType={record_type}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            listed = json.loads(response.read())["records"]
    except urllib.error.HTTPError as error:
        if error.code != 404:  # a zone nothing was written to yet holds nothing
            raise
        listed = []
    return {record["recordName"]: record.get("fields", {}) for record in listed}


def set_account(emulator: str, user: str, changes: dict[str, str]) -> None:
    """Writes the Account record's STRING fields as the app would (the others kept)."""
    fields = emulator_records(emulator, user, "Account").get("account", {})
    fields.update({name: {"value": value, "type": "STRING"} for name, value in changes.items()})
    body = json.dumps({"zone": "MustDo", "records": [{"recordName": "account", "recordType": "Account",
                                                      "fields": fields}]}).encode()
    request = urllib.request.Request(f"{emulator}/control/users/{urllib.parse.quote(user)}/records", data=body,
                                     method="POST", headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).read()


def wall(instant: datetime.datetime, zone: zoneinfo.ZoneInfo) -> str:
    return instant.astimezone(zone).strftime("%Y-%m-%dT%H:%M")


def main() -> int:
    args = walk_arguments()
    relay = args.relay
    walk = Walk(relay, args.emulator, args.out)
    report: dict = {"runs": [], "clicks": {}, "failures": walk.failures}

    writer = connect(relay, APPLE_ID)
    reader = connect(relay, APPLE_ID, scope="todos:read")
    me = call(relay, writer["access_token"], "get_me", {})
    zone = zoneinfo.ZoneInfo(me["timeZone"])
    # Four alarms three hours ahead, a minute apart, on one day of the account's clock.
    start = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=3)).replace(second=0, microsecond=0)
    day = start.astimezone(zone).date().isoformat()
    # Quiet hours set in the app (the Account record), two hours starting three hours after the alarms:
    # list_todos carries them and the view says them.
    quiet_start = (start + datetime.timedelta(hours=3)).astimezone(zone).strftime("%H:00")
    quiet_end = (start + datetime.timedelta(hours=5)).astimezone(zone).strftime("%H:00")
    report["quietHours"] = [quiet_start, quiet_end]
    titles = ["Take medicine", "Call the bank", "Water the plants", "Pay the rent"]
    added = []
    for index, title in enumerate(titles):
        due = wall(start + datetime.timedelta(minutes=index), zone)
        added.append(call(relay, writer["access_token"], "add_todo", {"title": title, "due": due})["todo"])
    set_account(args.emulator, APPLE_ID, {"quietHoursStart": quiet_start, "quietHoursEnd": quiet_end})
    host = Host(relay, {"writer": writer["access_token"], "reader": reader["access_token"]})

    def open_view(driver, who: str, language: str, theme: str, host_zone: str):
        url = f"{host.origin}/?who={who}&lang={language}&theme={theme}&date={day}&zone={host_zone}"
        driver.get(url)
        WebDriverWait(driver, PATIENCE).until(lambda d: d.execute_script("return !!window.viewResource"))
        frame = driver.find_element(By.ID, "view")
        driver.switch_to.frame(frame)
        WebDriverWait(driver, PATIENCE).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#list li")) >= 4)
        return frame

    # Screenshots: en/ja × light/dark × phone/desktop. Japanese runs use a host on another zone, so the
    # view flags that times are on the person's MustDo clock.
    for language in ("en", "ja"):
        for theme in ("light", "dark"):
            for size_name in SIZES:
                if walk.failures:  # a run that failed fails the next ones too, 30 s each: report it now
                    continue
                label = f"app-{language}-{theme}-{size_name}"
                driver = walk.browser(language, SIZES[size_name])
                try:
                    host_zone = me["timeZone"] if language == "en" else "America/Los_Angeles"
                    open_view(driver, "writer", language, theme, host_zone)
                    text = driver.find_element(By.TAG_NAME, "main").text
                    buttons = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#list li:first-child button")]
                    run = {"label": label, "buttons": buttons, "titles": [t for t in titles if t in text]}
                    storage = driver.execute_script(
                        "try { return localStorage.length } catch (e) { return 'blocked' }")
                    run["storage"] = storage
                    walk.expect(storage == "blocked", f"{label}: the view reached storage: {storage!r}")
                    walk.expect(run["titles"] == titles, f"{label}: view shows {text[:300]!r}")
                    expected = ["Done", "10 min", "1 h", "Tomorrow"] if language == "en" else ["完了", "10分", "1時間", "明日"]
                    walk.expect(buttons == expected, f"{label}: buttons {buttons}")
                    if language == "ja":
                        walk.expect("MustDo の時計" in text, f"{label}: no zone flag in {text[:300]!r}")
                    quiet = (f"Quiet hours {quiet_start}–{quiet_end}" if language == "en"
                             else f"おやすみ時間 {quiet_start}〜{quiet_end}")
                    walk.expect(quiet in text, f"{label}: no quiet hours {quiet!r} in {text[:300]!r}")
                    driver.switch_to.default_content()
                    walk.snap(driver, label)
                    report["runs"].append(run)
                except Exception as error:  # noqa: BLE001
                    walk.failed(driver, label, error)
                finally:
                    driver.quit()

    # Read-only: the same view with the reader's token shows no write button; the relay still refuses.
    driver = walk.browser("en", SIZES["phone"])
    try:
        open_view(driver, "reader", "en", "light", me["timeZone"])
        report["readOnlyButtons"] = len(driver.find_elements(By.TAG_NAME, "button"))
        walk.expect(report["readOnlyButtons"] == 0, f"read-only view shows {report['readOnlyButtons']} buttons")
        driver.switch_to.default_content()
        walk.snap(driver, "app-en-light-phone-read-only")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "read-only", error)
    finally:
        driver.quit()
    report["readOnlyWrite"] = tool_call(relay, reader["access_token"], "complete_todo", {"id": added[0]["id"]})
    walk.expect(report["readOnlyWrite"] == [403, "insufficient_scope"], f"read-only write: {report['readOnlyWrite']}")

    # The four buttons, one on each alarm, through the host to the relay.
    driver = walk.browser("en", SIZES["desktop"])
    try:
        open_view(driver, "writer", "en", "light", me["timeZone"])
        plan = [("done", added[0]), ("m10", added[1]), ("h1", added[2]), ("tomorrow", added[3])]
        for action, todo in plan:
            before = len(host.tool_calls("complete_todo")) + len(host.tool_calls("snooze_todo"))
            item = driver.find_element(By.CSS_SELECTOR, f'#list li[data-id="{todo["id"]}"]')
            button = item.find_element(By.CSS_SELECTOR, f'button[data-action="{action}"]')
            button.send_keys("\n") if action == "h1" else button.click()  # one by keyboard
            WebDriverWait(driver, PATIENCE).until(
                lambda d: len(host.tool_calls("complete_todo")) + len(host.tool_calls("snooze_todo")) > before
                and not d.find_elements(By.CSS_SELECTOR, "button[disabled]"))
        status = driver.find_element(By.ID, "status").text
        report["status"] = status
        driver.switch_to.default_content()
        walk.snap(driver, "app-en-light-desktop-after")
    except Exception as error:  # noqa: BLE001
        walk.failed(driver, "clicks", error)
    finally:
        driver.quit()

    due = [datetime.datetime.fromisoformat(todo["due"]) for todo in added]
    expected_calls = {
        "done": ("complete_todo", {"id": added[0]["id"]}),
        "m10": ("snooze_todo", {"id": added[1]["id"], "until": wall(due[1] + datetime.timedelta(minutes=10), zone)}),
        "h1": ("snooze_todo", {"id": added[2]["id"], "until": wall(due[2] + datetime.timedelta(hours=1), zone)}),
        "tomorrow": ("snooze_todo", {"id": added[3]["id"],
                                     "until": wall(due[3] + datetime.timedelta(days=1), zone)}),
    }
    made = [(c["params"]["name"], c["params"]["arguments"], c["status"]) for c in host.calls
            if c["method"] == "tools/call" and c["params"]["name"] in ("complete_todo", "snooze_todo")]
    report["clicks"]["made"] = made
    walk.expect([(n, a) for n, a, _ in made] == list(expected_calls.values()),
                f"tool calls {made} != {list(expected_calls.values())}")
    walk.expect(all(s == 200 for _, _, s in made), f"statuses {made}")

    # The stored records, read back through the relay (the emulator holds them).
    listed = call(relay, writer["access_token"], "list_todos",
                  {"from": day, "to": (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat(),
                   "status": "all"})
    stored = {todo["id"]: todo for todo in listed["items"]}
    report["clicks"]["stored"] = {todo["title"]: {k: stored.get(todo["id"], {}).get(k)
                                                  for k in ("status", "snoozedUntil")} for todo in added}
    walk.expect(stored[added[0]["id"]]["status"] == "done", f"done: {stored[added[0]['id']]}")
    for index, action in ((1, "m10"), (2, "h1"), (3, "tomorrow")):
        record = stored[added[index]["id"]]
        until = expected_calls[action][1]["until"]
        walk.expect(record["status"] == "pending" and record["snoozedUntil"]
                    and wall(datetime.datetime.fromisoformat(record["snoozedUntil"]), zone) == until,
                    f"{action}: stored {record} != {until}")
    report["schema"] = host.schema_check()
    walk.expect(not report["schema"]["problems"], f"answers off the spec's schema: {report['schema']}")
    print(json.dumps(report, ensure_ascii=False))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

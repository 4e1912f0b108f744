"""Headless Chromium walks issue 44's promises through Selenium, in English and Japanese at phone
and desktop widths: on the consent page the person picks how long the connection lives (1 day on a
phone, the default "until I end it" on a desktop); the app then makes real tool calls through the
relay (3 adds with a canary title, an update, 2 snoozes, a completion, a deletion); the connections
page, after Apple confirms, shows that connection's counts for today and its lifetime beside its
end button. A screenshot of the consent page and of the row.

    python3 activity_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "framing": {}, "failures": [...]}; each run names its canary
title and the record IDs the tools returned, so the caller can check the relay's store holds
neither. Exits 1 on a failure.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_walk import SIZES, walk_main  # noqa: E402
from connections_walk import PATIENCE, ConnectionsWalk  # noqa: E402
from relay_flow import mcp  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WORDS = {
    # (lifetime legend, 1-day choice, counts line, 1-day row, default row, connections title)
    "en": (
        "Keep this connection",
        "1 day",
        "added 3 · completed 1 · snoozed 2 · deleted 1 · updated 1",
        "Lasts: 1 day (until ",
        "Lasts: until you end it (at the latest until ",
        "What it did in the last 30 days",
    ),
    "ja": (
        "この接続の期間",
        "1 日間",
        "追加 3 · 完了 1 · スヌーズ 2 · 削除 1 · 更新 1",
        "期間: 1 日間 (",
        "期間: 解除するまで (最長 ",
        "過去 30 日間にしたこと",
    ),
}


def call(relay: str, token: str, name: str, arguments: dict) -> dict:
    """structuredContent of one successful tools/call (raises otherwise)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode()
    status, error, payload = mcp(relay, "/mcp", ["Bearer " + token], body)
    if status != 200 or payload["result"].get("isError"):
        raise RuntimeError(f"{name}: {status} {error} {payload}")
    return payload["result"]["structuredContent"]


class ActivityWalk(ConnectionsWalk):
    def connect_choosing(self, driver, client_id: str, apple_id: str, label: str, one_day: bool, legend: str) -> dict:
        """The consent page with the lifetime choice (1 day, or left at its default), Apple's
        sign-in, and the code exchange; returns the token response."""
        self.client_id = client_id
        url, state, verifier = self.authorization()
        driver.get(url)
        self.page_checks(driver, f"{label} consent", None)
        self.expect(legend in driver.find_element(By.TAG_NAME, "main").text, f"{label}: no lifetime choice")
        default = driver.find_element(By.CSS_SELECTOR, 'input[name=lifetime][value="until-ended"]')
        self.expect(default.is_selected(), f"{label}: 'until I end it' is not preselected")
        button = driver.find_element(By.CSS_SELECTOR, "button[value=continue]")
        # On a phone the button stays on the first screen; the lifetime choice follows it.
        bottom = driver.execute_script("return arguments[0].getBoundingClientRect().bottom", button)
        height = driver.execute_script("return window.innerHeight")
        self.expect(bottom <= height, f"{label}: Continue is below the first screen ({bottom} > {height})")
        if one_day:
            choice = driver.find_element(By.CSS_SELECTOR, 'input[name=lifetime][value="1d"]')
            choice.find_element(By.XPATH, "./ancestor::label").click()
            self.expect(choice.is_selected(), f"{label}: the 1-day choice did not stay selected")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", default)
        self.snap(driver, f"{label}-0-consent")
        button.click()
        self.sign_in(driver, apple_id, label)
        WebDriverWait(driver, **PATIENCE).until(lambda d: d.current_url.startswith(self.catcher.origin + "/callback"))
        back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
        self.expect(back.get("state") == state, f"{label}: redirect {back}")
        form = {
            "grant_type": "authorization_code",
            "code": back.get("code", ""),
            "redirect_uri": self.catcher.origin + "/callback",
            "client_id": client_id,
            "code_verifier": verifier,
            "resource": self.relay + "/mcp",
        }
        return self.post("/token", urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded")

    def act(self, token: str, canary: str) -> list[str]:
        """Real writes through the relay; returns the record IDs they made."""
        ids = []
        for index in range(3):
            added = call(self.relay, token, "add_todo", {"title": f"{canary} {index}", "due": "2030-01-02T09:00"})
            ids.append(added["todo"]["id"])
        call(self.relay, token, "update_todo", {"id": ids[0], "title": f"{canary} renamed"})
        call(self.relay, token, "snooze_todo", {"id": ids[0], "until": "2030-01-02T10:30"})
        call(self.relay, token, "snooze_todo", {"id": ids[1], "until": "2030-01-02T10:30"})
        call(self.relay, token, "complete_todo", {"id": ids[2]})
        call(self.relay, token, "delete_todo", {"id": ids[1]})
        call(self.relay, token, "list_todos", {})  # a read counts nothing
        return ids

    def run(self, language: str, size_name: str) -> dict:
        label = f"act-{language}-{size_name}"
        apple_id = f"person-{label}@example.com"
        legend, _, counts, one_day_row, default_row, heading = WORDS[language]
        one_day = size_name == "phone"
        name = f"Busy Agent {language}-{size_name}"
        canary = f"Canary-{uuid.uuid4().hex}"
        driver = self.browser(language, SIZES[size_name])
        run = {"label": label, "canary": canary}
        try:
            client_id = self.register_app(name)
            tokens = self.connect_choosing(driver, client_id, apple_id, label, one_day, legend)
            run["ids"] = self.act(tokens["access_token"], canary)

            driver.get(self.relay + "/connections")
            self.page_checks(driver, f"{label} connections confirm", language)
            driver.find_element(By.CSS_SELECTOR, "main form button").click()
            self.sign_in(driver, apple_id, label + "-connections")
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.current_url == self.relay + "/connections")
            # The counts are written after each answer, off its path: a moment, then a reload.
            row = None
            for _ in range(20):
                row = self.row(driver, name)
                if row is not None and counts in row.text:
                    break
                time.sleep(0.5)
                driver.refresh()
            self.page_checks(driver, f"{label} connections", language)
            self.expect(row is not None, f"{label}: the app is not listed")
            if row is None:
                return run
            text = row.text
            run["row"] = text
            self.expect(heading in text, f"{label}: no activity heading: {text!r}")
            self.expect(counts in text, f"{label}: counts {counts!r} not in {text!r}")
            self.expect((one_day_row if one_day else default_row) in text, f"{label}: lifetime not shown: {text!r}")
            self.expect(canary not in driver.page_source, f"{label}: the page shows a to-do's title")
            for record in run["ids"]:
                self.expect(record not in driver.page_source, f"{label}: the page shows a record ID")
            # The end button is in the same card, right after the counts.
            self.expect(len(row.find_elements(By.CSS_SELECTOR, "button[value=end]")) == 1, f"{label}: no end button")
            driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", row)
            self.snap(driver, f"{label}-1-connections")
            run["oneDay"] = one_day
        except Exception as error:  # a missing element or a timeout: record it with where it happened
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run


def main() -> int:
    return walk_main(ActivityWalk, ActivityWalk.run, lambda walk: {}, WORDS)


if __name__ == "__main__":
    raise SystemExit(main())

"""Headless Chromium walks the person's side of MustDo Relay through Selenium, in English and
Japanese at phone and desktop widths: on the consent page the person picks "read only" for one app
(then a write tool is refused with 403 insufficient_scope and a read tool works) and allows a
second app everything; the connections page, after Apple confirms, lists both apps; ending one
refuses its token at once while the other still works; "End all" ends the rest. A screenshot of
every page, and a check that the connections page cannot be framed.

    python3 connections_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "framing": {...}, "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_walk import SIZES, Walk, walk_main  # noqa: E402
from relay_flow import tool_call  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# A page that is being replaced by the next one pulls its nodes from under a lookup: Chromium says
# "stale element" or, as seen under load, "unhandled inspector error" (a plain WebDriverException).
# A wait keeps asking through either; a page that never comes still fails at the timeout.
# Long: Chromium shares two cores with the relay and the test process.
PATIENCE = dict(timeout=30, ignored_exceptions=(StaleElementReferenceException, WebDriverException))

APPS = ("Reading Lamp", "Planner Pro")
WORDS = {
    # (read-only choice, connections title, "2 apps", "ended 1", "no app", "read only" on a row)
    "en": (
        "Only read your to-dos",
        "Your connected AI apps",
        "2 AI apps can use your MustDo to-dos.",
        "Ended 1 connection.",
        "No AI app can use your MustDo to-dos.",
        "May: Only read your to-dos",
    ),
    "ja": (
        "To-Do の閲覧のみ",
        "接続中の AI アプリ",
        "2 件の AI アプリが MustDo の To-Do を使えます。",
        "1 件の接続を解除しました。",
        "MustDo の To-Do を使える AI アプリはありません。",
        "できること: To-Do の閲覧のみ",
    ),
}


class ConnectionsWalk(Walk):
    def register_app(self, name: str) -> str:
        body = {
            "client_name": name,
            "redirect_uris": [self.catcher.origin + "/callback"],
            "token_endpoint_auth_method": "none",
        }
        return self.post("/register", json.dumps(body).encode(), "application/json")["client_id"]

    def connect(self, driver, client_id: str, apple_id: str, label: str, read_only: bool) -> dict:
        """The consent page as a person uses it (choosing read only when asked), Apple's sign-in,
        and the client's code exchange; returns the token response."""
        self.client_id = client_id
        url, state, verifier = self.authorization()
        driver.get(url)
        self.page_checks(driver, f"{label} consent", None)
        if read_only:
            choice = driver.find_element(By.CSS_SELECTOR, 'input[name=scope][value="todos:read"]')
            # The label is the target a person taps: the whole card.
            choice.find_element(By.XPATH, "./ancestor::label").click()
            self.expect(choice.is_selected(), f"{label}: the read-only choice did not stay selected")
            self.snap(driver, f"{label}-1-consent-read-only")
        driver.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
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

    def row(self, driver, name: str):
        for section in driver.find_elements(By.CSS_SELECTOR, "main section.card"):
            if name in section.find_element(By.TAG_NAME, "h2").text:
                return section
        return None

    def run(self, language: str, size_name: str) -> dict:
        label = f"conn-{language}-{size_name}"
        apple_id = f"person-{label}@example.com"
        read_only_word, title, two_apps, ended_one, no_app, row_read_only = WORDS[language]
        reader_id, full_id = (self.register_app(f"{name} {language}-{size_name}") for name in APPS)
        reader_name, full_name = (f"{name} {language}-{size_name}" for name in APPS)
        driver = self.browser(language, SIZES[size_name])
        run = {"label": label}
        try:
            driver.get(self.authorization()[0])  # any consent page, for its text
            self.snap(driver, f"{label}-0-consent")
            self.expect(read_only_word in driver.find_element(By.TAG_NAME, "main").text, f"{label}: no read-only choice")
            reader = self.connect(driver, reader_id, apple_id, label + "-reader", read_only=True)
            run["readerScope"] = reader.get("scope")
            self.expect(reader.get("scope") == "todos:read", f"{label}: read-only token scope {reader.get('scope')!r}")
            write = tool_call(self.relay, reader["access_token"], "add_todo", {"title": "must not exist"})
            read = tool_call(self.relay, reader["access_token"], "list_todos")
            run["readerWrite"], run["readerRead"] = write, read
            self.expect(write == [403, "insufficient_scope"], f"{label}: a write with a read-only token: {write}")
            self.expect(read == [200, None], f"{label}: a read with a read-only token: {read}")
            full = self.connect(driver, full_id, apple_id, label + "-full", read_only=False)
            self.expect(full.get("scope") == "todos:read todos:write", f"{label}: full scope {full.get('scope')!r}")

            driver.get(self.relay + "/connections")
            self.snap(driver, f"{label}-2-confirm")
            self.page_checks(driver, f"{label} connections confirm", language)
            before = driver.find_element(By.TAG_NAME, "main").text
            self.expect(reader_name not in before and full_name not in before, f"{label}: listed before Apple confirmed")
            driver.find_element(By.CSS_SELECTOR, "main form button").click()
            self.sign_in(driver, apple_id, label + "-connections")
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.current_url == self.relay + "/connections")
            self.snap(driver, f"{label}-3-list")
            self.page_checks(driver, f"{label} connections", language)
            listed = driver.find_element(By.TAG_NAME, "main").text
            run["listed"] = listed
            self.expect(title in driver.find_element(By.TAG_NAME, "h1").text, f"{label}: connections title")
            self.expect(two_apps in listed, f"{label}: not two apps: {listed[:300]!r}")
            reader_row, full_row = self.row(driver, reader_name), self.row(driver, full_name)
            self.expect(reader_row is not None and full_row is not None, f"{label}: a row is missing")
            if reader_row is None or full_row is None:
                return run
            self.expect(row_read_only in reader_row.text, f"{label}: reader row: {reader_row.text!r}")
            self.expect("127.0.0.1:" in reader_row.text, f"{label}: no redirect host: {reader_row.text!r}")

            reader_row.find_element(By.CSS_SELECTOR, "button[value=end]").click()
            WebDriverWait(driver, **PATIENCE).until(lambda d: ended_one in d.find_element(By.TAG_NAME, "main").text)
            self.snap(driver, f"{label}-4-ended-one")
            self.page_checks(driver, f"{label} ended one", language)
            self.expect(self.row(driver, reader_name) is None, f"{label}: the ended app is still listed")
            gone = tool_call(self.relay, reader["access_token"], "list_todos")
            still = tool_call(self.relay, full["access_token"], "list_todos")
            run["endedOne"] = {"ended": gone, "other": still}
            self.expect(gone == [401, "invalid_token"], f"{label}: the ended app's token: {gone}")
            self.expect(still == [200, None], f"{label}: the other app's token: {still}")

            driver.find_element(By.CSS_SELECTOR, "button[value=end-all]").click()
            WebDriverWait(driver, **PATIENCE).until(lambda d: no_app in d.find_element(By.TAG_NAME, "main").text)
            self.snap(driver, f"{label}-5-ended-all")
            self.page_checks(driver, f"{label} ended all", language)
            after = tool_call(self.relay, full["access_token"], "list_todos")
            run["endedAll"] = after
            self.expect(after == [401, "invalid_token"], f"{label}: after End all: {after}")
        except Exception as error:  # a missing element or a timeout: record it with where it happened
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run

    def framing_connections(self) -> dict:
        """The connections page inside an iframe on another origin is blocked, with the headers
        that block it and keep it out of caches."""
        driver = self.browser("en", SIZES["desktop"])
        try:
            src = urllib.parse.urlencode({"src": self.relay + "/connections"})
            driver.get(self.catcher.origin + "/frame?" + src)
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.execute_script("return document.readyState") == "complete")
            driver.switch_to.frame(driver.find_element(By.ID, "f"))
            location = driver.execute_script("return location.href")
            driver.switch_to.default_content()
            self.snap(driver, "conn-frame")
        finally:
            driver.quit()
        headers, policy = self.page_headers(
            self.relay + "/connections", ("Content-Security-Policy", "X-Frame-Options", "Cache-Control"))
        self.expect("frame-ancestors 'none'" in policy, f"connections CSP: {policy}")
        self.expect(headers["X-Frame-Options"] == "DENY", f"connections X-Frame-Options: {headers}")
        self.expect(headers["Cache-Control"] == "no-store", f"connections Cache-Control: {headers}")
        self.expect(not location.startswith(self.relay), f"the connections page was framed: {location}")
        return {"location": location, "headers": headers}


def main() -> int:
    return walk_main(ConnectionsWalk, ConnectionsWalk.run, ConnectionsWalk.framing_connections, WORDS)


if __name__ == "__main__":
    raise SystemExit(main())

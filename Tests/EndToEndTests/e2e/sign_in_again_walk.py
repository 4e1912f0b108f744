"""Headless Chromium walks signing in to iCloud again for a connection whose CloudKit token died
(issue 39), through Selenium, in English and Japanese at phone and desktop widths: a person
connects an app; Apple ends the session (the emulator's control API, strict rotation); the app's
tool call answers SIGN_IN_REQUIRED with a link; the person opens it and signs in with ANOTHER Apple
Account (refused with a clear page, nothing changed); the connections page shows "needs iCloud
sign-in" with a "Sign in to iCloud again" button and no link (a link is made only when pressed); the
person presses it, lands on the link's page and signs in as themselves; the app's next tool call
works with the SAME access token; the spent link opens nothing.

    python3 sign_in_again_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "framing": {...}, "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_walk import SIZES, walk_main  # noqa: E402
from connections_walk import PATIENCE, ConnectionsWalk  # noqa: E402
from relay_flow import mcp, tool_call  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WORDS = {
    # (link page title, refusal title, connections state, signed in again title, connections button)
    "en": ("Sign in to iCloud again", "That is another Apple Account", "Needs iCloud sign-in", "Signed in again",
           "Sign in to iCloud again"),
    "ja": ("もう一度 iCloud にサインインしてください", "別の Apple アカウントです", "iCloud へのサインインが必要です", "サインインしました",
           "もう一度 iCloud にサインイン"),
}


def sign_in_link(relay: str, token: str) -> str | None:
    """The SIGN_IN_REQUIRED link of a tool call, or None."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "get_me", "arguments": {}}}).encode()
    status, _, payload = mcp(relay, "/mcp", ["Bearer " + token], body)
    if status != 200 or not payload["result"].get("isError"):
        return None
    error = (payload["result"].get("structuredContent") or {}).get("error", {})
    return error.get("signInURL") if error.get("code") == "SIGN_IN_REQUIRED" else None


class SignInAgainWalk(ConnectionsWalk):
    def expire(self, apple_id: str) -> None:
        request = urllib.request.Request(
            self.emulator + "/control/sessions/expire", data=json.dumps({"user": apple_id}).encode(),
            headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=15) as response:
            response.read()

    def heading(self, driver) -> str:
        return driver.find_element(By.TAG_NAME, "h1").text

    def run(self, language: str, size_name: str) -> dict:
        label = f"again-{language}-{size_name}"
        apple_id = f"person-{label}@example.com"
        link_title, other_title, waiting_word, done_title, button_word = WORDS[language]
        app_id = self.register_app(f"Again {language}-{size_name}")
        driver = self.browser(language, SIZES[size_name])
        run = {"label": label}
        try:
            tokens = self.connect(driver, app_id, apple_id, label, read_only=False)
            access = tokens["access_token"]
            self.expect(tool_call(self.relay, access, "get_me") == [200, None], f"{label}: the first call")
            self.expire(apple_id)
            link = sign_in_link(self.relay, access)
            run["waiting"] = link is not None
            self.expect(link is not None and "/reconnect?h=" in link, f"{label}: no link after the session ended")
            if link is None:
                return run

            # The link's page, then Apple's sign-in with another account: refused, nothing changes.
            driver.get(link)
            WebDriverWait(driver, **PATIENCE).until(lambda d: link_title in self.heading(d))
            self.snap(driver, f"{label}-1-link")
            self.page_checks(driver, f"{label} link page", language)
            driver.find_element(By.CSS_SELECTOR, "main form button").click()
            self.sign_in(driver, f"someone-else-{label}@example.com", label + "-other")
            WebDriverWait(driver, **PATIENCE).until(lambda d: other_title in self.heading(d))
            self.snap(driver, f"{label}-3-other-account")
            self.page_checks(driver, f"{label} other account", language)
            still = tool_call(self.relay, access, "get_me")
            run["afterOther"] = still
            self.expect(still == [200, "SIGN_IN_REQUIRED"], f"{label}: after another account: {still}")
            # The spent link opens nothing.
            driver.get(link)
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.find_element(By.TAG_NAME, "h1").text != "")
            run["replay"] = self.heading(driver)
            self.expect(link_title not in self.heading(driver), f"{label}: a spent link opened again")

            # The connections page says so, with a button and no link; pressing it makes the link and goes
            # to its page; the person signs in as themselves.
            driver.get(self.relay + "/connections")
            driver.find_element(By.CSS_SELECTOR, "main form button").click()
            self.sign_in(driver, apple_id, label + "-connections")
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.current_url == self.relay + "/connections")
            listed = driver.find_element(By.TAG_NAME, "main").text
            self.expect(waiting_word in listed, f"{label}: the connections page does not say it waits: {listed[:300]!r}")
            self.snap(driver, f"{label}-4-connections")
            self.page_checks(driver, f"{label} connections", language)
            shown_links = driver.find_elements(By.CSS_SELECTOR, "a[href*='/reconnect']")
            run["linksOnPage"] = len(shown_links)
            self.expect(not shown_links, f"{label}: the connections page shows a link before the button is pressed")
            button = driver.find_element(By.CSS_SELECTOR, "main section.card button[name=action][value=sign-in]")
            run["button"] = button.text
            self.expect(button_word == button.text, f"{label}: the button says {button.text!r}")
            button.click()
            WebDriverWait(driver, **PATIENCE).until(lambda d: link_title in self.heading(d))
            run["pressedTo"] = driver.current_url.split("?")[0]
            self.expect("/reconnect?h=" in driver.current_url, f"{label}: the button led to {driver.current_url}")
            self.page_checks(driver, f"{label} link page from the button", language)
            driver.find_element(By.CSS_SELECTOR, "main form button").click()
            self.sign_in(driver, apple_id, label + "-same")
            WebDriverWait(driver, **PATIENCE).until(lambda d: done_title in self.heading(d))
            self.snap(driver, f"{label}-5-signed-in-again")
            self.page_checks(driver, f"{label} signed in again", language)
            back = [tool_call(self.relay, access, "get_me"), tool_call(self.relay, access, "list_todos")]
            run["back"] = back
            self.expect(back == [[200, None], [200, None]], f"{label}: the same access token after signing in: {back}")
        except Exception as error:  # a missing element or a timeout: record it with where it happened
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run


def main() -> int:
    return walk_main(SignInAgainWalk, SignInAgainWalk.run, lambda walk: {}, WORDS)


if __name__ == "__main__":
    raise SystemExit(main())

"""Issue 37 in headless Chromium: no web page can sign a person in as someone else. For each place an
Apple sign-in comes back to (the OAuth consent callback, /connections and /disconnect on the relay, and
`mustdo-relay local sign-in`'s listener), the person starts in tab 1 and waits on Apple's (the emulator's)
sign-in page while the attacker, holding a valid web auth token for its own iCloud account, tries:

- navigation: a page on another site (another loopback address) sets `location.href` to the callback
  URL carrying the attacker's token, in another tab;
- window-open: a page on another site opens the callback URL with `window.open`;
- second-tab: the callback URL opened in a second tab of the same browser;

each must end on a clear refusal (in the page's language) that stores nothing. Then the person finishes
in tab 1 (the success page), and a replay of the callback afterwards is refused too. For the local
server the start link is also opened by a second browser first (refused: the first browser owns it),
and `MUSTDO_HOME/auth.json` must hold the person's session, never the attacker's. Phone-sized
screenshots of every refusal and success page.

    python3 tab_binding_walk.py --relay URL --emulator URL --out DIR [--local BINARY --local-emulator URL
        --callback-port PORT --home DIR]

Prints one JSON line {"runs": [...], "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_walk import SIZES, Walk, walk_arguments  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PATIENCE = dict(timeout=30, ignored_exceptions=(StaleElementReferenceException, WebDriverException))
ATTACKS = ("navigation", "window-open", "second-tab")
# The refusal's title on the relay's pages, and what the person's success page says.
REFUSAL = {"en": "start this sign-in", "ja": "このタブで始めたサインインではありません"}
SUCCESS = {
    "connections": {"en": "Your connected AI apps", "ja": "接続中の AI アプリ"},
    "disconnect": {"en": "Disconnected", "ja": "接続を解除しました"},
}
START = {
    "consent": ("/authorize", "button[value=continue]"),
    "connections": ("/connections", "form button"),
    "disconnect": ("/disconnect", "form button"),
}


class Attacker:
    """Another site, on another loopback address: a page that navigates its own tab to a URL, and one
    that opens a URL with window.open."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path)
                to = dict(urllib.parse.parse_qsl(parts.query)).get("to", "")
                target = json.dumps(to)
                if parts.path == "/nav":
                    script = f"location.href = {target};"
                elif parts.path == "/open":
                    script = f"window.open({target}, '_blank');"
                elif parts.path == "/opener":
                    # Keeps the handle, to steer the opened tab later.
                    script = f"window.__w = window.open({target}, '_blank');"
                else:
                    self.send_error(404)
                    return
                body = f"<!doctype html><title>A page on another site</title><h1>Totally unrelated</h1><script>{script}</script>"
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.2:{self.server.server_address[1]}"


class TabWalk(Walk):
    def __init__(self, relay: str, emulator: str, out: str):
        super().__init__(relay, emulator, out)
        self.attacker = Attacker()

    def token(self, emulator: str, apple_id: str) -> str:
        """A valid web auth token of `apple_id`'s own iCloud (the emulator's control API)."""
        user = urllib.parse.quote(apple_id, safe="")
        request = urllib.request.Request(f"{emulator}/control/users/{user}/sessions", data=b"", method="POST")
        with urllib.request.urlopen(request, timeout=15) as response:
            return json.loads(response.read())["webAuthToken"]

    @staticmethod
    def with_token(callback: str, token: str) -> str:
        value = urllib.parse.quote(token, safe="")
        return f"{callback}?ckWebAuthToken={value}&ckSession={value}"

    @staticmethod
    def main_text(driver) -> str:
        return driver.find_element(By.TAG_NAME, "main" if driver.find_elements(By.TAG_NAME, "main") else "body").text

    @staticmethod
    def phone(driver) -> None:
        """The phone's viewport for the current tab (the emulation is per tab)."""
        width, height = SIZES["phone"]
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})

    def attack(self, driver, start_tab: str, kind: str, url: str, done) -> tuple[str, str]:
        """One attack in a tab of its own; returns (final URL, page text) once `done(url)` holds."""
        driver.switch_to.window(start_tab)
        before = set(driver.window_handles)
        driver.switch_to.new_window("tab")
        self.phone(driver)
        if kind == "navigation":
            driver.get(self.attacker.origin + "/nav?" + urllib.parse.urlencode({"to": url}))
        elif kind == "window-open":
            opener = driver.current_window_handle
            driver.get(self.attacker.origin + "/open?" + urllib.parse.urlencode({"to": url}))
            WebDriverWait(driver, **PATIENCE).until(lambda d: len(d.window_handles) == len(before) + 2)
            popup = (set(driver.window_handles) - before - {opener}).pop()
            driver.switch_to.window(popup)
            self.phone(driver)
        else:
            driver.get(url)
        WebDriverWait(driver, **PATIENCE).until(lambda d: done(d.current_url) and d.find_elements(By.TAG_NAME, "h1"))
        result = (driver.current_url, self.main_text(driver))
        self.clean_history(driver, f"{kind} tab")
        return result

    def clean_history(self, driver, label: str) -> None:
        """No entry of this tab's history (back button, session restore) holds a web auth token: the callback
        page replaced its own URL before it posted."""
        entries = driver.execute_cdp_cmd("Page.getNavigationHistory", {})["entries"]
        ours = [entry["url"] for entry in entries if not entry["url"].startswith(self.attacker.origin)]
        leaked = [url[:80] for url in ours if "ckWebAuthToken" in url or "ckSession" in url]
        self.expect(not leaked, f"{label}: a token in the tab's history: {leaked}")

    def close_others(self, driver, start_tab: str) -> None:
        for handle in list(driver.window_handles):
            if handle != start_tab:
                driver.switch_to.window(handle)
                driver.close()
        driver.switch_to.window(start_tab)

    # -- The relay: the consent callback, /connections, /disconnect ---------------------------------------

    def relay_run(self, surface: str, language: str) -> dict:
        label = f"{surface}-{language}"
        run = {"label": label, "attacks": {}}
        driver = self.browser(language, SIZES["phone"])
        callback = self.relay + "/oauth/apple/callback"
        hits = len(self.catcher.hits)
        try:
            path, button = START[surface]
            if surface == "consent":
                url, state, _ = self.authorization()
                driver.get(url)
            else:
                driver.get(self.relay + path)
            self.snap(driver, f"{label}-0-start")
            self.page_checks(driver, f"{label} start", language)
            if surface == "consent":
                run["continueAboveFold"] = driver.execute_script(
                    "const b = document.querySelector('button[value=continue]').getBoundingClientRect();"
                    " return b.bottom <= window.innerHeight;")
            start_tab = driver.current_window_handle
            driver.find_element(By.CSS_SELECTOR, button).click()
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.find_elements(By.ID, "appleID"))
            token = self.token(self.emulator, f"mallory-{label}@example.com")
            for kind in ATTACKS:
                at, text = self.attack(
                    driver, start_tab, kind, self.with_token(callback, token), lambda u: "failed=" in u)
                code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(at).query)).get("failed")
                run["attacks"][kind] = code
                self.expect(code == "wrong_tab", f"{label} {kind}: ended on {at}")
                self.expect(REFUSAL[language] in text, f"{label} {kind}: no clear refusal: {text[:200]!r}")
                self.expect("ckWebAuthToken" not in at and token not in at, f"{label} {kind}: token in the address")
                self.expect(not any(c["name"].endswith("mdr-session") for c in driver.get_cookies()),
                            f"{label} {kind}: a connections session was opened")
                if kind == "navigation":
                    self.snap(driver, f"{label}-1-refused")
                    self.page_checks(driver, f"{label} refusal", language)
                    english = "Apple's sign-in came back" in text or "This tab did not" in text
                    self.expect(language == "en" or not english, f"{label}: English on the Japanese page: {text!r}")
                self.close_others(driver, start_tab)
            self.expect(len(self.catcher.hits) == hits, f"{label}: a code reached the client during the attacks")
            # The person finishes in the tab that started.
            self.sign_in(driver, f"person-{label}@example.com", label)
            if surface == "consent":
                WebDriverWait(driver, **PATIENCE).until(lambda d: d.current_url.startswith(self.catcher.origin))
                back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
                self.expect("code" in back and back.get("state") == state, f"{label}: redirect {back}")
                run["finished"] = "code" in back
            else:
                word = SUCCESS[surface][language]
                WebDriverWait(driver, **PATIENCE).until(lambda d: word in self.main_text(d))
                self.page_checks(driver, f"{label} success", language)
                run["finished"] = True
            self.snap(driver, f"{label}-2-success")
            self.clean_history(driver, f"{label} starting tab")
            # A replay of the callback in the same tab afterwards stores nothing either.
            driver.get(self.with_token(callback, token))
            WebDriverWait(driver, **PATIENCE).until(lambda d: "failed=" in d.current_url)
            run["replay"] = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query)).get("failed")
            self.expect(run["replay"] in ("binding_missing", "already_used", "wrong_tab"), f"{label}: replay {run}")
            self.expect(len(self.catcher.hits) == hits + (1 if surface == "consent" else 0), f"{label}: codes")
        except Exception as error:  # a missing element or a timeout: record it with where it happened
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run

    def opener_run(self, surface: str, language: str) -> dict:
        """Another site opens /connections (or /disconnect) itself and keeps the window handle; once the person
        has confirmed in that tab, the site points the handle at the callback with its own token. The page's
        Cross-Origin-Opener-Policy cut the handle, so the tab stays on Apple's page and the person finishes."""
        label = f"opener-{surface}-{language}"
        run = {"label": label}
        driver = self.browser(language, SIZES["phone"])
        try:
            attacker_tab = driver.current_window_handle
            driver.get(self.attacker.origin + "/opener?" + urllib.parse.urlencode({"to": self.relay + START[surface][0]}))
            WebDriverWait(driver, **PATIENCE).until(lambda d: len(d.window_handles) == 2)
            person_tab = [h for h in driver.window_handles if h != attacker_tab][0]
            driver.switch_to.window(person_tab)
            self.phone(driver)
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.find_elements(By.CSS_SELECTOR, START[surface][1]))
            driver.find_element(By.CSS_SELECTOR, START[surface][1]).click()
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.find_elements(By.ID, "appleID"))
            token = self.token(self.emulator, f"mallory-{label}@example.com")
            driver.switch_to.window(attacker_tab)
            run["steer"] = driver.execute_script(
                "const w = window.__w; if (!w || w.closed) return 'closed';"
                " try { w.location.href = arguments[0]; } catch (e) { return 'threw'; } return 'steered';",
                self.with_token(self.relay + "/oauth/apple/callback", token))
            self.expect(run["steer"] == "closed", f"{label}: the opener could steer the tab: {run}")
            driver.switch_to.window(person_tab)
            self.expect(bool(driver.find_elements(By.ID, "appleID")), f"{label}: the tab left Apple's page")
            self.sign_in(driver, f"person-{label}@example.com", label)
            word = SUCCESS[surface][language]
            WebDriverWait(driver, **PATIENCE).until(lambda d: word in self.main_text(d))
            run["finished"] = True
        except Exception as error:
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run

    # -- mustdo-relay local sign-in ---------------------------------------------------------------------

    def local_run(self, args, language: str) -> dict:
        label = f"local-{language}"
        run = {"label": label, "attacks": {}}
        home = os.path.join(args.home, language)
        os.makedirs(home, exist_ok=True)
        auth = os.path.join(home, "auth.json")
        environment = dict(os.environ)
        environment.update({
            "MUSTDO_CK_API_TOKEN": "test-api-token", "MUSTDO_CK_BASE_URL": args.local_emulator,
            "MUSTDO_CK_CONTAINER": "iCloud.test.mustdo", "MUSTDO_CK_ENV": "development", "MUSTDO_HOME": home,
            "MUSTDO_CALLBACK_PORT": args.callback_port, "MUSTDO_BROWSER": "none", "MUSTDO_LOG_LEVEL": "DEBUG",
        })
        process = subprocess.Popen(
            [args.local, "local", "sign-in", "--wait", "120"], env=environment, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        driver = self.browser(language, SIZES["phone"])
        second = None
        relay_emulator, self.emulator = self.emulator, args.local_emulator  # Apple's page is this emulator's
        try:
            link = None
            for line in process.stdout:
                match = re.search(r"(http://localhost:\d+/mustdo/sign-in\?n=\S+)", line)
                if match:
                    link = match.group(1)
                    break
            if link is None:
                raise RuntimeError("no start link printed")
            driver.get(link)
            WebDriverWait(driver, **PATIENCE).until(lambda d: d.find_elements(By.ID, "appleID"))
            start_tab = driver.current_window_handle
            # The same link in a second browser: refused, the first browser owns the attempt.
            second = self.browser(language, SIZES["phone"])
            second.get(link)
            WebDriverWait(second, **PATIENCE).until(lambda d: d.find_elements(By.ID, "result"))
            run["secondBrowser"] = second.find_element(By.ID, "result").get_attribute("data-result")
            self.expect(run["secondBrowser"] == "already-opened", f"{label}: second browser {run}")
            self.expect(not second.find_elements(By.ID, "appleID"), f"{label}: the second browser reached Apple")
            self.snap(second, f"{label}-0-already-opened")
            second.quit()
            second = None
            callback = f"http://localhost:{args.callback_port}/mustdo/callback"
            token = self.token(args.local_emulator, f"mallory-{label}@example.com")
            for kind in ATTACKS:
                at, text = self.attack(
                    driver, start_tab, kind, self.with_token(callback, token), lambda u: "/mustdo/done" in u)
                result = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(at).query)).get("result")
                run["attacks"][kind] = result
                self.expect(result == "wrong-tab", f"{label} {kind}: ended on {at}")
                self.expect("This tab did not start this sign-in" in text and "このタブで始めたサインインではありません" in text,
                            f"{label} {kind}: no clear refusal: {text[:200]!r}")
                self.expect(token not in at, f"{label} {kind}: token in the address")
                self.expect(not os.path.exists(auth), f"{label} {kind}: auth.json was written")
                if kind == "navigation":
                    self.snap(driver, f"{label}-1-refused")
                self.close_others(driver, start_tab)
            self.expect(process.poll() is None, f"{label}: the command ended during the attacks")
            self.sign_in(driver, f"person-{label}@example.com", label)
            WebDriverWait(driver, **PATIENCE).until(lambda d: "/mustdo/done" in d.current_url)
            run["finished"] = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query)).get("result")
            self.expect(run["finished"] == "signed-in", f"{label}: {run}")
            self.snap(driver, f"{label}-2-success")
            self.clean_history(driver, f"{label} starting tab")
            # A replay afterwards: "not started here" while the listener lingers, or nobody listening once the
            # command has ended; either way nothing changes.
            saved = open(auth).read() if os.path.exists(auth) else ""
            try:
                driver.get(self.with_token(callback, token))
                WebDriverWait(driver, **PATIENCE).until(lambda d: "/mustdo/done" in d.current_url)
                query = urllib.parse.urlsplit(driver.current_url).query
                run["replay"] = dict(urllib.parse.parse_qsl(query)).get("result")
            except WebDriverException as error:
                run["replay"] = "closed" if "ERR_CONNECTION_REFUSED" in str(error) else str(error)[:200]
            self.expect(run["replay"] in ("not-started-here", "closed"), f"{label}: replay {run}")
            out, err = process.communicate(timeout=30)
            run["exit"] = process.returncode
            self.expect(process.returncode == 0 and "Signed in" in out, f"{label}: the command said {out!r} {err[-300:]!r}")
            self.expect(saved and open(auth).read() == saved, f"{label}: auth.json changed after the replay")
            run["savedIsPerson"] = self.saved_is(args.local_emulator, saved, f"person-{label}@example.com")
            self.expect(run["savedIsPerson"], f"{label}: auth.json does not hold the person's session")
            self.expect(token not in out + err, f"{label}: the attacker's token in the command's output")
        except Exception as error:
            self.failed(driver, label, error)
        finally:
            self.emulator = relay_emulator
            driver.quit()
            if second is not None:
                second.quit()
            if process.poll() is None:
                process.kill()
                process.wait()
        return run

    def saved_is(self, emulator: str, saved: str, apple_id: str) -> bool:
        """Whether the saved session is `apple_id`'s: users/caller with it names that user's record."""
        token = json.loads(saved).get("ckWebAuthToken", "")
        user = urllib.parse.quote(apple_id, safe="")
        with urllib.request.urlopen(f"{emulator}/control/users/{user}", timeout=15) as response:
            record = json.loads(response.read()).get("userRecordName")
        query = urllib.parse.urlencode({"ckAPIToken": "test-api-token", "ckWebAuthToken": token})
        url = f"{emulator}/database/1/iCloud.test.mustdo/development/public/users/caller?{query}"
        try:
            with urllib.request.urlopen(url, timeout=15) as response:
                body = json.loads(response.read())
            caller = (body.get("users") or [body])[0]
            return caller.get("userRecordName") == record
        except urllib.error.HTTPError:
            return False


def main() -> int:
    args = walk_arguments("--local", "--local-emulator", "--callback-port", "--home")
    walk = TabWalk(args.relay, args.emulator, args.out)
    runs = []
    for language in ("en", "ja"):
        for surface in ("consent", "connections", "disconnect"):
            runs.append(walk.relay_run(surface, language))
        if args.local:
            runs.append(walk.local_run(args, language))
    for surface in ("connections", "disconnect"):
        runs.append(walk.opener_run(surface, "en"))
    print(json.dumps({"runs": runs, "failures": walk.failures}, ensure_ascii=False))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

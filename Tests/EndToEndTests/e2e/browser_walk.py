"""Headless Chromium walks the relay's pages as a person would, through Selenium: the consent page,
the emulator's Apple sign-in page, the callback (landing on a tiny local redirect-URI catcher) and
the disconnect page (confirmed through the same sign-in), in English and Japanese at phone and
desktop widths, with a screenshot of every page. It also checks that the consent page cannot be
framed and runs no script but its own (the tab-binding script allowed by its hash, issue 37), even
with a client name made of markup registered through DCR.

    python3 browser_walk.py --relay http://127.0.0.1:R --emulator http://127.0.0.1:E --out DIR

Prints one JSON line {"runs": [...], "framing": {...}, "failures": [...]}; exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import http.server
import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

# Markup that would run if the consent page put the name in unescaped (and its CSP let it run).
HOSTILE_NAME = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">Evil Notes'
SIZES = {"phone": (390, 844), "desktop": (1280, 900)}
WORDS = {
    # Words each page must show in its language: (consent button, disconnect title, the result).
    "en": ("Continue with Apple", "Disconnect", "Removed 1 connection."),
    "ja": ("Apple で続ける", "接続を解除", "1 件の接続を解除しました。"),
}
# What the consent page tells the person to do on Apple's page (Apple's label for the box in that language).
KEEP_SIGNED_IN = {"en": "tick “Keep me signed in”", "ja": "「サインインしたままにする」にチェック"}


class Catcher:
    """The client's side on loopback: the redirect URI, and pages that frame another URL."""

    def __init__(self):
        outer = self
        self.hits: list[dict] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parts.query))
                if parts.path == "/callback":
                    outer.hits.append(query)
                    body = "<!doctype html><title>Client</title><h1>Back at the client</h1><p>code received</p>"
                elif parts.path == "/frame":
                    src = html.escape(query["src"], quote=True)
                    body = f'<!doctype html><title>Frame</title><iframe id=f src="{src}" width=600 height=400></iframe>'
                else:
                    self.send_error(404)
                    return
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"


class Walk:
    def __init__(self, relay: str, emulator: str, out: str):
        self.relay = relay
        self.emulator = emulator
        self.out = out
        self.failures: list[str] = []
        self.started = time.monotonic()
        self.catcher = Catcher()
        self.client_id = self.register()

    def expect(self, condition, message: str) -> None:
        if not condition:
            self.failures.append(message)

    def post(self, path: str, data: bytes, content_type: str) -> dict:
        request = urllib.request.Request(self.relay + path, data=data, headers={"Content-Type": content_type})
        with urllib.request.urlopen(request, timeout=15) as response:
            return json.loads(response.read())

    def register(self) -> str:
        body = {
            "client_name": HOSTILE_NAME,
            "redirect_uris": [self.catcher.origin + "/callback"],
            "token_endpoint_auth_method": "none",
        }
        return self.post("/register", json.dumps(body).encode(), "application/json")["client_id"]

    def authorization(self) -> tuple[str, str, str]:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        state = secrets.token_urlsafe(16)
        query = urllib.parse.urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": self.catcher.origin + "/callback",
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "state": state,
                "scope": "todos:read todos:write",
                "resource": self.relay + "/mcp",
            }
        )
        return f"{self.relay}/authorize?{query}", state, verifier

    def progress(self, step: str) -> None:
        """A line on standard error as each step starts: when a walk runs past its test's time limit, the
        test's error shows the step it was on (the report itself is printed only at the end)."""
        print(f"[{time.monotonic() - self.started:6.1f} s] {step}", file=sys.stderr, flush=True)

    def browser(self, language: str, size: tuple[int, int]):
        self.progress(f"chromium {language} {size[0]}x{size[1]}")
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            options.add_argument(flag)
        options.add_argument(f"--lang={language}")
        options.add_argument("--hide-scrollbars")
        options.add_experimental_option("prefs", {"intl.accept_languages": f"{language},en;q=0.5"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(20)
        # The viewport, not the window, gets the size: what a phone of that width shows.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600},
        )
        return driver

    def failed(self, driver, label: str, error: Exception) -> None:
        """A walk that stopped: a screenshot, and the error with the page it happened on."""
        self.progress(f"{label} failed: {type(error).__name__}")
        self.snap(driver, f"{label}-error")
        self.failures.append(f"{label}: {type(error).__name__}: {str(error)[:300]} at {driver.current_url}")

    def snap(self, driver, name: str) -> None:
        driver.save_screenshot(os.path.join(self.out, name + ".png"))

    def page_checks(self, driver, label: str, language: str | None) -> None:
        """Every relay page: its language, no script but at most one inline tab-binding script (issue 37;
        the CSP allows it by hash only), no image, nothing wider than the screen."""
        state = driver.execute_script(
            "return {lang: document.documentElement.lang, scripts: document.scripts.length,"
            " external: Array.from(document.scripts).filter(s => s.src).length,"
            " binding: Array.from(document.scripts).filter(s => s.text.includes('mustdo-tab')).length,"
            " images: document.images.length, pwned: window.__pwned === undefined ? null : window.__pwned,"
            " overflow: document.documentElement.scrollWidth - window.innerWidth}"
        )
        if language is not None:
            self.expect(state["lang"] == language, f"{label}: lang is {state['lang']!r}, not {language!r}")
        only_binding = state["scripts"] <= 1 and state["external"] == 0 and state["binding"] == state["scripts"]
        self.expect(only_binding and state["images"] == 0, f"{label}: script or image elements: {state}")
        self.expect(state["pwned"] is None, f"{label}: injected script ran: {state}")
        self.expect(state["overflow"] <= 0, f"{label}: content wider than the viewport by {state['overflow']}px")

    def sign_in(self, driver, apple_id: str, label: str) -> None:
        WebDriverWait(driver, 30).until(expected_conditions.presence_of_element_located((By.ID, "appleID")))
        at = driver.current_url
        self.expect(at.startswith(self.emulator + "/IDMSWebAuth/auth"), f"{label}: not the sign-in page: {at}")
        driver.find_element(By.ID, "appleID").send_keys(apple_id)
        driver.find_element(By.ID, "password").send_keys("not checked")
        # As the consent page asked: the session then lasts two weeks, not 30 minutes.
        driver.find_element(By.NAME, "keepSignedIn").click()
        self.snap(driver, f"{label}-2-sign-in")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def connect_and_disconnect(self, language: str, size_name: str) -> dict:
        label = f"{language}-{size_name}"
        apple_id = f"browser-{label}@example.com"
        consent_word, disconnect_word, count_word = WORDS[language]
        driver = self.browser(language, SIZES[size_name])
        run = {"label": label}
        try:
            url, state, verifier = self.authorization()
            driver.get(url)
            self.snap(driver, f"{label}-1-consent")
            self.page_checks(driver, f"{label} consent", language)
            main = driver.find_element(By.TAG_NAME, "main").text
            self.expect(HOSTILE_NAME in main, f"{label}: the client name is not shown as text: {main[:300]!r}")
            self.expect(consent_word in main, f"{label}: consent page lacks {consent_word!r}")
            self.expect(KEEP_SIGNED_IN[language] in main, f"{label}: consent page does not say to keep signed in")
            driver.find_element(By.CSS_SELECTOR, "button[value=continue]").click()
            self.sign_in(driver, apple_id, label)
            WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(self.catcher.origin + "/callback"))
            self.snap(driver, f"{label}-3-callback")
            back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
            self.expect(back.get("state") == state and back.get("iss") == self.relay, f"{label}: redirect {back}")
            self.expect("code" in back, f"{label}: no code in {back}")
            tokens = self.post(
                "/token",
                urllib.parse.urlencode(
                    {
                        "grant_type": "authorization_code",
                        "code": back.get("code", ""),
                        "redirect_uri": self.catcher.origin + "/callback",
                        "client_id": self.client_id,
                        "code_verifier": verifier,
                        "resource": self.relay + "/mcp",
                    }
                ).encode(),
                "application/x-www-form-urlencoded",
            )
            self.expect(tokens.get("token_type") == "Bearer", f"{label}: token response {list(tokens)}")

            driver.get(self.relay + "/disconnect")
            self.snap(driver, f"{label}-4-disconnect")
            self.page_checks(driver, f"{label} disconnect", language)
            self.expect(disconnect_word in driver.find_element(By.TAG_NAME, "h1").text, f"{label}: disconnect title")
            driver.find_element(By.CSS_SELECTOR, "form button").click()
            self.sign_in(driver, apple_id, label + "-disconnect")
            WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(self.relay + "/oauth/apple/callback"))
            # The callback page POSTs (issue 37); the result is the page after it.
            WebDriverWait(driver, 30, ignored_exceptions=(Exception,)).until(
                lambda d: count_word in d.find_element(By.TAG_NAME, "main").text)
            self.snap(driver, f"{label}-5-disconnected")
            self.page_checks(driver, f"{label} disconnected", language)
            result = driver.find_element(By.TAG_NAME, "main").text
            run["disconnected"] = result
            self.expect(count_word in result, f"{label}: the result does not say how many: {result!r}")
        except Exception as error:  # a missing element or a timeout: record it with where it happened
            self.failed(driver, label, error)
        finally:
            driver.quit()
        return run

    @staticmethod
    def page_headers(url: str, names: tuple[str, ...]) -> tuple[dict, list[str]]:
        """The headers `names` of a page fetched without a browser, and its CSP's directives."""
        with urllib.request.urlopen(url, timeout=15) as response:
            headers = {name: response.headers.get(name) for name in names}
        policy = [part.strip() for part in (headers.get("Content-Security-Policy") or "").split(";")]
        return headers, policy

    def framing(self) -> dict:
        """The consent page inside an iframe on another origin is blocked; a page that allows
        framing (the emulator's) loads in the same frame, so the check can tell the two apart."""
        driver = self.browser("en", SIZES["desktop"])
        result = {}

        def loaded(d):
            return d.execute_script("return document.readyState") == "complete"

        try:
            targets = {"consent": self.authorization()[0], "control": self.emulator + "/IDMSWebAuth/auth?oauth_token=x"}
            for name, target in targets.items():
                driver.get(self.catcher.origin + "/frame?" + urllib.parse.urlencode({"src": target}))
                WebDriverWait(driver, 30).until(loaded)
                driver.switch_to.frame(driver.find_element(By.ID, "f"))
                WebDriverWait(driver, 30).until(loaded)
                text = driver.execute_script("return document.body ? document.body.innerText : ''")
                result[name] = {"location": driver.execute_script("return location.href"), "text": text[:120]}
                driver.switch_to.default_content()
                self.snap(driver, f"frame-{name}")
        finally:
            driver.quit()
        headers, policy = self.page_headers(self.authorization()[0], ("Content-Security-Policy", "X-Frame-Options"))
        result["headers"] = headers
        self.expect("default-src 'none'" in policy and "frame-ancestors 'none'" in policy, f"consent CSP: {policy}")
        scripts = [part for part in policy if part.startswith("script-src")]
        only_hash = len(scripts) == 1 and len(scripts[0].split()) == 2 and scripts[0].split()[1].startswith("'sha256-")
        self.expect(only_hash, f"consent CSP allows more than one script by hash: {policy}")
        self.expect(headers["X-Frame-Options"] == "DENY", f"consent X-Frame-Options: {headers}")
        self.expect(not result["consent"]["location"].startswith(self.relay), f"the consent page was framed: {result}")
        framed = result["control"]["location"].startswith(self.emulator)
        self.expect(framed, f"the control page was not framed: {result}")
        return result


def walk_arguments(*extra: str):
    """The command line every walk shares: --relay and --emulator (their URLs without a trailing slash), --out (the
    screenshot folder, made if missing), and the optional `extra` options."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--relay", required=True)
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--out", required=True)
    for option in extra:
        parser.add_argument(option)
    args = parser.parse_args()
    args.relay, args.emulator = args.relay.rstrip("/"), args.emulator.rstrip("/")
    os.makedirs(args.out, exist_ok=True)
    return args


def walk_main(make_walk, run, framing, languages) -> int:
    """The command line every walk shares (`walk_arguments`): `run(walk, language, size)` for each of `languages`
    and each window size, then `framing(walk)`; one JSON line; exit status 1 when a check failed."""
    args = walk_arguments()
    walk = make_walk(args.relay, args.emulator, args.out)
    runs = [run(walk, language, size) for language in languages for size in SIZES]
    print(json.dumps({"runs": runs, "framing": framing(walk), "failures": walk.failures}, ensure_ascii=False))
    return 1 if walk.failures else 0


def main() -> int:
    return walk_main(Walk, Walk.connect_and_disconnect, Walk.framing, WORDS)


if __name__ == "__main__":
    raise SystemExit(main())

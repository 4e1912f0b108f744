"""Issue 41 in headless Chromium: the registered impostor. Two clients register on the relay: one with a
known platform's callback (claude.ai's) and the name "Totally Not Evil", and an impostor that calls itself
"Claude" and returns to its own site. On a phone-sized screen, in English and Japanese, the first consent
page must show the platform's name ("Claude") as verified with its domain and never the claimed name; the
impostor's must lead with the host it returns to, mark the app unverified, show "Claude" only as a claim
(never in the verified form), and name that host on the button, which must show without scrolling.
Pressing the impostor's button must still lead to Apple's (the emulator's) sign-in page: an unverified
app is shown for what it is, not blocked.

    python3 impostor_walk.py --relay URL --emulator URL --out DIR

Prints one JSON line {"runs": [...], "failures": [...]}; exits 1 on a failure. Screenshots:
consent-verified-<lang>.png and consent-unverified-<lang>.png in DIR.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import sys
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_walk import SIZES, Walk, walk_arguments  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

IMPOSTOR_HOST = "claude-ai.example.org"
IMPOSTOR_REDIRECT = f"https://{IMPOSTOR_HOST}/api/mcp/auth_callback"
PLATFORM_REDIRECT = "https://claude.ai/api/mcp/auth_callback"
WORDS = {
    "en": {
        "verified": "Verified",
        "unverified": "Unverified app",
        "lead": f"An app that returns to {IMPOSTOR_HOST}",
        "claim": "It calls itself “Claude”",
        "button": f"Continue with Apple, then return to {IMPOSTOR_HOST}",
        "plain_button": "Continue with Apple",
    },
    "ja": {
        "verified": "確認済み",
        "unverified": "未確認のアプリ",
        "lead": f"{IMPOSTOR_HOST} に戻るアプリが",
        "claim": "「Claude」と名乗っていますが",
        "button": f"Apple で続ける（その後 {IMPOSTOR_HOST} に戻ります）",
        "plain_button": "Apple で続ける",
    },
}


class ImpostorWalk(Walk):
    def register(self) -> str:  # the base class registers its own client; this walk registers two below
        return ""

    @staticmethod
    def main_text(driver) -> str:
        return driver.find_element(By.TAG_NAME, "main" if driver.find_elements(By.TAG_NAME, "main") else "body").text

    def register_client(self, name: str, redirect: str) -> str:
        body = {"client_name": name, "redirect_uris": [redirect], "token_endpoint_auth_method": "none"}
        return self.post("/register", json.dumps(body).encode(), "application/json")["client_id"]

    def authorize_url(self, client_id: str, redirect: str) -> str:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode(
            {
                "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "state": "s",
                "code_challenge": challenge, "code_challenge_method": "S256",
            })
        return f"{self.relay}/authorize?{query}"

    def run(self, language: str) -> dict:
        words = WORDS[language]
        result: dict = {"language": language}
        platform = self.register_client("Totally Not Evil", PLATFORM_REDIRECT)
        impostor = self.register_client("Claude", IMPOSTOR_REDIRECT)
        driver = self.browser(language, SIZES["phone"])
        try:
            # Verified: the platform's name and domain, never the claimed name.
            driver.get(self.authorize_url(platform, PLATFORM_REDIRECT))
            main = self.main_text(driver)
            self.page_checks(driver, f"verified-{language}", language)
            self.expect(words["verified"] in main, f"{language}: the verified page does not say verified")
            self.expect("Claude" in main and "claude.ai" in main, f"{language}: no platform name and domain")
            self.expect("Totally Not Evil" not in main, f"{language}: the claimed name is shown as verified")
            button = driver.find_element(By.CSS_SELECTOR, "button[value=continue]")
            self.expect(button.text == words["plain_button"], f"{language}: verified button {button.text!r}")
            self.snap(driver, f"consent-verified-{language}")
            result["verified"] = main.splitlines()[:6]

            # The impostor: where it returns leads, the name is only a claim, the button names the host.
            driver.get(self.authorize_url(impostor, IMPOSTOR_REDIRECT))
            main = self.main_text(driver)
            self.page_checks(driver, f"unverified-{language}", language)
            lines = [line for line in main.splitlines() if line.strip()]
            lead_at = next((i for i, line in enumerate(lines) if words["lead"] in line), -1)
            claim_at = next((i for i, line in enumerate(lines) if words["claim"] in line), -1)
            self.expect(lead_at >= 0, f"{language}: the page does not lead with the return host: {lines[:4]}")
            self.expect(0 <= lead_at < claim_at, f"{language}: the claim comes before where it returns")
            self.expect(words["unverified"] in main, f"{language}: not marked unverified")
            self.expect(words["verified"] not in main.replace(words["unverified"], ""),
                        f"{language}: the impostor page says verified")
            strong = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "strong bdi")]
            self.expect("Claude" not in strong, f"{language}: 'Claude' shown in the verified form")
            button = driver.find_element(By.CSS_SELECTOR, "button[value=continue]")
            self.expect(button.text == words["button"], f"{language}: button {button.text!r}")
            rect = driver.execute_script("return arguments[0].getBoundingClientRect().bottom", button)
            self.expect(rect <= SIZES["phone"][1], f"{language}: the button is below the fold ({rect})")
            self.snap(driver, f"consent-unverified-{language}")
            result["unverified"] = lines[:8]
            result["button"] = button.text
            # Not blocked: the button leads to Apple's sign-in page.
            button.click()
            WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(self.emulator))
            result["signInReached"] = True
        except Exception as error:  # noqa: BLE001 - every failure is reported with its page
            self.failed(driver, f"impostor-{language}", error)
        finally:
            driver.quit()
        return result


def main() -> int:
    args = walk_arguments()
    walk = ImpostorWalk(args.relay, args.emulator, args.out)
    runs = [walk.run(language) for language in ("en", "ja")]
    print(json.dumps({"runs": runs, "failures": walk.failures}, ensure_ascii=False))
    return 1 if walk.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

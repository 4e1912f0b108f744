"""Plays the person's browser for `mustdo-relay local`'s sign-in, headlessly: the server runs it as its
MUSTDO_BROWSER with the start link as the last argument. It follows the whole real path: the local start
page (which sets the binding cookie and whose script keeps the tab's nonce, then goes to Apple), the
emulator's Apple sign-in page (an Apple ID typed in), the callback CloudKit sends the browser to (the
relay's bounce endpoint when one is configured), the bounce's 302 to localhost, the local callback page,
the POST its script makes with the tab's nonce, and the clean page it ends on.

    python local_browser.py JOURNAL APPLE_ID CA_FILE URL

CA_FILE is the CA the relay's https certificate comes from ("-" for the system's trust store).
JOURNAL gets one line per page visited, scheme://host:port/path and the status, never a query (the
test checks the route and that nothing secret needed writing down); JOURNAL.secrets gets the web auth
token the callback URL carried (for the test to look for in every log). Exits 0 when the last page says
"signed-in". Standard library only (examples/headless_sign_in.py's Browser).
"""

import html
import pathlib
import re
import sys
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples"))  # the repository's examples/
from headless_sign_in import Browser, _submit, follow_callback  # noqa: E402

JOURNAL, APPLE_ID, CA_FILE, URL = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def note(url, status):
    parts = urllib.parse.urlsplit(url)
    with open(JOURNAL, "a") as journal:
        journal.write(f"{status} {parts.scheme}://{parts.netloc}{parts.path}\n")


def main():
    browser = Browser(cafile=None if CA_FILE == "-" else CA_FILE)
    url = URL
    status, headers, page = browser.request(url)
    note(url, status)
    # The start page keeps the tab's nonce and sends the browser on to Apple's sign-in page (its script).
    start = re.search(r'id="go" data-tab="([^"]*)" data-next="([^"]*)"', page)
    if status != 200 or not start:
        raise SystemExit(f"no start page at the start link ({status})")
    browser.tab = start.group(1)
    url = html.unescape(start.group(2))
    status, headers, page = browser.request(url)
    note(url, status)
    if status != 200 or "appleID" not in page:
        raise SystemExit(f"no sign-in form at the end of the start link ({status})")
    target, (status, headers, page) = _submit(browser, url, page, {"appleID": APPLE_ID, "password": "x"}, None)
    note(target, status)
    url = target
    # Apple → (bounce →) localhost callback → the clean page.
    while status in (302, 303):
        url = browser.follow(url, headers["Location"])
        for key, values in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items():
            if key in ("ckWebAuthToken", "ckSession"):
                with open(JOURNAL + ".secrets", "a") as secrets:
                    secrets.write("\n".join(values) + "\n")
        if urllib.parse.urlsplit(url).path == "/mustdo/callback":
            # The callback page (200), then the POST its script makes with the tab's nonce.
            note(url, 200)
            url, (status, headers, page) = follow_callback(browser, url)
        else:
            status, headers, page = browser.request(url)
        note(url, status)
    if 'data-result="signed-in"' not in page:
        raise SystemExit(f"the sign-in did not end signed in ({status}): {page[:300]}")


main()

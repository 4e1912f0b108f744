"""Plays the browser through MustDo Relay's connect flow without a browser, for scripts and tests:
the consent page, the (emulated) Apple sign-in page, the callback, and the redirect back to the
client. Standard library only; cookies are kept per origin like a browser would, and one tab's
sessionStorage nonce as the pages' scripts keep it: the consent form's `data-tab`, sent back by the
callback page's POST (the relay binds Apple's callback to the tab that pressed Continue).

    code, state, iss = sign_in(authorization_url, "alice@example.com")
    code, state, iss = sign_in(authorization_url, "alice@example.com", cafile="test-ca.pem")  # private CA

Certificates are always verified: against the system's trust store, or against `cafile` when the
relay's certificate comes from a private CA (a test proxy). Never is verification turned off.
"""

from __future__ import annotations

import html.parser
import ssl
import urllib.error
import urllib.parse
import urllib.request


class _Form(html.parser.HTMLParser):
    """The first <form> of a page: action, hidden/text inputs and submit buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.tab: str | None = None
        self.fields: dict[str, str] = {}
        self.buttons: list[tuple[str, str]] = []
        self._in_form = False
        self._done = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and not self._done:
            self._in_form = True
            self.action = attributes.get("action") or ""
            self.tab = attributes.get("data-tab")
        elif self._in_form and tag == "input" and attributes.get("name"):
            if attributes.get("type") not in ("checkbox", "radio", "submit"):
                self.fields[attributes["name"]] = attributes.get("value") or ""
        elif self._in_form and tag == "button" and attributes.get("name"):
            self.buttons.append((attributes["name"], attributes.get("value") or ""))

    def handle_endtag(self, tag):
        if tag == "form" and self._in_form:
            self._in_form = False
            self._done = True


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """Just enough of a browser: GET/POST without following redirects, cookies per origin."""

    def __init__(self, cafile: str | None = None) -> None:
        handlers: list[urllib.request.BaseHandler] = [_NoRedirect]
        if cafile is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=cafile)))
        self._opener = urllib.request.build_opener(*handlers)
        self._cookies: dict[str, dict[str, str]] = {}
        self.visited: list[str] = []
        self.tab: str | None = None  # this tab's sessionStorage nonce

    @staticmethod
    def _origin(url: str) -> str:
        parts = urllib.parse.urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"

    def request(self, url: str, data: dict[str, str] | None = None, headers: dict[str, str] | None = None):
        self.visited.append(url)
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, method="POST" if data is not None else "GET")
        cookies = self._cookies.get(self._origin(url), {})
        if cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
        if data is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        request.add_header("Accept-Language", "en")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            response = self._opener.open(request, timeout=15)
        except urllib.error.HTTPError as error:  # 3xx and 4xx arrive here without redirects
            response = error
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            value = rest.split(";", 1)[0]
            jar = self._cookies.setdefault(self._origin(url), {})
            if "max-age=0" in header.lower():
                jar.pop(name.strip(), None)
            else:
                jar[name.strip()] = value
        return response.status, response.headers, response.read().decode("utf-8", "replace")

    def follow(self, url: str, location: str) -> str:
        return urllib.parse.urljoin(url, location)


class SignInError(RuntimeError):
    pass


def _submit(browser: Browser, url: str, page: str, extra: dict[str, str], button: str | None):
    form = _Form()
    form.feed(page)
    if form.action is None:
        raise SignInError(f"no form on {url}")
    data = dict(form.fields)
    data.update(extra)
    if button is not None:
        match = [b for b in form.buttons if b[1] == button]
        if not match:
            raise SignInError(f"no {button!r} button on {url}")
        data[match[0][0]] = match[0][1]
    target = urllib.parse.urljoin(url, form.action)
    if form.tab is not None:
        browser.tab = form.tab  # the page's script keeps it in the tab when the form is sent
    return target, browser.request(target, data)


def follow_callback(browser: Browser, url: str):
    """Apple's callback as a browser tab runs it: the callback page, then the POST its script makes with
    the raw query and this tab's nonce (read once). Returns (url, (status, headers, page)) of the answer."""
    status, headers, page = browser.request(url)
    if status != 200 or "<form id=finish " not in page:
        return url, (status, headers, page)
    target, _, query = url.partition("?")
    tab, browser.tab = browser.tab or "", None
    return target, browser.request(target, {"q": query, "tab": tab}, {"Sec-Fetch-Site": "same-origin"})


def sign_in(
    authorization_url: str, apple_id: str, browser: Browser | None = None, cafile: str | None = None
) -> tuple[str, str | None, str | None]:
    """Walks consent → Apple sign-in → callback and returns (code, state, iss) from the redirect
    back to the client's redirect URI. `cafile` is the CA to trust instead of the system's (for a new browser)."""
    browser = browser or Browser(cafile=cafile)
    status, headers, page = browser.request(authorization_url)
    if status != 200:
        raise SignInError(f"the authorization request was refused ({status}): {page[:200]}")
    url, (status, headers, page) = _submit(browser, authorization_url, page, {}, "continue")
    if status not in (302, 303):
        raise SignInError(f"consent was not accepted ({status}): {page[:200]}")
    sign_in_url = browser.follow(url, headers["Location"])
    status, headers, page = browser.request(sign_in_url)
    if status != 200:
        raise SignInError(f"the sign-in page did not open ({status})")
    url, (status, headers, page) = _submit(browser, sign_in_url, page, {"appleID": apple_id, "password": "x"}, None)
    if status not in (302, 303):
        raise SignInError(f"the sign-in was refused ({status}): {page[:200]}")
    callback, (status, headers, page) = follow_callback(browser, browser.follow(url, headers["Location"]))
    if status not in (302, 303):
        raise SignInError(f"the callback did not complete ({status}): {page[:300]}")
    back = browser.follow(callback, headers["Location"])
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)
    if "code" not in query:
        raise SignInError(f"no code in the redirect back: {query.get('error')}")
    return query["code"][0], query.get("state", [None])[0], query.get("iss", [None])[0]

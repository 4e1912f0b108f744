import Foundation
import RelayCrypto
import RelayHTTP

/// Binds Apple's callback to the browser tab that started the sign-in (issue 37).
///
/// Apple's CloudKit sign-in returns to one fixed URL with `ckWebAuthToken` in the query and no
/// `state` (`reference/cloudkit-ws.md`), and a `SameSite=Lax` cookie travels with any top-level
/// navigation, so a cookie alone cannot tell the person's own return from another site's
/// navigation (or `window.open`) carrying that site's token. The starting page therefore holds a
/// one-time nonce (`data-tab` on its form; only its hash is stored with the attempt) that a tiny
/// script puts in the tab's `sessionStorage` when the form is sent. `sessionStorage` belongs to one
/// tab and one origin: another tab has none, and a window another site opens starts from that
/// site's tab, which never held it. (A site holding a handle to the starting tab itself is cut off
/// by `Cross-Origin-Opener-Policy` where a page can afford it; docs/threat-model.md, residual risk 1.)
/// Apple's callback URL answers with a page whose script takes the query out of the address bar
/// (`history.replaceState`), reads (and forgets) the nonce and POSTs both to the same URL; only that
/// POST, with the right nonce and the attempt's cookie, stores anything.
///
/// Both scripts are constants allowed by their hashes (`script-src 'sha256-…'`), never
/// `'unsafe-inline'`; they read nothing but the query, the form's attribute and their own key.
package enum TabBinding {
    /// The `sessionStorage` key.
    package static let storageKey = "mustdo-tab"
    /// The form field the callback page sends the nonce in.
    package static let nonceField = "tab"
    /// The form field the callback page sends the raw query (with the token) in.
    package static let queryField = "q"
    /// The id of the callback page's form.
    package static let formID = "finish"

    /// On a starting page: when a form with `data-tab` is sent, its nonce goes into this tab's
    /// `sessionStorage` (a form sent from this tab is what this tab started).
    package static let keepScript =
        "for(const f of document.querySelectorAll('form[data-tab]'))f.addEventListener('submit',()=>{"
        + "try{sessionStorage.setItem('\(storageKey)',f.dataset.tab)}catch(e){}});"

    /// On a starting page that goes on by itself (the local start link): keep the nonce, then go to
    /// `data-next` (Apple's sign-in) in place of this page.
    package static let keepAndGoScript =
        "(()=>{const d=document.getElementById('go').dataset;try{sessionStorage.setItem('\(storageKey)',d.tab)}"
        + "catch(e){}location.replace(d.next)})();"

    /// On the callback page: the query out of the address bar and history, the nonce read once, and
    /// both POSTed to this URL.
    package static let finishScript =
        "(()=>{const f=document.getElementById('\(formID)'),q=location.search.slice(1);"
        + "history.replaceState(null,'',location.pathname);let t='';"
        + "try{t=sessionStorage.getItem('\(storageKey)')||'';sessionStorage.removeItem('\(storageKey)')}catch(e){}"
        + "f.elements.\(queryField).value=q;f.elements.\(nonceField).value=t;f.submit()})();"

    /// `'sha256-…'` of a script, as a CSP source.
    package static func hash(_ script: String) -> String {
        "'sha256-" + Data(SHA256.hash(script)).base64EncodedString() + "'"
    }

    /// A new nonce (32 random bytes, base64url).
    package static func newNonce() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    /// The callback page's form: the two hidden fields the finish script fills.
    package static func finishForm(action: String, noScript: String) -> String {
        """
        <form id=\(formID) method=post action="\(HTML.escape(action))">\
        <input type=hidden name=\(queryField)><input type=hidden name=\(nonceField)></form>\
        <noscript><p>\(HTML.escape(noScript))</p></noscript>
        """
    }

    /// Whether a POST came from a page of this origin, when the browser says (`Sec-Fetch-Site`); a
    /// browser that sends `Origin` must name `origin` (or `null`, which `Referrer-Policy:
    /// no-referrer` makes Chromium send).
    package static func isSameOrigin(_ request: Request, origin: String) -> Bool {
        if let site = request.headers["sec-fetch-site"], site != "same-origin" { return false }
        if let sent = request.headers["origin"], sent != "null", sent.lowercased() != origin.lowercased() {
            return false
        }
        return true
    }
}

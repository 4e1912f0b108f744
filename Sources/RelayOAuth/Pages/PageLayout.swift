import Foundation
import RelayCrypto
import RelayHTTP

/// The frame of every page: one small inline stylesheet (allowed by its hash, no other style, no
/// image, no frame), at most one of `TabBinding`'s constant scripts (allowed by its hash, on the
/// pages that start or finish an Apple sign-in), a viewport for phones, and the headers every page
/// carries.
struct PageLayout: Sendable {
    /// The stylesheet, kept tiny and system-font so a page is readable on a phone.
    static let style = """
        body{font:16px/1.5 -apple-system,system-ui,"Hiragino Sans",sans-serif;margin:0;background:#f5f5f7;color:#1d1d1f}\
        main{max-width:34rem;margin:0 auto;padding:.75rem 1.25rem 1.5rem}\
        h1{font-size:1.4rem;line-height:1.3;margin:.5rem 0}\
        h2{font-size:1.1rem;line-height:1.3;margin:0 0 .5rem;overflow-wrap:anywhere}\
        a{color:#0058b0}\
        .card{background:#fff;border-radius:12px;padding:.75rem 1.25rem;margin:.75rem 0}\
        .card p{margin:.4rem 0}\
        .notice{background:#e4f3e8}\
        .warning{background:#fff1d6}\
        .lead{font-size:1.1rem}\
        .verified,.unverified{display:inline-block;font-size:.8rem;font-weight:600;border-radius:6px;padding:.1rem .4rem}\
        .verified{background:#e4f3e8;color:#1b5e20}\
        .unverified{background:#b3261e;color:#fff}\
        .tag{display:inline-block;font-size:.8rem;font-weight:normal;background:#fff1d6;color:#6b4500;\
        border-radius:6px;padding:.1rem .4rem;vertical-align:middle}\
        fieldset{border:0;padding:0;margin:.75rem 0;min-width:0}\
        legend{font-weight:600;padding:0;margin-bottom:.25rem}\
        .choice{display:flex;gap:.75rem;align-items:flex-start;background:#fff;border-radius:12px;\
        padding:.75rem 1rem;margin:.5rem 0;border:2px solid #fff;cursor:pointer}\
        .choice:has(input:checked){border-color:#1d1d1f}\
        .choice input{flex:none;width:1.25rem;height:1.25rem;margin:.15rem 0 0}\
        .choice ul{margin:.25rem 0 0}\
        .choice p{margin:.25rem 0 0}\
        .muted{color:#6e6e73;font-size:.9rem}\
        code,.host{font-family:ui-monospace,Menlo,monospace;overflow-wrap:anywhere}\
        form{margin:1rem 0}\
        button,.button{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.8rem;border-radius:10px;\
        border:0;margin:.5rem 0;text-align:center;text-decoration:none}\
        .primary{background:#000;color:#fff}\
        .secondary{background:#e8e8ed;color:#1d1d1f}\
        .danger{background:#b3261e;color:#fff}\
        .card form{margin:.75rem 0 0}\
        ul{padding-left:1.25rem}\
        .lifetime{margin:.4rem 0}\
        .lifetime legend{margin-bottom:.15rem}\
        .segments{display:flex;gap:.4rem}\
        .segments label{flex:auto;display:flex;gap:.35rem;align-items:center;justify-content:center;background:#fff;\
        border:2px solid #fff;border-radius:10px;padding:.3rem;cursor:pointer;font-size:.9rem;text-align:center}\
        .segments label:has(input:checked){border-color:#1d1d1f}\
        .segments input{flex:none;margin:0}\
        .activity{border-top:1px solid #e8e8ed;margin-top:.5rem;padding-top:.25rem}\
        .days{list-style:none;padding:0;margin:.25rem 0;font-size:.9rem}\
        .days li{padding:.15rem 0;border-bottom:1px solid #f5f5f7}\
        .day{display:inline-block;min-width:7.5rem;color:#6e6e73}
        """

    /// `'sha256-…'` of the stylesheet, the only style the CSP allows.
    static let styleHash = "'sha256-" + Data(SHA256.hash(style)).base64EncodedString() + "'"

    /// The CSP: nothing may load, run or frame the page but `script` (by its hash); forms may go to
    /// this origin and to the given extra origins (Apple's sign-in, or the client's redirect URI for
    /// "Cancel").
    /// `formTargets` nil leaves `form-action` out: the callback page's own POST is answered with a
    /// redirect to the client's redirect URI, which Chromium checks against `form-action` too, and
    /// that page holds no form but its fixed one (`TabBinding.finishForm`).
    static func contentSecurityPolicy(formTargets: [String]?, script: String? = nil) -> String {
        let forms = formTargets.map { "; form-action " + (["'self'"] + $0).joined(separator: " ") } ?? ""
        let scripts = script.map { "; script-src \(TabBinding.hash($0))" } ?? ""
        return
            "default-src 'none'; style-src \(styleHash)\(scripts)\(forms); frame-ancestors 'none'; base-uri 'none'"
    }

    /// A complete page with every protective header.
    /// `script` is one of `TabBinding`'s scripts, run at the end of the body. `isolated` adds
    /// `Cross-Origin-Opener-Policy: same-origin`: a page another site opened with `window.open`
    /// leaves that site's browsing context group, so the site can no longer navigate the tab (not
    /// on the consent page, whose opener may be the AI app's own web page waiting for its popup).
    static func render(
        title: String, body: String, locale: PageLocale, status: HTTPStatus = .ok, formTargets: [String]? = [],
        script: String? = nil, isolated: Bool = false
    ) -> Response {
        let html = """
            <!doctype html>
            <html lang="\(locale.rawValue)"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width,initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(HTML.escape(title))</title><style>\(style)</style></head>
            <body><main>\(body)</main>\(script.map { "<script>\($0)</script>" } ?? "")</body></html>
            """
        var response = Response.html(html, status: status)
        secure(&response, formTargets: formTargets, script: script)
        if isolated { response.headers.set("Cross-Origin-Opener-Policy", "same-origin") }
        response.headers.set("Content-Language", locale.rawValue)
        return response
    }

    /// The headers every page, and every redirect out of a page flow, carries.
    static func secure(_ response: inout Response, formTargets: [String]? = [], script: String? = nil) {
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set(
            "Content-Security-Policy", contentSecurityPolicy(formTargets: formTargets, script: script))
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("X-Content-Type-Options", "nosniff")
    }

    /// The CSP source for where a redirect URI points: its origin, or `scheme:` for custom schemes.
    static func source(of uri: String) -> String? {
        guard case .success(let parsed) = ParsedURI.parse(uri) else { return nil }
        guard parsed.scheme == "https" || parsed.scheme == "http" else { return parsed.scheme + ":" }
        return "\(parsed.scheme)://\(parsed.host)" + (parsed.port.map { ":\($0)" } ?? "")
    }
}

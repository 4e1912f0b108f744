import Foundation
import RelayHTTP
import RelayJSON

/// Signing in to iCloud again for a connection whose CloudKit token died (issue 39), as a client
/// and its user's browser do it over plain HTTP: the tool call's `SIGN_IN_REQUIRED` and its link,
/// the link's page, "Continue with Apple", the emulator's sign-in and the callback.
extension RelayClient {
    /// A tool call's `SIGN_IN_REQUIRED` link (`signInURL`), or nil when the call answered anything else.
    func signInLink(_ name: String = "get_me", access: String, at base: String) async throws -> String? {
        let response = try await http.send(
            Self.toolCall(name, [:], access: access, at: base, version: "2025-06-18", timeout: .seconds(30)))
        guard response.status == 200, let json = try? JSONValue(parsing: response.body),
            json["result"]?["isError"]?.boolValue == true,
            let error = json["result"]?["structuredContent"]?["error"],
            error["code"]?.stringValue == "SIGN_IN_REQUIRED"
        else { return nil }
        let link = error["signInURL"]?.stringValue
        // The text an agent shows carries the same link.
        let text = json["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        guard let link, text.contains(link) else { throw AcceptanceFailure("no link in: \(response.text)") }
        return link
    }

    /// The link's path and query at `base` (every instance shares the issuer `http://127.0.0.1`).
    static func at(_ base: String, _ link: String) -> String {
        guard let range = link.range(of: "/reconnect?") else { return link }
        return base + link[range.lowerBound...]
    }

    /// What opening a link gave: the page, and when it offered the form, the browser's binding.
    struct SignInAgainPage: Sendable {
        var page: ClientResponse
        var authorization: Authorization?
    }

    /// `GET` the link at `base` in `language`.
    func openSignInLink(_ link: String, at base: String, language: String = "en") async throws -> SignInAgainPage {
        let page = try await http.send(
            ClientRequest(url: Self.at(base, link), headers: ["Accept-Language": language]))
        guard page.status == 200,
            let cookie = page.headers.values("set-cookie").first(where: { $0.hasPrefix("mdr_") }),
            let requestID = Self.hidden("request", in: page.text), let csrf = Self.hidden("csrf", in: page.text),
            let tab = Self.quoted("data-tab", in: page.text)
        else { return SignInAgainPage(page: page, authorization: nil) }
        return SignInAgainPage(
            page: page,
            authorization: Authorization(
                verifier: "", state: "", cookie: String(cookie.prefix { $0 != ";" }), requestID: requestID,
                csrf: csrf, tab: tab))
    }

    /// The whole walk: open the link, continue with Apple, sign in as `appleID`, come back. Returns the
    /// callback's answer (the "signed in again" page, or a redirect to the failure page).
    func signInAgain(_ link: String, appleID: String, at base: String) async throws -> ClientResponse {
        let opened = try await openSignInLink(link, at: base)
        guard let authorization = opened.authorization else {
            throw AcceptanceFailure("no sign-in form: \(opened.page.status) \(opened.page.text.prefix(300))")
        }
        let confirmed = try await postForm(
            base + "/reconnect", [("request", authorization.requestID), ("csrf", authorization.csrf)],
            cookie: authorization.cookie, site: "same-origin")
        guard confirmed.status == 303, let signInURL = confirmed.headers["location"] else {
            throw AcceptanceFailure("continue refused: \(confirmed.status) \(confirmed.text.prefix(300))")
        }
        let query = try await signIn(signInURL, appleID: appleID)
        return try await callback(query, cookie: authorization.cookie, tab: authorization.tab, at: base)
    }
}

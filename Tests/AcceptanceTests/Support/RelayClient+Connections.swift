import Foundation
import RelayHTTP

/// The person's connections page (`/connections`) as their browser takes it over plain HTTP: the
/// confirming form, Apple's (the emulator's) sign-in and the callback that opens the page's session,
/// then the list and its forms (`/connections/end`).
extension RelayClient {
    /// A browser holding a connections page session: its cookie (`name=value`).
    struct ConnectionsSession: Sendable {
        var cookie: String
    }

    /// Opens `/connections` at `base`, confirms with Apple as `appleID` and comes back with the session.
    func openConnections(appleID: String, at base: String) async throws -> ConnectionsSession {
        let page = try await http.send(ClientRequest(url: base + "/connections"))
        guard page.status == 200,
            let binding = page.headers.values("set-cookie").first(where: { $0.hasPrefix("mdr_") }),
            let requestID = Self.hidden("request", in: page.text), let csrf = Self.hidden("csrf", in: page.text),
            let tab = Self.quoted("data-tab", in: page.text)
        else { throw AcceptanceFailure("no confirming form: \(page.status) \(page.text.prefix(300))") }
        let cookie = String(binding.prefix { $0 != ";" })
        let confirmed = try await postForm(
            base + "/connections", [("request", requestID), ("csrf", csrf)], cookie: cookie, site: "same-origin")
        guard confirmed.status == 303, let signInURL = confirmed.headers["location"] else {
            throw AcceptanceFailure("confirming refused: \(confirmed.status) \(confirmed.text.prefix(300))")
        }
        let query = try await signIn(signInURL, appleID: appleID)
        let back = try await callback(query, cookie: cookie, tab: tab, at: base)
        guard back.status == 303, back.headers["location"]?.hasSuffix("/connections") == true,
            let session = back.headers.values("set-cookie").first(where: {
                $0.contains("mdr-session=") && !$0.contains("Max-Age=0")
            })
        else { throw AcceptanceFailure("no connections session: \(back.status) \(back.text.prefix(300))") }
        return ConnectionsSession(cookie: String(session.prefix { $0 != ";" }))
    }

    /// `GET /connections` with the session: the list, with a fresh single-use CSRF token.
    func connectionsPage(_ session: ConnectionsSession, at base: String, language: String = "en") async throws
        -> ClientResponse
    {
        try await http.send(
            ClientRequest(url: base + "/connections", headers: ["Cookie": session.cookie, "Accept-Language": language]))
    }

    /// The grant IDs the page's forms name, each once, in page order.
    static func grantIDs(in page: String) -> [String] {
        var seen: [String] = []
        for part in page.components(separatedBy: "name=grant value=\"").dropFirst() {
            let id = String(part.prefix { $0 != "\"" })
            if !seen.contains(id) { seen.append(id) }
        }
        return seen
    }

    /// `POST /connections/end` with `form`, the session's cookie when given, and `Sec-Fetch-Site` when given.
    func connectionsForm(
        _ form: [(String, String)], session: ConnectionsSession?, site: String? = "same-origin", at base: String
    ) async throws -> ClientResponse {
        try await postForm(base + "/connections/end", form, cookie: session?.cookie, site: site)
    }
}

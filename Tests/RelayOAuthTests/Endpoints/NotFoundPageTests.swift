import RelayJSON
import Testing

@testable import RelayOAuth

/// An unknown path (issue 39): a browser's navigation gets a page in its language; a client that
/// does not prefer HTML (`*/*`, JSON, no `Accept`) gets the JSON 404 it parses.
struct NotFoundPageTests {
    static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"

    @Test(arguments: [("en-US,en;q=0.9", "en", "Page not found"), ("ja,en-US;q=0.8", "ja", "ページが見つかりません")])
    func aBrowserGetsAPageInItsLanguage(language: String, lang: String, title: String) async throws {
        try await withHarness { h in
            let response = try await h.client.get(
                "/no/such/page", headers: [("Accept", Self.browserAccept), ("Accept-Language", language)])
            #expect(response.status == 404)
            #expect(response.header("content-type")?.hasPrefix("text/html") == true)
            #expect(response.text.contains("<html lang=\"\(lang)\""))
            #expect(response.text.contains(title))
            #expect(!response.text.contains("{\"error\""))
        }
    }

    @Test(arguments: [nil, "*/*", "application/json", "application/json, text/html;q=0.5", "text/*;q=0.1,*/*"])
    func aMachineClientGetsJSON(accept: String?) async throws {
        try await withHarness { h in
            let response = try await h.client.get(
                "/no/such/page", headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(response.status == 404)
            #expect(response.header("content-type") == "application/json")
            #expect(throws: Never.self) { try JSONValue(parsing: response.body) }
        }
    }
}

import RelayHTTP
import Testing

@testable import RelayOAuth

/// The one `Authorization: Bearer` reader, which both the OAuth validation and the MCP endpoint's
/// cached fast path use.
struct BearerHeaderTests {
    @Test func theSchemeInAnyCaseThenTheToken() {
        #expect(BearerHeader.token(in: "Bearer abc") == "abc")
        #expect(BearerHeader.token(in: "bearer abc") == "abc")
        #expect(BearerHeader.token(in: "BEARER \t abc") == "abc")
        for refused in ["Bearer", "Bearer ", "Bearer   ", "Bearer\tabc", "Basic abc", "Bearerabc", "abc", ""] {
            #expect(BearerHeader.token(in: refused) == nil, "\(refused)")
        }
    }

    @Test func exactlyOneHeader() {
        #expect(
            BearerHeader.token(of: Request(method: .post, target: "/mcp", headers: ["authorization": "Bearer a"]))
                == "a")
        var twice: HTTPHeaders = ["authorization": "Bearer a"]
        twice.add("Authorization", "Bearer b")
        #expect(BearerHeader.token(of: Request(method: .post, target: "/mcp", headers: twice)) == nil)
        #expect(BearerHeader.token(of: Request(method: .post, target: "/mcp", headers: [:])) == nil)
    }
}

import Foundation
import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync
import Testing

extension EndToEndSuite {
    /// The link a waiting grant's tool calls show, over its life (issue 39 follow-up): the same link call after
    /// call, a new one once the old has less than an hour left (the old one still works until its own end),
    /// and an ended link replaced and its item deleted. The whole relay in this process with its clock moved by
    /// hand, real SQLite, the emulator over HTTP.
    @Suite(.timeLimit(.minutes(10))) struct SignInAgainLinkLifeTests {
        @Test func testTheShownLinkIsReplacedOnlyNearItsEndAndAnEndedOneStopsWorking() async throws {
            let clock = ManualClock(start: Date().timeIntervalSince1970.rounded())
            let relay = try await RelayHarness(clock: clock)
            defer { relay.removeFiles() }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            var tokens = try await driver.connect(appleID: "life@example.com")
            let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
            #expect(try await mcp.tool("get_me", token: tokens.access).reply.status == 200)

            func link() async throws -> String? {
                let (reply, content) = try await mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200)
                #expect(content?["error"]?["code"]?.stringValue == "SIGN_IN_REQUIRED")
                return content?["error"]?["signInURL"]?.stringValue
            }
            func opens(_ link: String) async throws -> Int {
                let path = String(link.dropFirst(relay.issuer.count))
                return try await relay.http.send(ClientRequest(url: relay.issuer + path)).status
            }
            func linkItems() async throws -> Int {
                try await relay.application.backends.store.scan(pkPrefix: "RECONNECT#", cursor: nil, limit: 100).items
                    .count
            }

            _ = try relay.emulator.expireSessions()
            let first = try #require(try await link())
            #expect(try await link() == first)
            #expect(try await linkItems() == 1)

            // 23 h later, less than an hour left: a new link; the old one keeps its promise until its end.
            clock.advance(by: 86_400 - 3_599)
            tokens = try await driver.refresh(tokens)  // a refresh works while the grant waits
            let second = try #require(try await link())
            #expect(second != first)
            #expect(try await link() == second)
            #expect(try await linkItems() == 2)
            #expect(try await opens(first) == 200)

            // Past the first link's day: it opens nothing, and the second is still the one shown.
            clock.advance(by: 3_600)
            #expect(try await opens(first) == 410)
            #expect(try await link() == second)

            // Past the second link's day too: a fresh one, and the ended one's item is deleted on the way.
            clock.advance(by: 86_400)
            tokens = try await driver.refresh(tokens)
            let third = try #require(try await link())
            #expect(third != second && third != first)
            #expect(try await opens(second) == 410)
            #expect(try await opens(third) == 200)
            #expect(try await link() == third)
            // The first link's item is left to the store's own expiry (its clock is the system's here), the
            // second's was deleted: two items, one of them usable.
            #expect(try await linkItems() == 2)
            await relay.stop()
        }
    }
}

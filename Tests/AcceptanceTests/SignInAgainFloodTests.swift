import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

extension AcceptanceSuite {
    /// An AI client retrying in a loop on a connection that waits for its person to sign in to iCloud again
    /// (issue 39 follow-up): one `mustdo-relay serve` on a real socket with its SQLite file, the emulator over
    /// HTTP killing a rotated token at once. Every call is answered from the store: no CloudKit call with the
    /// dead token, and one link item however many calls come, each answer carrying that working link.
    @Suite struct SignInAgainFloodTests {
        /// The `RECONNECT#` items in the relay's SQLite file: every one, and those not yet expired.
        static func linkItems(_ database: String) async throws -> (all: Int, live: Int) {
            let output = try await runPython("sqlite_prefix_count.py", [database, "RECONNECT#"])
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
                let json = try? JSONValue(parsing: Array(line.utf8)), let all = json["all"]?.intValue,
                let live = json["live"]?.intValue
            else { throw AcceptanceFailure("sqlite_prefix_count.py: \(output)") }
            return (all, live)
        }

        @Test func fiveHundredCallsOnAWaitingGrantCostNoCloudKitCallAndOneLink() async throws {
            // The per-connection budget would answer RATE_LIMITED long before 500 calls: lifted, so every call
            // reaches the waiting grant's path.
            let fixture = try await RelayFixture(
                settings: ["RELAY_MCP_TOOL_CALLS_PER_MINUTE": "0"], timeout: .seconds(60))
            defer { fixture.remove() }
            let (http, emulator) = (fixture.http, fixture.emulator)
            let relay = try await fixture.start()
            let database = fixture.setup.directory + "/relay.sqlite"
            let (client, tokens) = try await RelayClient.connected(
                http: http, appleID: "flood@example.com", at: relay.base)
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))

            // Apple ends the session: the first call finds the token dead and the grant starts waiting.
            try await emulator.control("sessions/expire", [:])
            let link = try #require(try await client.signInLink(access: tokens.access, at: relay.base))
            #expect(try await Self.linkItems(database).all == 1)
            let before = try #require(try await emulator.stats()["databaseRequests"]?.intValue)

            // 500 calls: 20 in a row, then 480 as 12 bursts of 40 at once; several tools, as a client retries.
            let tools = ["get_me", "list_todos", "get_me", "list_todos"]
            var answers: [String?] = []
            for index in 0..<20 {
                answers.append(try await client.signInLink(tools[index % 4], access: tokens.access, at: relay.base))
            }
            for _ in 0..<12 {
                let burst = try await withThrowingTaskGroup(of: String?.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            try await client.signInLink(tools[index % 4], access: tokens.access, at: relay.base)
                        }
                    }
                    var links: [String?] = []
                    for try await answer in group { links.append(answer) }
                    return links
                }
                answers += burst
            }
            #expect(answers.count == 500)
            #expect(answers.allSatisfy { $0 == link }, "every answer is SIGN_IN_REQUIRED with the same live link")
            let after = try #require(try await emulator.stats()["databaseRequests"]?.intValue)
            #expect(after == before, "no CloudKit call with the dead token: \(after - before) made")
            let items = try await Self.linkItems(database)
            #expect(items.all == 1 && items.live == 1, "one link item for the waiting grant: \(items)")
            #expect(!relay.child.text.contains(link), "a link is never logged")

            // The link still works after all of that, once. Spent by a sign-in with another Apple Account (refused,
            // the grant still waits), it is replaced: 40 calls at once race to make the new one, and all show one.
            let other = try await client.signInAgain(link, appleID: "someone-else@example.com", at: relay.base)
            #expect(other.headers["location"]?.hasSuffix("failed=other_account") == true)
            // (The callback asked CloudKit who signed in, with that sign-in's token: not the grant's dead one.)
            let afterOther = try #require(try await emulator.stats()["databaseRequests"]?.intValue)
            let raced = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await client.signInLink(access: tokens.access, at: relay.base) }
                }
                var links: [String?] = []
                for try await answer in group { links.append(answer) }
                return links
            }
            let fresh = try #require(raced.first ?? nil)
            #expect(fresh != link)
            #expect(
                raced.allSatisfy { $0 == fresh }, "one new link for the burst: \(Set(raced.map { $0 ?? "none" }).count)"
            )
            #expect(try await Self.linkItems(database).all == 1, "the spent link's item is gone, one new one")
            #expect(try #require(try await emulator.stats()["databaseRequests"]?.intValue) == afterOther)

            // The person signs in again with it, and the grant works.
            let back = try await client.signInAgain(fresh, appleID: "flood@example.com", at: relay.base)
            #expect(back.status == 200)
            #expect(back.text.contains("Signed in again"))
            expectResult(try await client.callTool("get_me", access: tokens.access, at: relay.base))
            let used = try #require(try await emulator.stats()["databaseRequests"]?.intValue)
            #expect(used > after, "the restored grant calls CloudKit again")
            expectResult(try await client.callTool("list_todos", access: tokens.access, at: relay.base))
            #expect(try await Self.linkItems(database).all == 0, "the spent link's item is gone")
            #expect(try await client.openSignInLink(link, at: relay.base).page.status == 410)
            #expect(try await client.openSignInLink(fresh, at: relay.base).page.status == 410)
        }
    }
}

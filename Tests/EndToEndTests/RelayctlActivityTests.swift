import Foundation
import RelayEmulator
import RelayJSON
import Testing

extension EndToEndSuite {
    /// `mustdo-relayctl grants activity` (issue 44) against a `mustdo-relay serve` child process: real
    /// tool calls through the relay are counted per grant, the operator sees the totals per connection
    /// with only the user ID HMAC for the person (never the Apple record name, a title or a record ID),
    /// one user's with `--user`, per day with `--days`, and the counts go when the grant is revoked.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlActivityTests {
        @Test func testTheOperatorSeesWhatEachConnectionDidAndNothingOfThePersonOrTheirToDos() async throws {
            let relay = try await ServedRelay(extra: ["RELAY_OAUTH_VALIDATION_CACHE_TTL": "0"])
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let alice = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let bob = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let a = try await alice.connect(appleID: "alice@example.com")
            let b = try await bob.connect(appleID: "bob@example.com")
            let canary = "Canary-\(UUID().uuidString)"
            var ids: [String] = []
            for index in 0..<2 {
                let (reply, added) = try await relay.mcp.tool(
                    "add_todo", ["title": .string("\(canary) \(index)"), "due": "2030-01-02T09:00"], token: a.access)
                #expect(reply.status == 200)
                ids.append(try #require(added?["todo"]?["id"]?.stringValue, "\(String(describing: added))"))
            }
            let (completed, _) = try await relay.mcp.tool("complete_todo", ["id": .string(ids[0])], token: a.access)
            #expect(completed.status == 200)
            // A failed write counts nothing; a read counts nothing.
            let (missing, _) = try await relay.mcp.tool("delete_todo", ["id": "no-such-record"], token: a.access)
            #expect(missing.status == 200)
            let (read, _) = try await relay.mcp.tool("list_todos", token: b.access)
            #expect(read.status == 200)

            // Counts are written off the answer's path: wait for them, generously.
            var activity = try await relay.relayctl(["grants", "activity", "--json"])
            for _ in 0..<100 {
                let totals = activity.json?.arrayValue?.compactMap { $0["totals"] } ?? []
                if totals.contains(where: { $0["added"]?.intValue == 2 && $0["completed"]?.intValue == 1 }) { break }
                try await Task.sleep(nanoseconds: 100_000_000)
                activity = try await relay.relayctl(["grants", "activity", "--json"])
            }
            #expect(activity.status == 0, "\(activity.description)")
            let list = activity.json?.arrayValue ?? []
            #expect(list.count == 2, "\(activity.description)")
            let aliceRow = try #require(list.first { $0["clientID"]?.stringValue == alice.clientID })
            let bobRow = try #require(list.first { $0["clientID"]?.stringValue == bob.clientID })
            #expect(
                aliceRow["totals"] == [
                    "added": 2, "completed": 1, "snoozed": 0, "deleted": 0, "updated": 0, "undone": 0,
                ] as JSONValue)
            #expect(aliceRow["days"]?.arrayValue?.count == 1)
            #expect(bobRow["totals"]?["added"] == 0)
            #expect(bobRow["days"]?.arrayValue?.count == 0)

            let aliceRecord = Emulator.userRecordName(appleID: "alice@example.com")
            let idResult = try await relay.relayctl(["users", "id", aliceRecord, "--json"])
            let aliceID = try #require(idResult.json?["userID"]?.stringValue)
            #expect(aliceRow["userID"]?.stringValue == aliceID)
            let mine = try await relay.relayctl(["grants", "activity", "--user", aliceID])
            #expect(mine.stdout.contains("ADDED") && mine.stdout.contains("1 grant(s)"), "\(mine.stdout)")
            let days = try await relay.relayctl(["grants", "activity", "--user", aliceID, "--days"])
            #expect(days.stdout.contains("DAY"), "\(days.stdout)")
            for output in [activity, mine, days] {
                let text = output.stdout + output.stderr
                #expect(!text.contains(aliceRecord), "the Apple record name was shown")
                #expect(!text.contains(canary), "a to-do title was shown")
                for id in ids { #expect(!text.contains(id), "a record ID was shown") }
            }
            let stats = try await relay.relayctl(["store", "stats", "--json"])
            #expect(stats.json?["counts"]?["ACTIVITY"]?.intValue == 1, "\(stats.description)")

            // Revoking the grant takes its counts with it.
            let grantID = try #require(aliceRow["grant"]?.stringValue)
            let revoked = try await relay.relayctl(["grants", "revoke", grantID, "--yes"])
            #expect(revoked.status == 0, "\(revoked.description)")
            let after = try await relay.relayctl(["grants", "activity", "--json"])
            #expect(after.json?.arrayValue?.compactMap { $0["grant"]?.stringValue }.contains(grantID) == false)
            let statsAfter = try await relay.relayctl(["store", "stats", "--json"])
            #expect(statsAfter.json?["counts"]?["ACTIVITY"]?.intValue == 0, "\(statsAfter.description)")

            finished = true
            await relay.finish()
        }
    }
}

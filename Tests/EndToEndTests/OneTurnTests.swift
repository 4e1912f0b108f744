import Foundation
import RelayEmulator
import RelayJSON
import Testing

extension EndToEndSuite {
    /// Issue 42, Build 5: the CloudKit calls of one tool call pass the rotated token in memory. With every
    /// rotated-token save held at the store and CloudKit (emulated) killing each old token at once, a
    /// `list_todos` of a long history (the change feed, the Account, the query: three calls) is answered
    /// anyway, so its second and third calls used the token their predecessor rotated to without waiting
    /// for its save; no call was refused; the newest token reaches the store, saved once for the whole
    /// tool call, before the grant's next call goes out. Real SQLite, the server on a real socket, the emulator over HTTP.
    @Suite(.timeLimit(.minutes(10))) struct OneTurnTests {
        @Test func testAToolCallsCloudKitCallsDoNotWaitForEachOthersSaves() async throws {
            let (gate, relay, tokens, mcp) = try await Self.connectedBehindAGate("one-turn@example.com")
            defer { relay.removeFiles() }

            gate.close()
            let before = relay.emulator.statistics()["databaseRequests"]?.intValue ?? 0
            let (answered, content) = try await mcp.tool("list_todos", token: tokens.access)
            let calls = (relay.emulator.statistics()["databaseRequests"]?.intValue ?? 0) - before
            #expect(answered.status == 200)
            #expect(content?["items"]?.arrayValue?.count == 2, "\(answered.body?.jsonString ?? "")")
            #expect(content?["complete"] == true)
            #expect(calls == 3, "the change feed, the Account and the query")
            await gate.waitForHeld(1)
            #expect(gate.heldLanded == 0, "answered while the first rotation's save was still held")

            // The grant's next call waits until the list's newest token is saved, then goes out with it.
            let savedBefore = gate.saved
            let next = Task { try await mcp.tool("get_me", token: tokens.access) }
            try await Task.sleep(for: .milliseconds(100))
            #expect(relay.emulator.statistics()["databaseRequests"]?.intValue ?? 0 == before + calls)
            gate.open()
            let (second, secondContent) = try await next.value
            #expect(second.status == 200)
            #expect(secondContent?["today"] != nil, "\(second.body?.jsonString ?? "")")
            await gate.waitForSaved(savedBefore + 2)
            try await Task.sleep(for: .milliseconds(200))
            #expect(gate.saved - savedBefore == 2, "the list's three rotations saved once (the newest), get_me's once")
            let metrics = try await relay.metricsText()
            let refused = metrics.split(separator: "\n").filter {
                $0.hasPrefix("relay_cloudkit_calls_total") && !$0.contains("outcome=\"ok\"") && !$0.hasSuffix(" 0")
            }
            #expect(refused == [], "a CloudKit call went out with a token already rotated away")
            await relay.stop()
        }

        /// A call of the turn fails after earlier ones rotated the token (their saves still held): the failure waits
        /// for those saves, the tool answers its error, and the grant's next call goes out with the newest token.
        @Test func testAFailureWithinATurnKeepsTheTokenChain() async throws {
            let (gate, relay, tokens, mcp) = try await Self.connectedBehindAGate("turn-failure@example.com")
            defer { relay.removeFiles() }

            // The query (the list's third call) fails on every attempt; the first two calls rotated the token.
            relay.emulator.injectFault(
                status: 503, serverErrorCode: "SERVICE_UNAVAILABLE", count: 10,
                operations: [
                    "records/query"
                ])
            gate.close()
            let failing = Task { try await mcp.tool("list_todos", token: tokens.access) }
            await gate.waitForHeld(1)
            gate.open()
            let (failed, content) = try await failing.value
            #expect(failed.status == 200)
            #expect(
                content?["error"]?["code"]?.stringValue == "UPSTREAM_UNAVAILABLE", "\(failed.body?.jsonString ?? "")")
            relay.emulator.clearFaults()

            let (next, nextContent) = try await mcp.tool("list_todos", token: tokens.access)
            #expect(next.status == 200)
            #expect(nextContent?["items"]?.arrayValue?.count == 2, "\(next.body?.jsonString ?? "")")
            await relay.stop()
        }

        /// A relay whose store's saves pass `gate`, `appleID` connected with two live to-dos and 300 deleted
        /// ones, and one `get_me` whose save has landed. The caller removes the relay's files.
        static func connectedBehindAGate(_ appleID: String) async throws -> (
            gate: SaveGate, relay: RelayHarness, tokens: OAuthDriver.Tokens, mcp: MCPCalls
        ) {
            let gate = SaveGate()
            let relay = try await RelayHarness(rotation: .invalidate, wrapStore: { GatedStore(base: $0, gate: gate) })
            do {
                let tokens = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(appleID: appleID)
                _ = try relay.emulator.seed(appleID, records: Self.history(live: 2, deleted: 300))
                let mcp = MCPCalls(http: relay.http, url: relay.mcpURL)
                let connected = gate.saved
                let (warm, _) = try await mcp.tool("get_me", token: tokens.access)
                #expect(warm.status == 200)
                await gate.waitForSaved(connected + 1)
                return (gate, relay, tokens, mcp)
            } catch {
                relay.removeFiles()
                throw error
            }
        }

        /// `live` pending one-offs and `deleted` soft-deleted ones (more than one change-feed page).
        static func history(live: Int, deleted: Int) -> [JSONValue] {
            func todo(_ name: String, deletedAt: Bool) -> JSONValue {
                var fields: JSONObject = [
                    "title": ["value": "Errand", "type": "STRING"], "status": ["value": "pending", "type": "STRING"],
                    "source": ["value": "app", "type": "STRING"], "timeZone": ["value": "UTC", "type": "STRING"],
                ]
                if deletedAt { fields["deletedAt"] = ["value": 1_780_000_000_000, "type": "TIMESTAMP"] }
                return ["recordName": .string(name), "recordType": "Todo", "fields": .object(fields)]
            }
            return (0..<live).map { todo("live\($0)", deletedAt: false) }
                + (0..<deleted).map { todo("gone\($0)", deletedAt: true) }
        }
    }
}

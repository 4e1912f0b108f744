import Foundation
import Testing

extension EndToEndSuite {
    /// Key and pepper rotation as docs/operations.md tells an operator to do it, against a served
    /// relay with real connections: rotate with relayctl, restart, and check which tokens still work.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlRotationTests {
        @Test func testAfterAKeyRotationOldGrantsOpenWithTheOldKeyAndNewGrantsUseTheNewOne() async throws {
            let relay = try await ServedRelay()
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let before = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "old@example.com")
            let rotated = try await relay.relayctl(["keys", "rotate", "--yes", "--json"])
            #expect(rotated.json?["added"]?.stringValue == "k2", "\(rotated.description)")
            try await relay.restart()
            let after = try await OAuthDriver(http: relay.http, issuer: relay.issuer).connect(
                appleID: "new@example.com")
            do {
                let status = try await relay.mcp.tool("get_me", token: before.access).reply.status
                #expect(status == 200)
            }
            do {
                let status = try await relay.mcp.tool("get_me", token: after.access).reply.status
                #expect(status == 200)
            }

            // Take k1 out (what the docs warn against while its grants live): only the grant sealed
            // before the rotation stops opening, which shows the new grant was sealed with k2. Its tool
            // calls say "try later" and the grant is kept: with k1 back, it works again.
            let keyFile = relay.service.path + "/secrets/master-keys"
            let original = try String(contentsOfFile: keyFile, encoding: .utf8)
            try (original.split(separator: "\n").filter { !$0.hasPrefix("k1 ") }.joined(separator: "\n") + "\n")
                .write(toFile: keyFile, atomically: true, encoding: .utf8)
            chmod(keyFile, 0o600)
            try await relay.restart()
            do {
                let (reply, error) = try await relay.mcp.tool("get_me", token: before.access)
                #expect(reply.status == 200)
                #expect(reply.body?["result"]?["isError"] == true)
                #expect(error?["error"]?["code"]?.stringValue == "UPSTREAM_UNAVAILABLE", "\(reply.body ?? nil)")
            }
            do {
                let status = try await relay.mcp.tool("get_me", token: after.access).reply.status
                #expect(status == 200)
            }
            // The logger writes from its own thread: the line may land just after the answer.
            do {
                _ = try await relay.relay.waitForOutput(
                    matching: #""event":"vault\.unknown_key""#, timeout: .seconds(20))
            } catch {
                Issue.record("the operator sees why: \(error)")
            }

            try original.write(toFile: keyFile, atomically: true, encoding: .utf8)
            chmod(keyFile, 0o600)
            try await relay.restart()
            do {
                let (reply, content) = try await relay.mcp.tool("get_me", token: before.access)
                #expect(reply.body?["result"]?["isError"] != true, "the grant was kept: \(reply.body ?? nil)")
                #expect(content?["timeZone"] == "UTC")
            }
            finished = true
            await relay.finish()
        }

        @Test func testTokensSurviveOnePepperRotationAndEndAtTheSecondUnlessRefreshed() async throws {
            let relay = try await ServedRelay(extra: ["RELAY_OAUTH_VALIDATION_CACHE_TTL": "0"])
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let stale = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let fresh = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let staleTokens = try await stale.connect(appleID: "stale@example.com")
            var freshTokens = try await fresh.connect(appleID: "fresh@example.com")

            let first = try await relay.relayctl(["pepper", "rotate", "--yes"])
            #expect(first.status == 0, "\(first.description)")
            #expect(first.stdout.contains("now holds version 2 (current) and 1 (previous)"), "\(first.stdout)")
            #expect(first.stdout.contains("The next rotation drops version 1"), "\(first.stdout)")
            #expect(!first.stderr.contains("WARNING"), "the first rotation drops nothing: \(first)")
            try await relay.restart()
            // Hashed with version 1, found through the previous pepper.
            do {
                let status = try await relay.mcp.tool("get_me", token: staleTokens.access).reply.status
                #expect(status == 200)
            }
            freshTokens = try await fresh.refresh(freshTokens)  // now hashed with version 2

            let second = try await relay.relayctl(["pepper", "rotate", "--yes", "--json"])
            #expect(second.json?["dropped"]?.arrayValue == [1], "\(second.description)")
            #expect(second.json?["current"]?.intValue == 3)
            #expect(
                second.stderr.contains("WARNING: the last rotation was 0 minutes ago"),
                "a second rotation minutes after the first must warn: \(second)")
            let pepperFile = try String(contentsOfFile: relay.service.path + "/secrets/pepper", encoding: .utf8)
            #expect(
                pepperFile.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.prefix(2) } == ["2 ", "3 "])
            try await relay.restart()
            do {
                let status = try await relay.mcp.tool("get_me", token: staleTokens.access).reply.status
                #expect(status == 401)
            }
            let refused = try await stale.refusedRefresh(staleTokens)
            #expect(refused.status == 400, "a refresh token hashed two rotations ago still worked")
            #expect(refused.error == "invalid_grant")
            do {
                let status = try await relay.mcp.tool("get_me", token: freshTokens.access).reply.status
                #expect(status == 200)
            }
            _ = try await fresh.refresh(freshTokens)
            finished = true
            await relay.finish()
        }
    }
}

import Foundation
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// The relay and relayctl on DynamoDB (moto): `store migrate` creates the table the start-up check
    /// asked for, the relay serves from it, and the admin commands list and remove through a Scan.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlDynamoDBTests {
        @Test func testMigrateCreatesTheTableThenTheAdminCommandsWorkThroughAScan() async throws {
            let moto = try await MotoProcess()
            defer { moto.stop() }
            let table = "relay-admin-\(UUID().uuidString.prefix(8))"
            let settings = [
                "RELAY_STORE": "dynamodb", "RELAY_DYNAMODB_TABLE": table, "RELAY_AWS_REGION": "us-east-1",
                "RELAY_DYNAMODB_ENDPOINT": moto.endpoint, "RELAY_METRICS_GRANTS_INTERVAL": "1",
            ]
            let service = try await ServiceDirectory(extra: settings)
            defer { service.remove() }
            let missing = try ChildProcess(
                product: "mustdo-relay", ["serve", "--config", service.configFile, "--check-config"],
                environment: MotoProcess.credentials)
            let missingStatus = try await missing.waitForExit(timeout: .seconds(30))
            #expect(missingStatus == 1)
            #expect(
                missing.text.contains("RELAY_DYNAMODB_TABLE: the table \(table) does not exist at \(moto.endpoint)"),
                "\(missing.text)")
            #expect(missing.text.contains("mustdo-relayctl store migrate"), "\(missing.text)")

            let config = ["--config", service.configFile]
            let created = try await Relayctl.run(
                ["store", "migrate", "--json"] + config, environment: MotoProcess.credentials)
            #expect(created.json?["created"]?.boolValue == true, "\(created.description)")
            let again = try await Relayctl.run(["store", "migrate"] + config, environment: MotoProcess.credentials)
            #expect(again.status == 0, "\(again.description)")
            #expect(again.stdout.contains("table \(table) exists; TTL on expiresAt is on"), "\(again.description)")
            service.remove()

            // The relay itself on that table, with a user connected through the real flow.
            let relay = try await ServedRelay(extra: settings, environment: MotoProcess.credentials)
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let driver = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let tokens = try await driver.connect(appleID: "dynamo@example.com")
            do {
                let status = try await relay.mcp.tool("get_me", token: tokens.access).reply.status
                #expect(status == 200)
            }
            let clients = try await relay.relayctl(["clients", "list", "--json"])
            #expect(
                clients.json?.arrayValue?.compactMap { $0["id"]?.stringValue } == [driver.clientID],
                "\(clients.description)")
            let grants = try await relay.relayctl(["grants", "list", "--json"])
            #expect(grants.json?.arrayValue?.count == 1, "\(grants.description)")
            let stats = try await relay.relayctl(["store", "stats", "--json"])
            #expect(stats.json?["counts"]?["GRANT"]?.intValue == 1, "\(stats.description)")
            #expect(stats.json?["dynamodb"]?["table"]?.stringValue == table)
            _ = try await relay.waitForMetric("relay_oauth_active_grants 1")
            let purge = try await relay.relayctl(["store", "purge-expired"])
            #expect(purge.status == 0, "\(purge.description)")
            #expect(purge.stdout.contains("DynamoDB deletes expired items itself"), "\(purge.description)")
            let userID = try #require(grants.json?.arrayValue?.first?["userID"]?.stringValue)
            let disconnected = try await relay.relayctl(["users", "disconnect", userID, "--yes", "--json"])
            #expect(disconnected.json?["grantsRevoked"]?.intValue == 1, "\(disconnected.description)")
            let left = try await relay.relayctl(["grants", "list", "--json"])
            #expect(left.json?.arrayValue?.count == 0, "\(left.description)")
            finished = true
            await relay.finish()
        }
    }
}

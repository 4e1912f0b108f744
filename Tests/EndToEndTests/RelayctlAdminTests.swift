import Foundation
import RelayEmulator
import RelayJSON
import RelayStore
import Testing

extension EndToEndSuite {
    /// An operator managing real connections: users connect through the real OAuth flow to a
    /// `mustdo-relay serve` child process, then `mustdo-relayctl` (another process, same SQLite file)
    /// lists, shows, revokes and purges, and the relay's answers change accordingly. No output of
    /// relayctl contains a token, a code, a hash, a sealed blob or a secret file's contents.
    @Suite(.timeLimit(.minutes(10))) struct RelayctlAdminTests {
        @Test func testAnOperatorListsRevokesAndDisconnectsRealConnectionsWithoutSeeingASecret() async throws {
            let relay = try await ServedRelay(extra: [
                "RELAY_METRICS_GRANTS_INTERVAL": "1", "RELAY_OAUTH_VALIDATION_CACHE_TTL": "0",
            ])
            var finished = false
            defer { if !finished { Task { [relay] in await relay.finish() } } }
            let aliceFirst = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let aliceSecond = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let bob = OAuthDriver(http: relay.http, issuer: relay.issuer)
            let a1 = try await aliceFirst.connect(appleID: "alice@example.com")
            let a2 = try await aliceSecond.connect(appleID: "alice@example.com")
            let b = try await bob.connect(appleID: "bob@example.com")
            let unused = try await bob.json(
                .post, relay.issuer + "/register",
                body: ["redirect_uris": ["http://127.0.0.1:9/unused"], "token_endpoint_auth_method": "none"])
            let unusedID = try #require(unused["client_id"]?.stringValue)
            for tokens in [a1, a2, b] {
                let (reply, _) = try await relay.mcp.tool("get_me", token: tokens.access)
                #expect(reply.status == 200)
            }
            var outputs: [String] = []
            func ctl(_ arguments: [String]) async throws -> Relayctl.Result {
                let result = try await relay.relayctl(arguments)
                outputs.append(result.stdout + result.stderr)
                return result
            }

            // Lists: four clients (one never used), three grants, two users.
            let clients = try await ctl(["clients", "list", "--json"])
            #expect(clients.status == 0, "\(clients.description)")
            let clientList = clients.json?.arrayValue ?? []
            #expect(
                Set(clientList.compactMap { $0["id"]?.stringValue }) == [
                    aliceFirst.clientID, aliceSecond.clientID, bob.clientID, unusedID,
                ])
            #expect(clientList.filter { $0["lastUsedAt"]?.intValue != nil }.count == 3)
            let text = try await ctl(["clients", "list"])
            #expect(text.stdout.contains("4 client(s)") && text.stdout.contains("driver"), "\(text.stdout)")

            let grants = try await ctl(["grants", "list", "--json"])
            let grantList = grants.json?.arrayValue ?? []
            #expect(grantList.count == 3, "\(grants.description)")
            #expect(grantList.allSatisfy { $0["state"]?.stringValue == "active" })
            let aliceRecord = Emulator.userRecordName(appleID: "alice@example.com")
            let idResult = try await ctl(["users", "id", aliceRecord, "--json"])
            let aliceID = try #require(idResult.json?["userID"]?.stringValue)
            let plainID = try await ctl(["users", "id", aliceRecord])
            #expect(plainID.stdout == aliceID + "\n")
            #expect(!plainID.stdout.contains(aliceRecord), "the record name was echoed")
            let aliceGrants = grantList.filter { $0["userID"]?.stringValue == aliceID }
            #expect(
                Set(aliceGrants.compactMap { $0["clientID"]?.stringValue }) == [
                    aliceFirst.clientID, aliceSecond.clientID,
                ], "users id computes the user ID the relay stored at sign-in")
            let byUser = try await ctl(["grants", "list", "--user", aliceID, "--json"])
            #expect(byUser.json?.arrayValue?.count == 2, "\(byUser.description)")

            // What the person's connections page shows, the operator sees too: the app's name as
            // consent showed it (self-registered: unverified), where it returns to, what it may do, and
            // the day it was last used (written off the response's path: wait for it, generously).
            let today = Self.utcDay()
            var usage = grants
            var attempts = 0
            while usage.json?.arrayValue?.contains(where: { $0["lastUsedDay"] == .null }) != false, attempts < 100 {
                try await Task.sleep(nanoseconds: 100_000_000)
                usage = try await relay.relayctl(["grants", "list", "--json"])
                attempts += 1
            }
            for grant in usage.json?.arrayValue ?? [] {
                #expect(grant["clientName"] == "driver", "\(usage.description)")
                #expect(grant["clientSource"] == "dcr")
                let hosts = [aliceFirst, aliceSecond, bob].map {
                    String($0.redirectURI.dropFirst(7).prefix { $0 != "/" })
                }
                #expect(hosts.contains(grant["redirectHost"]?.stringValue ?? ""), "\(usage.description)")
                #expect(grant["scopes"] == ["todos:read", "todos:write"])
                // The day written is the UTC day of the call, checked against the days around it.
                #expect(
                    [today, Self.utcDay()].contains(grant["lastUsedDay"]?.stringValue ?? ""), "\(usage.description)")
            }
            let table = try await ctl(["grants", "list"])
            for column in ["APP", "REDIRECT", "SCOPES", "CONNECTED", "LAST USED"] {
                #expect(table.stdout.contains(column), "\(table.stdout)")
            }
            #expect(table.stdout.contains("driver (unverified)"), "\(table.stdout)")
            #expect(table.stdout.contains(today) || table.stdout.contains(Self.utcDay()), "\(table.stdout)")

            let shown = try await ctl(["clients", "show", bob.clientID, "--json"])
            #expect(shown.json?["grants"]?.intValue == 1, "\(shown.description)")
            #expect(shown.json?["redirectURIs"]?.arrayValue == [.string(bob.redirectURI)])
            #expect(shown.json?["name"]?.stringValue == "driver")

            let stats = try await ctl(["store", "stats", "--json"])
            let counts = stats.json?["counts"]
            #expect(counts?["CLIENT"]?.intValue == 4, "\(stats.description)")
            #expect(counts?["GRANT"]?.intValue == 3)
            #expect(counts?["TOKEN"]?.intValue == 3)
            #expect(counts?["REFRESH"]?.intValue == 3)
            #expect(counts?["USER"]?.intValue == 3)
            #expect(stats.json?["sqlite"]?["databaseBytes"]?.intValue ?? 0 > 0)

            // Metrics: the grants gauge, and store and key-service latency.
            _ = try await relay.waitForMetric("relay_oauth_active_grants 3")
            let metrics = try relay.metrics()
            #expect(metrics.contains(#"relay_store_operation_duration_seconds_count{operation="get"}"#), "\(metrics)")
            #expect(metrics.contains(#"relay_store_operation_duration_seconds_count{operation="scan"}"#), "\(metrics)")
            // Three grants, and the data key `serve` makes and opens before it listens (issue 39).
            #expect(
                metrics.contains(#"relay_key_service_duration_seconds_count{operation="generate_data_key"} 4"#),
                "\(metrics)")

            // The secrets the store holds, to look for in every output below.
            let storeSecrets = try await Self.secretsInStore(relay.service.path + "/relay.sqlite")
            #expect(storeSecrets.count > 12)

            // Revoke one grant of alice: its token stops working at once (no validation cache).
            let firstGrant = try #require(
                grantList.first { $0["clientID"]?.stringValue == aliceFirst.clientID }?["id"]?.stringValue)
            let revoked = try await ctl(["grants", "revoke", firstGrant, "--yes"])
            #expect(revoked.status == 0, "\(revoked.description)")
            do {
                let status = try await relay.mcp.tool("get_me", token: a1.access).reply.status
                #expect(status == 401)
            }
            do {
                let status = try await relay.mcp.tool("get_me", token: a2.access).reply.status
                #expect(status == 200)
            }

            // Forget alice: her other grant goes, bob's stays.
            let disconnected = try await ctl(["users", "disconnect", aliceID, "--yes", "--json"])
            #expect(disconnected.json?["grantsRevoked"]?.intValue == 1, "\(disconnected.description)")
            do {
                let status = try await relay.mcp.tool("get_me", token: a2.access).reply.status
                #expect(status == 401)
            }
            do {
                let status = try await relay.mcp.tool("get_me", token: b.access).reply.status
                #expect(status == 200)
            }
            do {
                let none = try await ctl(["grants", "list", "--user", aliceID, "--json"])
                #expect(none.json?.arrayValue?.count == 0)
            }

            // Delete bob's client: its grant goes with it.
            let deleted = try await ctl(["clients", "delete", bob.clientID, "--yes", "--json"])
            #expect(deleted.json?["grantsRevoked"]?.intValue == 1, "\(deleted.description)")
            do {
                let status = try await relay.mcp.tool("get_me", token: b.access).reply.status
                #expect(status == 401)
            }
            _ = try await relay.waitForMetric("relay_oauth_active_grants 0")

            // Purge: only the client that never connected anyone.
            let purged = try await ctl(["clients", "purge-unused", "--older-than", "0", "--yes", "--json"])
            #expect(purged.json?["deleted"]?.intValue == 1, "\(purged.description)")
            let remaining = try await ctl(["clients", "list", "--json"])
            #expect(
                Set(remaining.json?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == [
                    aliceFirst.clientID, aliceSecond.clientID,
                ])
            let after = try await ctl(["store", "stats", "--json"])
            for kind in ["GRANT", "GRANT_INDEX", "TOKEN", "REFRESH", "USER"] {
                #expect(after.json?["counts"]?[kind]?.intValue == 0, "\(kind): \(after.description)")
            }

            // With the relay stopped (no background purge), expired rows are purged on demand.
            try await relay.stopRelay()
            let store = try await SQLiteStore.open(path: relay.service.path + "/relay.sqlite")
            for index in 0..<3 {
                _ = try await store.put(
                    ItemKey(pk: "AUTHREQ#expired\(index)", sk: "META"), attributes: [:], expiresAt: 1)
            }
            await store.close()
            let beforePurge = try await ctl(["store", "stats", "--json"])
            let rows = beforePurge.json?["sqlite"]?["rowsIncludingExpired"]?.intValue ?? 0
            let live = beforePurge.json?["total"]?.intValue ?? 0
            #expect(rows == live + 3, "\(beforePurge.description)")
            let purge = try await ctl(["store", "purge-expired", "--yes", "--json"])
            #expect(purge.json?["purged"]?.intValue == 3, "\(purge.description)")

            let secrets =
                storeSecrets + aliceFirst.secretsSeen + aliceSecond.secretsSeen + bob.secretsSeen
                + (try Self.secretFileKeys(relay.service.path + "/secrets"))
            for output in outputs {
                for secret in secrets {
                    #expect(!output.contains(secret), "relayctl printed a secret: \(output)")
                }
            }
            finished = true
            await relay.finish()
        }

        /// Every value in the store that must never be shown: sealed tokens, token bindings, hashes of
        /// tokens and codes (in keys and attributes), client secret hashes.
        static func secretsInStore(_ path: String) async throws -> [String] {
            let store = try await SQLiteStore.open(path: path)
            var secrets: [String] = []
            for item in try await store.scanAll(pkPrefix: "") {
                for name in ["sealed", "bound", "secret", "rt_current", "rt_previous", "rt_successor"] {
                    if let value = item.attributes[name]?.stringValue { secrets.append(value) }
                }
                for prefix in ["TOKEN#", "REFRESH#", "CODE#"] {
                    if item.pk.hasPrefix(prefix) { secrets.append(String(item.pk.dropFirst(prefix.count))) }
                    if item.sk.hasPrefix(prefix) { secrets.append(String(item.sk.dropFirst(prefix.count))) }
                }
            }
            await store.close()
            return secrets.filter { $0.count >= 16 }
        }

        /// The keys in the secret files (pepper, user-ID key, binding secret, master keys, API token).
        static func secretFileKeys(_ directory: String) throws -> [String] {
            var keys: [String] = []
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                    if let last = line.split(separator: " ").last { keys.append(String(last)) }
                }
            }
            return keys.filter { $0.count >= 12 }
        }

        /// Today's UTC date, `2026-12-01`.
        static func utcDay() -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: Date())
        }
    }
}

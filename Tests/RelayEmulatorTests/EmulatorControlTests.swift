import Foundation
import RelayEmulator
import RelayHTTP
import RelayJSON
import Testing

@Suite struct EmulatorControlTests {
    @Test func statsCountRequestsAndConnections() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        for _ in 0..<5 { _ = try await session.call("zones/list") }
        let stats = try await client.control("/control/stats")
        #expect(stats.json["databaseRequests"] == 5)
        #expect(stats.json["operations"]?["zones/list"] == 5)
        #expect(stats.json["openConnections"] == 1)
        #expect(stats.json["peakOpenConnections"] == 1)
        #expect(stats.json["requests"] == 6)
    }

    @Test func usersRecordsSessionsAndReset() async throws {
        let client = try EmulatorClient()
        let seeded = try await client.control(
            "/control/users/alice@example.com/records",
            ["records": [["recordName": "t1", "recordType": "Todo", "fields": ["title": ["value": "x"]]]]])
        #expect(seeded.json["records"]?[0]?["recordChangeTag"] != nil)
        let read = try await client.control("/control/users/alice@example.com/records?recordType=Todo")
        #expect(read.json["records"]?.arrayValue?.count == 1)
        #expect(
            try await client.control("/control/users/alice@example.com/records?recordType=Account").json["records"]
                == [])
        let session = try await client.control("/control/users/alice@example.com/sessions", [:])
        let token = try #require(session.json["webAuthToken"]?.stringValue)
        #expect(try await client.database("zones/list", token: token).status == 200)
        let user = try await client.control("/control/users/" + Emulator.userRecordName(appleID: "alice@example.com"))
        #expect(user.json["appleID"] == "alice@example.com")
        #expect(user.json["liveSessions"] == 1)
        #expect(try await client.control("/control/users/_0000").status == 404)

        let expired = try await client.control("/control/sessions/expire", ["user": "alice@example.com"])
        #expect(expired.json["expired"] == 1)
        #expect(try await client.control("/control/reset", [:]).status == 200)
        #expect(try await client.control("/control/users").json == [])
    }

    @Test func settingsAreValidated() async throws {
        let client = try EmulatorClient()
        let before = try await client.control("/control/settings")
        #expect(before.json["rotation"] == "invalidate")
        #expect(try await client.control("/control/settings", ["rotation": "sometimes"]).status == 400)
        #expect(try await client.control("/control/settings", ["bogus": 1]).status == 400)
        #expect(try await client.control("/control/faults", ["count": 1]).status == 400)
        let changed = try await client.control(
            "/control/settings", ["tokenLifetimeSeconds": nil, "callerShape": "bare"])
        #expect(changed.json["tokenLifetimeSeconds"] == nil || changed.json["tokenLifetimeSeconds"] == .null)
        #expect(client.emulator.settings.callerShape == "bare")
        #expect(client.emulator.settings.tokenLifetime == nil)
    }

    @Test func controlAPIAnswersLoopbackOnly() async throws {
        guard let address = nonLoopbackAddress() else { return }
        let client = try EmulatorClient(EmulatorConfiguration(host: "0.0.0.0"))
        let outside = try await client.http.send(
            ClientRequest(url: "http://\(address):\(client.emulator.port)/control/stats"))
        #expect(outside.status == 403)
        let inside = try await client.http.send(
            ClientRequest(url: "http://127.0.0.1:\(client.emulator.port)/control/stats"))
        #expect(inside.status == 200)
        // The CloudKit API itself answers anyone.
        let api = try await client.http.send(
            ClientRequest(
                url:
                    "http://\(address):\(client.emulator.port)/database/1/c/development/public/users/caller?ckAPIToken=x"
            ))
        #expect(api.status == 401)
    }

    @Test func stateFileKeepsUsersRecordsAndSessions() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var token: String
        do {
            let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            try first.start()
            token = try first.createSession(appleID: "alice@example.com").webAuthToken
            try first.seed(
                "alice@example.com",
                records: [["recordName": "kept", "recordType": "Todo", "fields": ["title": ["value": "x"]]]])
            try first.setUserFlags("mallory@example.com", advancedDataProtection: true)
            first.shutdown()
            await first.waitUntilStopped()
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let second = try EmulatorClient(EmulatorConfiguration(stateFile: path))
        let records = try second.emulator.records(of: "alice@example.com")
        #expect(records.first?["recordName"] == "kept")
        #expect(records.first?["fields"]?["title"]?["value"] == "x")
        #expect(try await second.database("zones/list", token: token).status == 200)
        let mallory = try await second.control("/control/users/mallory@example.com")
        #expect(mallory.json["advancedDataProtection"] == true)
        // A new record gets a tag the old ones never had.
        let again = try second.emulator.seed(
            "alice@example.com", records: [["recordName": "new", "recordType": "Todo", "fields": [:]]])
        #expect(again.first?["recordChangeTag"] != records.first?["recordChangeTag"])
    }

    @Test func corruptStateFileIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: EmulatorError.self) { try Emulator(configuration: EmulatorConfiguration(stateFile: path)) }
    }

    @Test func commandLine() throws {
        let configuration = try #require(
            try EmulatorCommand.parse([
                "--port", "9000", "--api-token", "T", "--callback", "http://127.0.0.1:8080/cb", "--rotation", "keep",
                "--token-lifetime", "0", "--dead-token-status", "401", "--caller-shape", "bare", "--rotate-on-errors",
                "--container", "iCloud.x", "--zone", "Z",
            ]))
        #expect(configuration.port == 9000)
        #expect(configuration.apiToken == "T")
        #expect(configuration.callbackURL == "http://127.0.0.1:8080/cb")
        #expect(configuration.container == "iCloud.x")
        #expect(configuration.zoneName == "Z")
        #expect(configuration.settings.rotation == .keep)
        #expect(configuration.settings.tokenLifetime == nil)
        #expect(configuration.settings.deadTokenStatus == 401)
        #expect(configuration.settings.callerShape == "bare")
        #expect(configuration.settings.rotateOnErrors)
        #expect(try EmulatorCommand.parse(["--help"]) == nil)
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--port"]) }
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--port", "70000"]) }
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--dead-token-status", "404"]) }
        #expect(throws: EmulatorError.self) { try EmulatorCommand.parse(["--frobnicate"]) }
    }

    @Test func helpDocumentsEveryControlEndpoint() {
        for path in [
            "/control/stats", "/control/reset", "/control/callback", "/control/settings", "/control/latency",
            "/control/clock",
            "/control/faults", "/control/item-faults", "/control/faults/clear", "/control/sessions/expire",
            "/control/users/{user}/flags", "/control/users/{user}/sessions", "/control/users/{user}/records",
            "--port", "--api-token", "--callback", "--rotation", "--token-lifetime", "--state",
        ] {
            #expect(EmulatorCommand.usage.contains(path), "\(path) is not in --help")
        }
    }
}

/// A local IPv4 address that is not loopback, if the machine has one.
func nonLoopbackAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    var cursor = list
    while let entry = cursor {
        defer { cursor = entry.pointee.ifa_next }
        guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
        var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        let bytes = withUnsafeBytes(of: &v4) { Array($0) }
        if bytes[0] != 127 { return bytes.map(String.init).joined(separator: ".") }
    }
    return nil
}

import RelayEmulator
import RelayJSON
import Testing

@Suite struct EmulatorZonesTests {
    @Test func zonesListLookupModify() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let list = try await session.call("zones/list")
        let zones = try #require(list.json["zones"]?.arrayValue)
        let custom = try #require(zones.first { $0["zoneID"]?["zoneName"] == "MustDo" })
        #expect(custom["zoneID"]?["zoneType"] == "REGULAR_CUSTOM_ZONE")
        #expect(custom["zoneID"]?["ownerRecordName"] == .string(Emulator.userRecordName(appleID: "alice@example.com")))
        #expect(custom["syncToken"]?.stringValue?.isEmpty == false)
        #expect(custom["atomic"] == true)
        #expect(zones.contains { $0["zoneID"]?["zoneType"] == "DEFAULT_ZONE" })

        let lookup = try await session.call("zones/lookup", ["zones": [["zoneName": "MustDo"], ["zoneName": "Nope"]]])
        #expect(lookup.json["zones"]?[0]?["zoneID"]?["zoneName"] == "MustDo")
        #expect(lookup.json["zones"]?[1]?["serverErrorCode"] == "ZONE_NOT_FOUND")

        func modify(_ type: String, _ name: String) async throws -> JSONValue {
            let reply = try await session.call(
                "zones/modify",
                ["operations": [["operationType": .string(type), "zone": ["zoneID": ["zoneName": .string(name)]]]]])
            return reply.json["zones"]?[0] ?? .null
        }
        #expect(try await modify("create", "Extra")["zoneID"]?["zoneName"] == "Extra")
        #expect(try await modify("create", "MustDo")["serverErrorCode"] == nil)
        #expect(try await modify("delete", "Extra")["deleted"] == true)
        #expect(try await modify("delete", "Extra")["serverErrorCode"] == "ZONE_NOT_FOUND")
        #expect(try await modify("delete", "_defaultZone")["serverErrorCode"] == "BAD_REQUEST")
    }

    @Test func changesZonePagesWithTombstones() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        _ = try await client.control("/control/settings", ["changesPageSize": 2])
        let saved = try client.emulator.seed(
            "alice@example.com",
            records: ["a", "b", "c"].map {
                ["recordName": .string($0), "recordType": "Todo", "fields": ["title": ["value": .string($0)]]]
            }
                + [["recordName": "acct", "recordType": "Account", "fields": [:]]])
        let tag = try #require(saved[1]["recordChangeTag"])
        _ = try await session.call(
            "records/modify",
            [
                "zoneID": ["zoneName": "MustDo"], "atomic": false,
                "operations": [["operationType": "delete", "record": ["recordName": "b", "recordChangeTag": tag]]],
            ])

        var syncToken: JSONValue = .null
        var seen: [String] = []
        var pages = 0
        while true {
            var zone: JSONObject = ["zoneID": ["zoneName": "MustDo"], "desiredRecordTypes": ["Todo"]]
            if syncToken != .null { zone["syncToken"] = syncToken }
            let reply = try await session.call("changes/zone", ["zones": [.object(zone)]])
            let result = try #require(reply.json["zones"]?[0])
            for record in result["records"]?.arrayValue ?? [] {
                let name = record["recordName"]?.stringValue ?? "?"
                seen.append(record["deleted"] == true ? "-\(name)" : name)
                if record["deleted"] == true { #expect(record["recordType"] == nil && record["fields"] == nil) }
            }
            syncToken = result["syncToken"] ?? .null
            pages += 1
            if result["moreComing"] != true { break }
        }
        #expect(seen == ["a", "c", "-b"])
        #expect(pages == 2)
        let empty = try await session.call(
            "changes/zone", ["zones": [["zoneID": ["zoneName": "MustDo"], "syncToken": syncToken]]])
        #expect(empty.json["zones"]?[0]?["records"] == [])
        let bad = try await session.call(
            "changes/zone", ["zones": [["zoneID": ["zoneName": "MustDo"], "syncToken": "AQAAbm9wZQ=="]]])
        #expect(bad.status == 400)
        let missing = try await session.call("changes/zone", ["zones": [["zoneID": ["zoneName": "Nope"]]]])
        #expect(missing.json["zones"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND")
    }
}

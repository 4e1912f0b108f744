import RelayEmulator
import RelayJSON
import Testing

/// Where Apple lags or leaves a behaviour open, the emulator lags and plays each answer (issue 42): query indexes
/// behind the writes (lookup and the change feed never), the page size seen live, where records without a sort
/// field go, and `changes/zone` `reverse`.
@Suite struct EmulatorIndexLagTests {
    static let zone: JSONValue = ["zoneName": "MustDo"]

    static func todo(_ name: String, status: String = "pending", deleted: Bool = false) -> JSONValue {
        var fields: JSONObject = ["title": ["value": "t"], "status": ["value": .string(status)]]
        if deleted { fields["deletedAt"] = ["value": 1_780_000_000_000, "type": "TIMESTAMP"] }
        return ["recordName": .string(name), "recordType": "Todo", "fields": .object(fields)]
    }

    func names(_ reply: EmulatorClient.Reply) -> [String] {
        reply.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
    }

    func pending(_ session: Session) async throws -> [String] {
        let query: JSONValue = [
            "recordType": "Todo",
            "filterBy": [["comparator": "EQUALS", "fieldName": "status", "fieldValue": ["value": "pending"]]],
        ]
        return names(try await session.call("records/query", ["zoneID": Self.zone, "query": query]))
    }

    @Test func queriesLagWritesWhileLookupAndTheFeedDoNot() async throws {
        let client = try EmulatorClient()
        #expect(client.emulator.settings.indexLag == .milliseconds(3000), "on by default in the strict mode")
        let session = try Session(client)
        client.emulator.updateSettings { $0.indexLag = .milliseconds(60_000) }
        try client.emulator.seed("alice@example.com", records: [Self.todo("old")])
        #expect(try await pending(session) == ["old"], "seeds stand for history the indexes hold")

        let create = try await session.call(
            "records/modify",
            [
                "zoneID": Self.zone, "atomic": false,
                "operations": [["operationType": "create", "record": Self.todo("new")]],
            ])
        #expect(create.status == 200)
        let tag = try #require(
            try await session.call("records/lookup", ["zoneID": Self.zone, "records": [["recordName": "old"]]])
                .json["records"]?[0]?["recordChangeTag"]?.stringValue)
        let done = try await session.call(
            "records/modify",
            [
                "zoneID": Self.zone, "atomic": false,
                "operations": [
                    [
                        "operationType": "update",
                        "record": [
                            "recordName": "old", "recordChangeTag": .string(tag),
                            "fields": ["status": ["value": "done"]],
                        ],
                    ]
                ],
            ])
        #expect(done.status == 200)
        // The indexes still hold the old state: the new record is missing, the done one still pending (and returned
        // as the index holds it).
        #expect(try await pending(session) == ["old"])
        // Lookup and the change feed are current.
        let lookup = try await session.call(
            "records/lookup", ["zoneID": Self.zone, "records": [["recordName": "new"]]])
        #expect(names(lookup) == ["new"])
        let feed = try await session.call("changes/zone", ["zones": [["zoneID": Self.zone, "reverse": true]]])
        let changed = feed.json["zones"]?[0]?["records"]?.arrayValue ?? []
        #expect(changed.compactMap { $0["recordName"]?.stringValue } == ["old", "new"], "newest first")
        #expect(changed.first?["fields"]?["status"]?["value"] == "done")

        client.emulator.advanceClock(seconds: 61)
        #expect(try await pending(session) == ["new"])
    }

    @Test func noLagWhenTurnedOffOrLenient() async throws {
        for configuration in [EmulatorConfiguration(lenientSchema: true), EmulatorConfiguration()] {
            let client = try EmulatorClient(configuration)
            if !configuration.lenientSchema { client.emulator.updateSettings { $0.indexLag = .milliseconds(0) } }
            let session = try Session(client)
            _ = try await session.call(
                "records/modify",
                [
                    "zoneID": Self.zone, "atomic": false,
                    "operations": [["operationType": "create", "record": Self.todo("a")]],
                ])
            #expect(try await pending(session) == ["a"])
        }
    }

    /// (setting, ascending order, descending order)
    @Test(arguments: [("first", ["live", "del"], ["del", "live"]), ("last", ["del", "live"], ["live", "del"])])
    func recordsWithoutTheSortFieldGoToTheSettingsEnd(setting: String, ascending: [String], descending: [String])
        async throws
    {
        let client = try EmulatorClient()
        client.emulator.updateSettings { $0.missingSortValues = setting }
        let session = try Session(client)
        try client.emulator.seed("alice@example.com", records: [Self.todo("live"), Self.todo("del", deleted: true)])
        for (isAscending, expected) in [(true, ascending), (false, descending)] {
            let query: JSONValue = [
                "recordType": "Todo", "sortBy": [["fieldName": "deletedAt", "ascending": .bool(isAscending)]],
            ]
            #expect(names(try await session.call("records/query", ["zoneID": Self.zone, "query": query])) == expected)
        }
    }

    @Test func pageSizeAndReverseAreSettings() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        try client.emulator.seed("alice@example.com", records: (0..<150).map { Self.todo("t\($0)") })
        let page = try await session.call(
            "records/query", ["zoneID": Self.zone, "resultsLimit": 200, "query": ["recordType": "Todo"]])
        #expect(names(page).count == 100, "the page size seen live by default")
        client.emulator.updateSettings { $0.queryPageSize = 200 }
        let full = try await session.call("records/query", ["zoneID": Self.zone, "query": ["recordType": "Todo"]])
        #expect(names(full).count == 150 && full.json["continuationMarker"] == nil)

        client.emulator.updateSettings { $0.reverseChanges = "ignored" }
        let feed = try await session.call(
            "changes/zone", ["zones": [["zoneID": Self.zone, "reverse": true, "resultsLimit": 2]]])
        let first = feed.json["zones"]?[0]?["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue }
        #expect(first == ["t0", "t1"], "oldest first when reverse is ignored")

        let control = try await client.control(
            "/control/settings",
            ["queryPageSize": 50, "indexLagMilliseconds": 0, "missingSortValues": "last", "reverseChanges": "honoured"])
        #expect(control.status == 200)
        let settings = client.emulator.settings
        #expect(settings.queryPageSize == 50 && settings.indexLag == .milliseconds(0))
        #expect(settings.missingSortValues == "last" && settings.reverseChanges == "honoured")
        #expect(try await client.control("/control/settings", ["queryPageSize": 201]).status == 400)
    }
}

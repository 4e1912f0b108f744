import RelayEmulator
import RelayJSON
import Testing

/// A zone keeps each record's response form until the record changes (`ZoneState.wireRecords`), so a page of
/// unchanged records is not rendered again per request. No answer may differ for it: the bytes are those a tree of
/// the answer writes, the same on every read, and a change, a lagging query index or other options show at once.
@Suite struct RenderedRecordTests {
    static let zone = EmulatorIndexLagTests.zone

    func title(_ reply: EmulatorClient.Reply, _ name: String, in path: [String] = []) -> String? {
        var records = reply.json
        for key in path { records = records[key]?[0] ?? .null }
        return records["records"]?.arrayValue?.first { $0["recordName"]?.stringValue == name }?["fields"]?["title"]?[
            "value"]?.stringValue
    }

    @Test func keptRecordsAnswerAsRenderedOnes() async throws {
        let client = try EmulatorClient()
        client.emulator.updateSettings { $0.indexLag = .milliseconds(60_000) }
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com",
            records: [EmulatorIndexLagTests.todo("a"), EmulatorIndexLagTests.todo("b", deleted: true)])
        let query: JSONValue = [
            "zoneID": Self.zone,
            "query": ["recordType": "Todo", "sortBy": [["fieldName": "deletedAt", "ascending": true]]],
        ]
        let feed: JSONValue = ["zones": [["zoneID": Self.zone, "reverse": true]]]
        let lookup: JSONValue = ["zoneID": Self.zone, "records": [["recordName": "a"], ["recordName": "b"]]]
        for (operation, body) in [("records/query", query), ("changes/zone", feed), ("records/lookup", lookup)] {
            let first = try await session.call(operation, body)
            let second = try await session.call(operation, body)
            #expect(first.status == 200)
            #expect(first.text.contains("\"recordName\":\"b\""), "\(operation)")
            #expect(first.text == first.json.jsonString, "\(operation): written as the answer's tree writes it")
            #expect(second.text == first.text, "\(operation): kept records answer as they were rendered")
        }

        let tag = try #require(
            try await session.call("records/lookup", lookup).json["records"]?[0]?["recordChangeTag"]?.stringValue)
        let update = try await session.call(
            "records/modify",
            [
                "zoneID": Self.zone, "atomic": false,
                "operations": [
                    [
                        "operationType": "update",
                        "record": [
                            "recordName": "a", "recordChangeTag": .string(tag), "fields": ["title": ["value": "new"]],
                        ],
                    ]
                ],
            ])
        #expect(update.status == 200)
        // The feed and lookup show the change at once; the query, its index behind, the version it holds.
        #expect(title(try await session.call("changes/zone", feed), "a", in: ["zones"]) == "new")
        #expect(title(try await session.call("records/lookup", lookup), "a") == "new")
        #expect(title(try await session.call("records/query", query), "a") == "t")
        #expect(title(try await session.call("records/query", query), "a") == "t", "the old version is not kept")
        #expect(title(try await session.call("records/lookup", lookup), "a") == "new")

        // Other options are rendered as asked, and the kept form is still the full one.
        let some: JSONValue = [
            "zoneID": Self.zone, "records": [["recordName": "a"], ["recordName": "b"]], "desiredKeys": ["status"],
        ]
        let fields = try await session.call("records/lookup", some).json["records"]?[0]?["fields"]?.objectValue
        #expect(fields.map { Array($0.keys) } == ["status"])
        #expect(title(try await session.call("records/lookup", lookup), "a") == "new")

        client.emulator.advanceClock(seconds: 61)
        #expect(title(try await session.call("records/query", query), "a") == "new")
    }
}

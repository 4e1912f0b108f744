import RelayEmulator
import RelayJSON
import Testing

/// records/modify, lookup and query with the request shapes of reference §3.
@Suite struct EmulatorRecordsTests {
    static let zone: JSONValue = ["zoneName": "MustDo"]
    /// The reference's examples use record types and fields of their own (`Todo.done`, `Item`): these tests are
    /// about wire shapes, so they need the lenient schema (`EmulatorSchemaTests` covers the schema).
    static let lenient = EmulatorConfiguration(lenientSchema: true)

    /// The ModifyRecords example of reference §3.3, with T1 and T2 present first.
    @Test func referenceModifyExample() async throws {
        let client = try EmulatorClient(Self.lenient)
        let session = try Session(client)
        let seeded = try client.emulator.seed(
            "alice@example.com",
            records: [
                ["recordName": "T1", "recordType": "Todo", "fields": ["done": ["value": 0]]],
                ["recordName": "T2", "recordType": "Todo", "fields": ["done": ["value": 0]]],
            ])
        let tag = try #require(seeded.first?["recordChangeTag"]?.stringValue)
        let body: JSONValue = [
            "zoneID": Self.zone, "atomic": false,
            "operations": [
                [
                    "operationType": "create",
                    "record": [
                        "recordType": "Todo", "recordName": "T3",
                        "fields": [
                            "title": ["value": "Buy milk"], "dueAt": ["value": 1_735_722_000_000, "type": "TIMESTAMP"],
                        ],
                    ],
                ],
                [
                    "operationType": "update",
                    "record": ["recordName": "T1", "recordChangeTag": .string(tag), "fields": ["done": ["value": 1]]],
                ],
                ["operationType": "forceDelete", "record": ["recordName": "T2"]],
            ],
            "desiredKeys": nil, "numbersAsStrings": false,
        ]
        let reply = try await session.call("records/modify", body)
        #expect(reply.status == 200)
        let records = try #require(reply.json["records"]?.arrayValue)
        #expect(records.count == 3)
        let created = records[0]
        #expect(created["recordName"] == "T3")
        #expect(created["recordType"] == "Todo")
        #expect(created["fields"]?["title"] == ["value": "Buy milk", "type": "STRING"])
        #expect(created["fields"]?["dueAt"] == ["value": 1_735_722_000_000, "type": "TIMESTAMP"])
        #expect(created["recordChangeTag"]?.stringValue?.isEmpty == false)
        #expect(created["created"]?["timestamp"]?.intValue != nil)
        #expect(
            created["modified"]?["userRecordName"] == .string(Emulator.userRecordName(appleID: "alice@example.com")))
        #expect(created["zoneID"]?["zoneType"] == "REGULAR_CUSTOM_ZONE")
        #expect(created["deleted"] == false)
        #expect(records[1]["fields"]?["done"] == ["value": 1, "type": "INT64"])
        #expect(records[1]["recordChangeTag"] != .string(tag))
        #expect(records[2]["recordName"] == "T2")
        #expect(records[2]["deleted"] == true)
    }

    @Test func changeTagRulesPerOperation() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let saved = try client.emulator.seed(
            "alice@example.com",
            records: [
                [
                    "recordName": "A", "recordType": "Todo",
                    "fields": ["title": ["value": "a"], "notes": ["value": "n"]],
                ]
            ])
        let tag = try #require(saved.first?["recordChangeTag"])
        func modify(_ type: String, _ record: JSONValue) async throws -> JSONValue {
            let reply = try await session.call(
                "records/modify",
                [
                    "zoneID": Self.zone, "atomic": false,
                    "operations": [["operationType": .string(type), "record": record]],
                ])
            #expect(reply.status == 200)
            return reply.json["records"]?.arrayValue?.first ?? .null
        }
        let stale: JSONValue = "stale"
        #expect(
            try await modify("update", ["recordName": "A", "recordChangeTag": stale, "fields": [:]])["serverErrorCode"]
                == "CONFLICT")
        #expect(
            try await modify("replace", ["recordName": "A", "recordChangeTag": stale, "fields": [:]])["serverErrorCode"]
                == "CONFLICT")
        #expect(
            try await modify("delete", ["recordName": "A", "recordChangeTag": stale])["serverErrorCode"] == "CONFLICT")
        #expect(try await modify("update", ["recordName": "A", "fields": [:]])["serverErrorCode"] == "BAD_REQUEST")
        #expect(
            try await modify("update", ["recordName": "Z", "recordChangeTag": tag, "fields": [:]])["serverErrorCode"]
                == "NOT_FOUND")
        #expect(
            try await modify("create", ["recordName": "A", "recordType": "Todo", "fields": [:]])["serverErrorCode"]
                == "EXISTS")
        #expect(try await modify("create", ["recordName": "B", "fields": [:]])["serverErrorCode"] == "BAD_REQUEST")
        #expect(
            try await modify("create", ["recordName": "C", "recordType": "Todo", "fields": ["title": ["value": 5]]])[
                "serverErrorCode"] == "BAD_REQUEST")

        // A null value is refused by default (Apple does not document it; the relay clears with replace) …
        #expect(
            try await modify(
                "update", ["recordName": "A", "recordChangeTag": tag, "fields": ["notes": ["value": nil]]])[
                    "serverErrorCode"] == "BAD_REQUEST")
        // … and with nullValues = clear, update merges and a null value clears one field.
        _ = try await client.control("/control/settings", ["nullValues": "clear"])
        let updated = try await modify(
            "update", ["recordName": "A", "recordChangeTag": tag, "fields": ["notes": ["value": nil]]])
        #expect(updated["fields"]?["title"]?["value"] == "a")
        #expect(updated["fields"]?["notes"] == nil)
        // replace drops what it does not send; forceReplace needs no tag.
        let replaced = try await modify(
            "forceReplace", ["recordName": "A", "recordType": "Todo", "fields": ["notes": ["value": "only"]]])
        #expect(replaced["fields"]?["title"] == nil)
        #expect(replaced["fields"]?["notes"]?["value"] == "only")
        let forced = try await modify(
            "forceUpdate", ["recordName": "D", "recordType": "Todo", "fields": ["title": ["value": "new"]]])
        #expect(forced["recordName"] == "D")
        let generated = try await modify("create", ["recordType": "Todo", "fields": [:]])
        #expect(generated["recordName"]?.stringValue?.count == 36)

        _ = try await client.control("/control/settings", ["createExistsCode": "CONFLICT"])
        #expect(
            try await modify("create", ["recordName": "A", "recordType": "Todo", "fields": [:]])["serverErrorCode"]
                == "CONFLICT")
    }

    @Test func atomicBatches() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com", records: [["recordName": "X", "recordType": "Todo", "fields": [:]]])
        let operations: JSONValue = [
            ["operationType": "create", "record": ["recordName": "Y", "recordType": "Todo", "fields": [:]]],
            ["operationType": "create", "record": ["recordName": "X", "recordType": "Todo", "fields": [:]]],
        ]
        let atomic = try await session.call("records/modify", ["zoneID": Self.zone, "operations": operations])
        #expect(atomic.status == 400)
        let items = try #require(atomic.json["records"]?.arrayValue)
        #expect(items.map { $0["serverErrorCode"] } == ["ATOMIC_ERROR", "EXISTS"])
        #expect(try client.emulator.records(of: "alice@example.com").count == 1)

        _ = try await client.control("/control/settings", ["atomicFailure": "wholeRequest"])
        let whole = try await session.call("records/modify", ["zoneID": Self.zone, "operations": operations])
        #expect(whole.status == 400)
        #expect(whole.json["serverErrorCode"] == "ATOMIC_ERROR")

        let defaultZone = try await session.call("records/modify", ["operations": operations])
        #expect(defaultZone.status == 400)
        #expect(
            defaultZone.json["reason"]?.stringValue?.contains("atomic operations not supported in default zone") == true
        )
    }

    @Test func limits() async throws {
        let client = try EmulatorClient(Self.lenient)
        let session = try Session(client)
        let operations: [JSONValue] = (0..<201).map {
            [
                "operationType": "forceReplace",
                "record": ["recordName": .string("r\($0)"), "recordType": "Item", "fields": [:]],
            ]
        }
        let tooMany = try await session.call(
            "records/modify", ["zoneID": Self.zone, "atomic": false, "operations": .array(operations)])
        #expect(tooMany.status == 400)
        let ok = try await session.call(
            "records/modify",
            ["zoneID": Self.zone, "atomic": false, "operations": .array(Array(operations.prefix(200)))])
        #expect(ok.json["records"]?.arrayValue?.count == 200)
        let lookups: [JSONValue] = (0..<201).map { ["recordName": .string("r\($0)")] }
        #expect(
            try await session.call("records/lookup", ["zoneID": Self.zone, "records": .array(lookups)]).status == 400)
        let duplicate: JSONValue = [operations[0], operations[0]]
        #expect(
            try await session.call("records/modify", ["zoneID": Self.zone, "atomic": false, "operations": duplicate])
                .status == 400)
    }

    @Test func referenceLookupExample() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com",
            records: [
                [
                    "recordName": "T1", "recordType": "Todo",
                    "fields": ["title": ["value": "t"], "notes": ["value": "n"]],
                ]
            ])
        let body: JSONValue = [
            "records": [["recordName": "T1"], ["recordName": "T2", "desiredKeys": ["title"]]],
            "zoneID": Self.zone, "desiredKeys": nil, "numbersAsStrings": false,
        ]
        let reply = try await session.call("records/lookup", body)
        let records = try #require(reply.json["records"]?.arrayValue)
        #expect(records[0]["fields"]?.objectValue?.keys.sorted() == ["notes", "title"])
        #expect(records[1]["recordName"] == "T2")
        #expect(records[1]["reason"] == "Record not found")
        #expect(records[1]["serverErrorCode"] == "NOT_FOUND")
        let narrowed = try await session.call(
            "records/lookup", ["records": [["recordName": "T1"]], "zoneID": Self.zone, "desiredKeys": ["title"]])
        #expect(narrowed.json["records"]?[0]?["fields"]?.objectValue?.keys == ["title"])
        let missingZone = try await session.call(
            "records/lookup", ["records": [["recordName": "T1"]], "zoneID": ["zoneName": "Nope"]])
        #expect(missingZone.status == 404)
        #expect(missingZone.json["serverErrorCode"] == "ZONE_NOT_FOUND")
    }

    @Test func referenceQueryExample() async throws {
        let client = try EmulatorClient(Self.lenient)
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com",
            records: (0..<5).map { n in
                [
                    "recordName": .string("T\(n)"), "recordType": "Todo",
                    "fields": [
                        "title": ["value": .string("t\(n)")], "done": ["value": .int(n % 2)],
                        "dueAt": ["value": .int(1_735_722_000_000 - n * 1000), "type": "TIMESTAMP"],
                    ],
                ]
            })
        let body: JSONValue = [
            "zoneID": Self.zone, "resultsLimit": 200,
            "query": [
                "recordType": "Todo",
                "filterBy": [
                    ["comparator": "EQUALS", "fieldName": "done", "fieldValue": ["value": 0, "type": "INT64"]],
                    [
                        "comparator": "GREATER_THAN_OR_EQUALS", "systemFieldName": "modifiedTimestamp",
                        "fieldValue": ["value": 1_735_689_600_000, "type": "TIMESTAMP"],
                    ],
                ],
                "sortBy": [["fieldName": "dueAt", "ascending": true]],
            ],
            "desiredKeys": ["title", "dueAt"],
        ]
        let reply = try await session.call("records/query", body)
        #expect(reply.status == 200)
        let records = try #require(reply.json["records"]?.arrayValue)
        #expect(records.map { $0["recordName"] } == ["T4", "T2", "T0"])
        #expect(records[0]["fields"]?.objectValue?.keys.sorted() == ["dueAt", "title"])
        #expect(reply.json["continuationMarker"] == nil)
    }

    @Test func queryComparatorsPagingAndErrors() async throws {
        let client = try EmulatorClient(Self.lenient)
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com",
            records: (0..<250).map { n in
                [
                    "recordName": .string("r\(n)"), "recordType": "Item",
                    "fields": ["n": ["value": .int(n)], "tag": ["value": .string(n % 3 == 0 ? "fizz" : "plain")]],
                ]
            })
        func query(_ filters: JSONValue, limit: Int? = nil, marker: String? = nil) async throws -> EmulatorClient.Reply
        {
            var body: JSONObject = [
                "zoneID": Self.zone,
                "query": ["recordType": "Item", "filterBy": filters, "sortBy": [["fieldName": "n"]]],
            ]
            if let limit { body["resultsLimit"] = .int(limit) }
            if let marker { body["continuationMarker"] = .string(marker) }
            return try await session.call("records/query", .object(body))
        }
        func names(_ reply: EmulatorClient.Reply) -> [Int] {
            (reply.json["records"]?.arrayValue ?? []).compactMap { $0["fields"]?["n"]?["value"]?.intValue }
        }
        #expect(
            names(try await query([["comparator": "LESS_THAN", "fieldName": "n", "fieldValue": ["value": 3]]])) == [
                0, 1, 2,
            ])
        #expect(
            names(
                try await query([["comparator": "LESS_THAN_OR_EQUALS", "fieldName": "n", "fieldValue": ["value": 1]]]))
                == [0, 1])
        #expect(
            names(try await query([["comparator": "GREATER_THAN", "fieldName": "n", "fieldValue": ["value": 247]]]))
                == [248, 249])
        #expect(
            names(
                try await query([
                    ["comparator": "NOT_EQUALS", "fieldName": "tag", "fieldValue": ["value": "plain"]],
                    ["comparator": "LESS_THAN", "fieldName": "n", "fieldValue": ["value": 7]],
                ])) == [0, 3, 6])
        let inList: JSONValue = [
            "comparator": "IN", "fieldName": "n", "fieldValue": ["value": [5, 7, 900], "type": "INT64_LIST"],
        ]
        #expect(names(try await query([inList])) == [5, 7])
        let badIn = try await query([
            ["comparator": "IN", "fieldName": "n", "fieldValue": ["value": 5, "type": "INT64"]]
        ])
        #expect(badIn.status == 400)
        #expect(try await query([["comparator": "NEAR", "fieldName": "n", "fieldValue": ["value": 5]]]).status == 400)

        // 250 matches: the page is capped at the 100 seen live (`queryPageSize`; Apple documents 200) and carries a
        // marker; the marker resumes.
        let first = try await query([])
        #expect(names(first).count == 100)
        let marker = try #require(first.json["continuationMarker"]?.stringValue)
        let second = try await query([], marker: marker)
        #expect(names(second) == Array(100..<200))
        let third = try await query([], marker: try #require(second.json["continuationMarker"]?.stringValue))
        #expect(names(third) == Array(200..<250))
        #expect(third.json["continuationMarker"] == nil)
        let small = try await query([], limit: 100)
        #expect(names(small) == Array(0..<100))
        // A marker from one query does not fit another.
        let foreign = try await query(
            [["comparator": "LESS_THAN", "fieldName": "n", "fieldValue": ["value": 3]]], marker: marker)
        #expect(foreign.status == 400)
        #expect(try await query([], limit: 0).status == 400)
    }

    @Test func numbersAsStrings() async throws {
        let client = try EmulatorClient(Self.lenient)
        let session = try Session(client)
        try client.emulator.seed(
            "alice@example.com",
            records: [["recordName": "N", "recordType": "Item", "fields": ["n": ["value": 9_007_199_254_740_993]]]])
        let reply = try await session.call(
            "records/lookup", ["zoneID": Self.zone, "records": [["recordName": "N"]], "numbersAsStrings": true])
        #expect(reply.json["records"]?[0]?["fields"]?["n"] == ["value": "9007199254740993", "type": "INT64"])
    }
}

extension JSONValue {
    /// Element `index` of an array.
    subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

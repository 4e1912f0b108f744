import RelayEmulator
import RelayJSON
import Testing

/// Queries the indexes cannot serve, and the limits Apple enforces (PropertyMetrics, Types, `CKRecord.ID`):
/// each refused the way the emulator documents, with the relay's schema in production unless a test says so.
@Suite struct EmulatorRefusalTests {
    static let zone: JSONValue = ["zoneName": "MustDo"]

    static func query(_ type: String, filters: [JSONValue] = [], sorts: [JSONValue] = []) -> JSONValue {
        var query: JSONObject = ["recordType": .string(type)]
        if !filters.isEmpty { query["filterBy"] = .array(filters) }
        if !sorts.isEmpty { query["sortBy"] = .array(sorts) }
        return ["zoneID": zone, "query": .object(query)]
    }

    static func filter(_ field: String, _ comparator: String, _ value: JSONValue, system: Bool = false) -> JSONValue {
        [
            system ? "systemFieldName" : "fieldName": .string(field), "comparator": .string(comparator),
            "fieldValue": ["value": value],
        ]
    }

    /// (status, serverErrorCode, reason) of a reply.
    static func refusal(_ reply: EmulatorClient.Reply) -> (Int, String?, String?) {
        (reply.status, reply.json["serverErrorCode"]?.stringValue, reply.json["reason"]?.stringValue)
    }

    @Test(arguments: ["production", "development"])
    func queriesNeedTheirIndexesInBothEnvironments(environment: String) async throws {
        let client = try EmulatorClient(environment: environment)
        let session = try Session(client)
        // The relay's two queries are served.
        #expect(try await session.call("records/query", Self.query("Todo")).status == 200)
        let occurrences = Self.query(
            "Occurrence",
            filters: [
                ["fieldName": "todoId", "comparator": "IN", "fieldValue": ["value": ["a"], "type": "STRING_LIST"]]
            ])
        #expect(try await session.call("records/query", occurrences).status == 200)

        let cases: [(JSONValue, (Int, String?, String?))] = [
            (Self.query("Occurrence"), (400, "BAD_REQUEST", "Field 'recordName' is not marked queryable")),
            (
                Self.query("Occurrence", filters: [Self.filter("state", "EQUALS", "done")]),
                (400, "BAD_REQUEST", "Field 'state' is not marked queryable")
            ),
            (
                Self.query("Occurrence", filters: [Self.filter("todoId", "GREATER_THAN", "a")]),
                (400, "BAD_REQUEST", "Field 'todoId' is not marked sortable")
            ),
            (
                Self.query("Todo", sorts: [["fieldName": "dueAt", "ascending": true]]),
                (400, "BAD_REQUEST", "Field 'dueAt' is not marked sortable")
            ),
            (
                Self.query("Todo", sorts: [["systemFieldName": "modifiedTimestamp"]]),
                (400, "BAD_REQUEST", "Field 'modifiedTimestamp' is not marked sortable")
            ),
            (
                Self.query("Todo", filters: [Self.filter("recordName", "EQUALS", "x")]),
                (400, "BAD_REQUEST", "Did not find field: 'recordName' in type: 'Todo'")
            ),
            (
                Self.query("Occurrence", filters: [Self.filter("recordName", "EQUALS", "x", system: true)]),
                (400, "BAD_REQUEST", "Field 'recordName' is not marked queryable")
            ),
            (Self.query("Note"), (404, "NOT_FOUND", "Did not find record type: Note")),
        ]
        for (body, expected) in cases {
            let reply = try await session.call("records/query", body)
            #expect(Self.refusal(reply) == expected, "\(body.jsonString)")
        }
        // A system field filter on the one index the schema declares is served.
        let byName = Self.query("Todo", filters: [Self.filter("recordName", "EQUALS", "x", system: true)])
        #expect(try await session.call("records/query", byName).status == 200)
    }

    @Test func lenientModeServesAnyQuery() async throws {
        let client = try EmulatorClient(EmulatorConfiguration(lenientSchema: true))
        let session = try Session(client)
        let reply = try await session.call(
            "records/query",
            Self.query("Occurrence", filters: [Self.filter("state", "EQUALS", "done")], sorts: [["fieldName": "date"]]))
        #expect(reply.status == 200)
        #expect(try await session.call("records/query", Self.query("Note")).json["records"] == [])
    }

    @Test func resultsLimitIsOneTo200() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        for (limit, status) in [(201, 400), (0, 400), (-1, 400), (200, 200), (1, 200)] {
            var body = Self.query("Todo").objectValue!
            body["resultsLimit"] = .int(limit)
            let reply = try await session.call("records/query", .object(body))
            #expect(reply.status == status, "resultsLimit \(limit)")
            if status == 400 {
                #expect(reply.json["reason"] == "BadRequestException: resultsLimit must be between 1 and 200")
            }
        }
        let changes: JSONValue = ["zones": [["zoneID": Self.zone, "resultsLimit": 201]]]
        #expect(try await session.call("changes/zone", changes).status == 400)
    }

    @Test func moreThan200ItemsInOneRequestAreRefusedWhole() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let operations: [JSONValue] = (0..<201).map {
            ["operationType": "forceDelete", "record": ["recordName": .string("t\($0)")]]
        }
        let modify = try await session.call(
            "records/modify", ["zoneID": Self.zone, "atomic": false, "operations": .array(operations)])
        #expect(
            Self.refusal(modify)
                == (
                    400, "BAD_REQUEST",
                    "BadRequestException: Your request contains 201 items which is more than the maximum number of items in a single request (200)"
                ))
        let lookups: [JSONValue] = (0..<201).map { ["recordName": .string("t\($0)")] }
        #expect(
            try await session.call("records/lookup", ["zoneID": Self.zone, "records": .array(lookups)]).status == 400)
        let zones: [JSONValue] = (0..<201).map {
            ["operationType": "create", "zone": ["zoneID": ["zoneName": .string("z\($0)")]]]
        }
        #expect(try await session.call("zones/modify", ["operations": .array(zones)]).status == 400)
        let twoHundred = try await session.call(
            "records/lookup", ["zoneID": Self.zone, "records": .array(Array(lookups.prefix(200)))])
        #expect(twoHundred.json["records"]?.arrayValue?.count == 200)
    }

    @Test func recordNamesFollowCloudKitsRules() async throws {
        let client = try EmulatorClient()
        let session = try Session(client)
        let bad = ["tödo", String(repeating: "a", count: 256), "_private", ""]
        let good = String(repeating: "b", count: 255)
        let operations: [JSONValue] = (bad + [good]).map { name in
            [
                "operationType": "create",
                "record": ["recordName": .string(name), "recordType": "Todo", "fields": ["title": ["value": "x"]]],
            ]
        }
        let reply = try await session.call(
            "records/modify", ["zoneID": Self.zone, "atomic": false, "operations": .array(operations)])
        let records = try #require(reply.json["records"]?.arrayValue)
        let reasons = records.prefix(4).map { $0["reason"]?.stringValue ?? "" }
        #expect(records.prefix(4).allSatisfy { $0["serverErrorCode"] == "BAD_REQUEST" })
        #expect(reasons[0].contains("ASCII"))
        #expect(reasons[1].contains("255"))
        #expect(reasons[2].contains("underscore"))
        #expect(reasons[3].contains("empty"))
        #expect(records[4]["recordName"] == .string(good))
        #expect(records[4]["recordChangeTag"] != nil)
        let lookup = try await session.call(
            "records/lookup",
            ["zoneID": Self.zone, "records": [["recordName": "tödo"], ["recordName": .string(good)]]])
        #expect(lookup.json["records"]?[0]?["serverErrorCode"] == "BAD_REQUEST")
        #expect(lookup.json["records"]?[1]?["recordName"] == .string(good))
    }

    @Test func unknownTypeTagsAndLocationsWithoutCoordinatesAreUnexpectedInput() async throws {
        let schema = try ContainerSchema(
            parsing:
                "DEFINE SCHEMA RECORD TYPE Place ( \"___recordID\" REFERENCE QUERYABLE, spot LOCATION, path LIST<LOCATION> );"
        )
        let client = try EmulatorClient(EmulatorConfiguration(schema: schema))
        let session = try Session(client)
        func save(_ fields: JSONValue) async throws -> EmulatorClient.Reply {
            try await session.call(
                "records/modify",
                [
                    "zoneID": Self.zone, "atomic": false,
                    "operations": [["operationType": "create", "record": ["recordType": "Place", "fields": fields]]],
                ])
        }
        let unexpected = (400, Optional("BAD_REQUEST"), Optional("BadRequestException: Unexpected input"))
        #expect(Self.refusal(try await save(["spot": ["value": ["latitude": 1], "type": "LOCATION"]])) == unexpected)
        #expect(
            Self.refusal(try await save(["spot": ["value": ["latitude": 1, "longitude": 2], "type": "LIST"]]))
                == unexpected)
        #expect(Self.refusal(try await save(["spot": ["value": 3, "type": "BOOLEAN"]])) == unexpected)
        #expect(Self.refusal(try await save(["spot": "not a field dictionary"])) == unexpected)
        #expect(
            Self.refusal(
                try await save([
                    "path": ["value": [["latitude": 1, "longitude": 2], ["longitude": 2]], "type": "LOCATION_LIST"]
                ]))
                == unexpected)
        let untyped = try await save(["spot": ["value": ["longitude": 2]]])
        #expect(
            untyped.json["records"]?[0]?["serverErrorCode"] == "BAD_REQUEST", "typed by the schema, still no latitude")
        let saved = try await save(["spot": ["value": ["latitude": 35.68, "longitude": 139.76], "type": "LOCATION"]])
        #expect(saved.json["records"]?[0]?["fields"]?["spot"]?["type"] == "LOCATION")
        #expect(try client.emulator.records(of: "alice@example.com").count == 1)
    }
}

import RelayEmulator
import RelayJSON
import RelayTestSupport
import Testing

/// The emulator reads `records/query` pages from sort indexes and `changes/zone` from a change log, kept in step
/// with every write, as Apple's service reads its indexes (issue 42: the emulator's own time stays out of the
/// latency it plays). They must change no answer: on random histories (saves, updates, deletes, ties, missing and
/// lagging values, every placement of records without the sort field, several page sizes) every indexed page
/// equals the page a scan of every record gives, and the feed equals the history's own order of changes.
@Suite struct QueryIndexTests {
    static let zone: JSONValue = ["zoneName": "MustDo"]
    static let statuses = ["pending", "done", "skipped"]

    /// A random `Todo`: few distinct `deletedAt`, `dueAt` and titles, so sorts have ties; some fields missing.
    static func todo(_ name: String, _ random: inout SplitMix) -> JSONValue {
        var fields: JSONObject = [
            "status": ["value": .string(statuses[Int(random.next() % 3)]), "type": "STRING"]
        ]
        if random.next() % 3 != 0 {
            fields["deletedAt"] = [
                "value": .int(1_780_000_000_000 + Int(random.next() % 5) * 1000), "type": "TIMESTAMP",
            ]
        }
        if random.next() % 4 != 0 {
            fields["dueAt"] = ["value": .int(1_790_000_000_000 + Int(random.next() % 9) * 60_000), "type": "TIMESTAMP"]
        }
        if random.next() % 5 != 0 { fields["title"] = ["value": .string("t\(random.next() % 6)"), "type": "STRING"] }
        return ["recordName": .string(name), "recordType": "Todo", "fields": .object(fields)]
    }

    static func occurrence(_ name: String, _ random: inout SplitMix) -> JSONValue {
        let fields: JSONObject = [
            "todoId": ["value": .string("r\(random.next() % 8)"), "type": "STRING"],
            "date": ["value": .string("2026-12-0\(1 + random.next() % 7)"), "type": "STRING"],
        ]
        return ["recordName": .string(name), "recordType": "Occurrence", "fields": .object(fields)]
    }

    /// The queries compared: the relay's own and other sorts, filters and directions.
    static var queries: [JSONValue] {
        let pending: JSONValue = [
            "comparator": "EQUALS", "fieldName": "status", "fieldValue": ["value": "pending", "type": "STRING"],
        ]
        let finished: JSONValue = [
            "comparator": "IN", "fieldName": "status",
            "fieldValue": ["value": ["done", "skipped"], "type": "STRING_LIST"],
        ]
        var queries: [JSONValue] = []
        for filters in [[], [pending], [finished]] as [[JSONValue]] {
            queries.append(["recordType": "Todo", "filterBy": .array(filters)])
            for field in ["deletedAt", "dueAt", "title"] {
                for ascending in [true, false] {
                    queries.append([
                        "recordType": "Todo", "filterBy": .array(filters),
                        "sortBy": [["fieldName": .string(field), "ascending": .bool(ascending)]],
                    ])
                }
            }
        }
        let ofTodos: JSONValue = [
            "comparator": "IN", "fieldName": "todoId",
            "fieldValue": ["value": ["r1", "r2", "r5"], "type": "STRING_LIST"],
        ]
        queries.append(["recordType": "Occurrence", "filterBy": [ofTodos]])
        queries.append(["recordType": "Occurrence", "sortBy": [["fieldName": "date", "ascending": false]]])
        // Two sort keys and a system field: not served by an index (scanned either way), compared all the same.
        queries.append([
            "recordType": "Todo",
            "sortBy": [["fieldName": "deletedAt", "ascending": true], ["fieldName": "title", "ascending": false]],
        ])
        queries.append(["recordType": "Todo", "sortBy": [["systemFieldName": "modifiedTimestamp", "ascending": true]]])
        return queries
    }

    static func names(_ pages: [JSONValue]) -> [[String]] {
        pages.map { page in page["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? [] }
    }

    func expectIndexedEqualsScanned(_ emulator: Emulator, _ user: String, _ note: String) throws {
        for query in Self.queries {
            for limit in [nil, 7] as [Int?] {
                let indexed = try emulator.queryPages(user, query: query, resultsLimit: limit, scan: false)
                let scanned = try emulator.queryPages(user, query: query, resultsLimit: limit, scan: true)
                // Record names page by page first (a readable difference), then every byte of every page.
                #expect(Self.names(indexed) == Self.names(scanned), "\(note), limit \(limit ?? 0): \(query)")
                #expect(indexed == scanned, "\(note), limit \(limit ?? 0): \(query)")
            }
        }
    }

    @Test(arguments: ["first", "last", "omitted"])
    func indexedPagesEqualTheScansOnRandomHistories(missing: String) async throws {
        for seed in [1, 2] as [UInt64] {
            var random = SplitMix(seed: seed &* 7919 &+ UInt64(missing.count))
            var settings = EmulatorSettings()
            settings.missingSortValues = missing
            settings.queryPageSize = [100, 37, 200][Int(seed) % 3]
            // Long enough that no lag ends between the indexed and the scanned reading of one comparison.
            settings.indexLag = .milliseconds(3_600_000)
            let client = try EmulatorClient(EmulatorConfiguration(settings: settings))
            let session = try Session(client)
            let user = "alice@example.com"
            var seeded = (0..<150).map { Self.todo("r\($0)", &random) }
            seeded += (0..<40).map { Self.occurrence("o\($0)", &random) }
            try client.emulator.seed(user, records: seeded)
            // Every index built before the writes, so the writes below update them in place.
            try expectIndexedEqualsScanned(client.emulator, user, "seed \(seed), seeded")

            // Writes that lag the indexes: updates, deletes, creations, and a record changed twice.
            for round in 0..<4 {
                var operations: [JSONValue] = []
                var names: Set<String> = []
                for _ in 0..<20 {
                    let name = "r\(random.next() % 180)"
                    guard names.insert(name).inserted else { continue }
                    if random.next() % 4 == 0 {
                        operations.append(["operationType": "forceDelete", "record": ["recordName": .string(name)]])
                    } else {
                        operations.append(["operationType": "forceReplace", "record": Self.todo(name, &random)])
                    }
                }
                let reply = try await session.call(
                    "records/modify", ["zoneID": Self.zone, "atomic": false, "operations": .array(operations)])
                #expect(reply.status == 200, "\(reply.text)")
                try expectIndexedEqualsScanned(client.emulator, user, "seed \(seed), round \(round), lagging")
            }
            // The same history once the indexes caught up.
            client.emulator.advanceClock(seconds: 7200)
            try expectIndexedEqualsScanned(client.emulator, user, "seed \(seed), caught up")
        }
    }

    /// A DOUBLE field holding integers and fractions compares them as numbers, which one sorted array of
    /// integers cannot hold: the query scans, and answers as before.
    @Test func mixedKindsAreScanned() async throws {
        let client = try EmulatorClient(EmulatorConfiguration(lenientSchema: true))
        let user = "alice@example.com"
        let values: [JSONValue] = [.int(3), .double(2.5), .int(1), .double(7.25), .int(2), .double(2.5)]
        let records: [JSONValue] = values.enumerated().map { index, value in
            [
                "recordName": .string("m\(index)"), "recordType": "Todo",
                "fields": ["rank": ["value": value, "type": "DOUBLE"]],
            ]
        }
        try client.emulator.seed(user, records: records)
        for ascending in [true, false] {
            let query: JSONValue = [
                "recordType": "Todo", "sortBy": [["fieldName": "rank", "ascending": .bool(ascending)]],
            ]
            let indexed = try client.emulator.queryPages(user, query: query, resultsLimit: 2, scan: false)
            #expect(indexed == (try client.emulator.queryPages(user, query: query, resultsLimit: 2, scan: true)))
        }
    }

    /// `changes/zone` read from the change log: newest first with `reverse` (and oldest first from a sync token),
    /// each record once at its last change, deleted ones as tombstones, other types filtered, `moreComing` right.
    @Test func theFeedFollowsTheHistoryOfChanges() async throws {
        var random = SplitMix(seed: 42)
        let client = try EmulatorClient()
        let session = try Session(client)
        _ = try client.emulator.seed("alice@example.com", records: [])
        var history: [(name: String, type: String, deleted: Bool)] = []
        for _ in 0..<12 {
            var operations: [JSONValue] = []
            var names: Set<String> = []
            for _ in 0..<25 {
                let todo = random.next() % 5 != 0
                let name = todo ? "r\(random.next() % 60)" : "o\(random.next() % 10)"
                guard names.insert(name).inserted else { continue }
                let exists = history.last(where: { $0.name == name }).map { !$0.deleted } ?? false
                if exists, random.next() % 3 == 0 {
                    operations.append(["operationType": "forceDelete", "record": ["recordName": .string(name)]])
                    history.append((name, todo ? "Todo" : "Occurrence", true))
                } else {
                    let record = todo ? Self.todo(name, &random) : Self.occurrence(name, &random)
                    operations.append(["operationType": "forceReplace", "record": record])
                    history.append((name, todo ? "Todo" : "Occurrence", false))
                }
            }
            let reply = try await session.call(
                "records/modify", ["zoneID": Self.zone, "atomic": false, "operations": .array(operations)])
            #expect(reply.status == 200, "\(reply.text)")
        }
        // Each name at its last change, in the order of changes.
        var last: [String: Int] = [:]
        for (index, change) in history.enumerated() { last[change.name] = index }
        let current = history.indices.filter { last[history[$0].name] == $0 }.map { history[$0] }

        func feed(_ zone: JSONObject) async throws -> (names: [String], more: Bool, token: String?) {
            var item = zone
            item["zoneID"] = Self.zone
            let reply = try await session.call("changes/zone", ["zones": [.object(item)]])
            let zone = reply.json["zones"]?[0]
            let names =
                zone?["records"]?.arrayValue?.map { record in
                    (record["recordName"]?.stringValue ?? "?") + (record["deleted"]?.boolValue == true ? "-" : "")
                } ?? []
            return (names, zone?["moreComing"]?.boolValue ?? false, zone?["syncToken"]?.stringValue)
        }
        for types in [nil, ["Todo"]] as [[String]?] {
            let expected = current.filter { $0.deleted || types?.contains($0.type) ?? true }
                .map { $0.name + ($0.deleted ? "-" : "") }
            for limit in [1, 13, 200] {
                var zone: JSONObject = ["reverse": true, "resultsLimit": .int(limit)]
                if let types { zone["desiredRecordTypes"] = .array(types.map { .string($0) }) }
                let newest = try await feed(zone)
                #expect(newest.names == Array(expected.reversed().prefix(limit)), "limit \(limit) \(types ?? [])")
                #expect(newest.more == (expected.count > limit))
                // Oldest first, page after page from the sync token each page returns.
                var pages: [String] = []
                var forward: JSONObject = ["resultsLimit": .int(limit)]
                if let types { forward["desiredRecordTypes"] = .array(types.map { .string($0) }) }
                while true {
                    let page = try await feed(forward)
                    pages += page.names
                    guard page.more, let token = page.token else { break }
                    forward["syncToken"] = .string(token)
                }
                #expect(pages == expected, "forward, limit \(limit) \(types ?? [])")
            }
        }
    }
}

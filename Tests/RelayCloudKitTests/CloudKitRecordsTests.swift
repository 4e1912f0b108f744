import Foundation
import RelayCloudKit
import RelayEmulator
import RelayJSON
import Testing

@Suite struct CloudKitRecordsTests {
    static let due = Date(cloudKitMilliseconds: 1_735_722_000_123)

    static func todo(_ id: String, title: String = "Buy milk") -> TodoRecord {
        TodoRecord(
            id: id, title: title, dueAt: due, timeZone: "Asia/Tokyo", status: .pending, source: .mcp,
            createdAt: due, changedAt: due)
    }

    @Test func createLookupUpdateConflictDelete() async throws {
        let harness = try Harness()
        var token = try harness.signIn()
        let id = UUID().uuidString.lowercased()

        let created = try await harness.client.modify([RecordOperation(.create, Self.todo(id).record())], token: token)
        token = created.nextToken(after: token)
        let saved = try #require(created.value.first?.record)
        let tag = try #require(saved.recordChangeTag)
        #expect(try TodoRecord(record: saved).title == "Buy milk")
        #expect(try TodoRecord(record: saved).dueAt == Self.due)

        var changed = try TodoRecord(record: saved)
        changed.title = "Buy oat milk"
        let updated = try await harness.client.modify([RecordOperation(.replace, changed.record())], token: token)
        token = updated.nextToken(after: token)
        let newTag = try #require(updated.value.first?.record?.recordChangeTag)
        #expect(newTag != tag)

        // A write with the stale tag is a per-item CONFLICT inside a 200.
        var stale = changed
        stale.changeTag = tag
        let conflicted = try await harness.client.modify([RecordOperation(.update, stale.record())], token: token)
        token = conflicted.nextToken(after: token)
        #expect(conflicted.value.first?.error?.kind == .conflict)
        #expect(conflicted.value.first?.recordName == id)

        let looked = try await harness.client.lookup([id, "missing"], token: token)
        token = looked.nextToken(after: token)
        let byName = Dictionary(uniqueKeysWithValues: looked.value.map { ($0.recordName ?? "", $0) })
        #expect(try TodoRecord(record: try #require(byName[id]?.record)).title == "Buy oat milk")
        #expect(byName["missing"]?.error?.kind == .notFound)

        let deleted = try await harness.client.modify(
            [RecordOperation(.delete, Record(recordName: id, recordType: "", recordChangeTag: newTag))], token: token)
        token = deleted.nextToken(after: token)
        #expect(deleted.value == [.deleted(recordName: id)])
        let gone = try await harness.client.lookup([id], token: token)
        #expect(gone.value.first?.error?.kind == .notFound)
    }

    @Test func modifyChecksEveryItem() async throws {
        let harness = try Harness()
        var token = try harness.signIn()
        let existing = try await harness.client.modify(
            [RecordOperation(.create, Self.todo("t-1").record())], token: token)
        token = existing.nextToken(after: token)
        let operations = [
            RecordOperation(.create, Self.todo("t-2").record()),
            RecordOperation(.create, Self.todo("t-1").record()),
            RecordOperation(.create, Self.todo("t-3").record()),
        ]
        let results = try await harness.client.modify(operations, token: token)
        #expect(results.value.count == 3)
        #expect(results.value[0].record != nil)
        #expect(results.value[1].error?.kind == .conflict)
        #expect(results.value[1].error?.serverErrorCode == "EXISTS")
        #expect(results.value[2].record != nil)
    }

    /// A record type of its own, with the indexes its filters and sorts need (the relay's schema has no range
    /// query to test the client's encoding with).
    static let items = try! ContainerSchema(
        parsing: """
            DEFINE SCHEMA RECORD TYPE Item (
                "___recordID" REFERENCE QUERYABLE, n INT64 QUERYABLE SORTABLE, even INT64 QUERYABLE
            );
            """)

    @Test func queryFiltersSortsAndPagesWithRotatedTokens() async throws {
        let harness = try Harness(schema: Self.items)
        let token = try harness.signIn()
        let records: [JSONValue] = (0..<450).map { n in
            [
                "recordName": .string(String(format: "r%03d", n)), "recordType": "Item",
                "fields": [
                    "n": ["value": .int(n), "type": "INT64"], "even": ["value": .int(n % 2), "type": "INT64"],
                ],
            ]
        }
        try harness.emulator.seed("alice@example.com", records: records)
        let query = RecordQuery(
            recordType: "Item",
            filters: [
                QueryFilter(.field("n"), .greaterThanOrEquals, .int64(50)),
                QueryFilter(.field("even"), .equals, .int64(0)),
            ],
            sortBy: [QuerySort(.field("n"), ascending: false)],
            resultsLimit: 60)
        let first = try await harness.client.query(query, token: token)
        #expect(first.value.records.count == 60)
        #expect(first.value.records.first?.fields["n"] == .int64(448))
        #expect(first.value.continuationMarker != nil)

        // Every page uses the token the previous one rotated to (the old ones die at once).
        let all = try await harness.client.queryAll(query, token: first.nextToken(after: token))
        #expect(all.value.count == 200)
        #expect(all.value.map { $0.fields["n"] } == stride(from: 448, through: 50, by: -2).map { .int64(Int64($0)) })
        let finalToken = try #require(all.rotatedToken)
        let zones = try await harness.client.zones(token: finalToken)
        #expect(!zones.value.isEmpty)

        let names = RecordQuery(
            recordType: "Item",
            filters: [QueryFilter(.system("recordName"), .in, .stringList(["r001", "r007", "zzz"]))])
        let named = try await harness.client.query(names, token: zones.nextToken(after: finalToken))
        #expect(named.value.records.map(\.recordName) == ["r001", "r007"])
    }

    @Test func zonesAndChanges() async throws {
        let harness = try Harness()
        var token = try harness.signIn()
        let zones = try await harness.client.zones(token: token)
        token = zones.nextToken(after: token)
        #expect(Set(zones.value.map(\.zoneName)) == ["_defaultZone", "MustDo"])
        #expect(zones.value.first { $0.zoneName == "MustDo" }?.zoneType == "REGULAR_CUSTOM_ZONE")
        let zone = try await harness.client.createZone(token: token)
        token = zone.nextToken(after: token)
        #expect(zone.value.zoneName == "MustDo")

        let saved = try await harness.client.modify(
            [RecordOperation(.create, Self.todo("a").record()), RecordOperation(.create, Self.todo("b").record())],
            token: token)
        token = saved.nextToken(after: token)
        let start = try await harness.client.zoneChanges(syncToken: nil, token: token)
        token = start.nextToken(after: token)
        #expect(start.value.changes.compactMap(\.record).map(\.recordName) == ["a", "b"])
        #expect(start.value.moreComing == false)

        let bTag = try #require(saved.value[1].record?.recordChangeTag)
        let deleted = try await harness.client.modify(
            [RecordOperation(.delete, Record(recordName: "b", recordType: "", recordChangeTag: bTag))], token: token)
        token = deleted.nextToken(after: token)
        let next = try await harness.client.zoneChanges(syncToken: start.value.syncToken, token: token)
        #expect(next.value.changes == [.deleted(recordName: "b")])
    }

    @Test func missingZoneIsZoneNotFound() async throws {
        let harness = try Harness(zoneName: "Elsewhere")
        let token = try harness.signIn()
        let error = await failure { try await harness.client.query(RecordQuery(recordType: "Todo"), token: token) }
        #expect(error?.kind == .zoneNotFound)
        #expect(error?.rotatedToken == nil)
    }
}

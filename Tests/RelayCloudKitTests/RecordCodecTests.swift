import Foundation
import RelayCloudKit
import RelayJSON
import Testing

@Suite struct RecordCodecTests {
    @Test func todoRoundTripsThroughTheWireForm() throws {
        let due = Date(cloudKitMilliseconds: 1_735_722_000_001)
        let todo = TodoRecord(
            id: "3f1c2b1e-8d5f-4c1a-9a57-1d1e2f3a4b5c", changeTag: "25d", title: "Call mum", notes: "before 9",
            dueAt: due, timeZone: "Europe/London", sound: "chime", repeatRule: #"{"kind":"daily","interval":1}"#,
            status: .pending, snoozedUntil: due.addingTimeInterval(600), completedAt: nil, deletedAt: nil,
            source: .app, createdAt: due, changedAt: due, otherFields: ["futureField": .int64(7)])
        let record = todo.record()
        #expect(record.recordType == "Todo")
        #expect(record.fields["dueAt"] == .timestamp(1_735_722_000_001))
        #expect(record.fields["status"] == .string("pending"))
        #expect(record.fields["completedAt"] == nil)
        let wire = try JSONValue(parsing: record.json.bytes)
        let decoded = try TodoRecord(record: try Record(json: wire))
        #expect(decoded == todo)
        #expect(decoded.dueAt?.cloudKitMilliseconds == 1_735_722_000_001)
    }

    @Test func fieldNamesAreConfigurable() throws {
        var schema = TodoRecord.Schema()
        schema.recordType = "Task"
        schema.title = "name"
        let record = TodoRecord(id: "x", title: "Renamed").record(schema: schema)
        #expect(record.recordType == "Task")
        #expect(record.fields["name"] == .string("Renamed"))
        #expect(record.fields["title"] == nil)
        #expect(try TodoRecord(record: record, schema: schema).title == "Renamed")
        #expect(throws: CloudKitError.self) { try TodoRecord(record: record) }
    }

    @Test func wrongFieldTypeIsInvalidRecordWithoutTheValue() {
        let record = Record(
            recordName: "x", recordType: "Todo", fields: ["title": .int64(5), "notes": .string("secret")])
        do {
            _ = try TodoRecord(record: record)
            Issue.record("decoded a mistyped record")
        } catch {
            #expect(error.kind == .invalidRecord)
            #expect(error.reason?.contains("title") == true)
            #expect(!"\(error)".contains("secret"))
        }
    }

    @Test func occurrenceNameAndFallbacks() throws {
        let occurrence = OccurrenceRecord(
            todoId: "abc", date: "2026-03-29", state: .snoozed, snoozedUntil: Date(cloudKitMilliseconds: 1000),
            changedAt: Date(cloudKitMilliseconds: 2000))
        #expect(occurrence.recordName == "abc|2026-03-29")
        #expect(try OccurrenceRecord(record: occurrence.record()) == occurrence)
        let bare = Record(recordName: "abc|2026-03-30", recordType: "Occurrence", fields: ["state": .string("done")])
        let decoded = try OccurrenceRecord(record: bare)
        #expect(decoded.todoId == "abc")
        #expect(decoded.date == "2026-03-30")
        #expect(decoded.state == .done)
    }

    @Test func accountBooleanIsInt64() throws {
        let account = AccountRecord(
            locale: "ja_JP", timeZone: "Asia/Tokyo", defaultTime: "09:00", quietHoursStart: "22:00",
            quietHoursEnd: "07:00",
            trialStartedAt: Date(cloudKitMilliseconds: 5), canAddTodos: true)
        let record = account.record()
        #expect(record.recordName == "account")
        #expect(record.fields["canAddTodos"] == .int64(1))
        #expect(try AccountRecord(record: record) == account)
        let off = Record(recordName: "account", recordType: "Account", fields: ["canAddTodos": .int64(0)])
        #expect(try AccountRecord(record: off).canAddTodos == false)
    }

    @Test func fieldValuesDecodeEveryShapeInTheReference() throws {
        let json = try JSONValue(
            parsing: #"""
                {"recordType":"SharedShortcut","recordName":"EA15DF64","recordChangeTag":"jnm8rnmw","deleted":false,
                 "created":{"userRecordName":"_264f","deviceID":"9AB","timestamp":1540330094701},
                 "modified":{"userRecordName":"_264f","deviceID":"9AB","timestamp":1540330094702},
                 "pluginFields":{},
                 "fields":{
                   "s":{"value":"text","type":"STRING"},
                   "i":{"value":1,"type":"INT64"},
                   "big":{"value":"9007199254740993","type":"INT64"},
                   "t":{"value":1735722000000.0,"type":"TIMESTAMP"},
                   "d":{"value":2.5,"type":"DOUBLE"},
                   "b":{"value":"AAEC","type":"BYTES"},
                   "r":{"value":{"recordName":"T1","action":"NONE"},"type":"REFERENCE"},
                   "l":{"value":[],"type":"STRING_LIST"},
                   "il":{"value":[1,2],"type":"INT64_LIST"},
                   "a":{"value":{"fileChecksum":"x","size":3},"type":"ASSETID"},
                   "untyped":{"value":"inferred"}
                 }}
                """#)
        let record = try Record(json: json)
        #expect(record.recordChangeTag == "jnm8rnmw")
        #expect(record.createdAt == 1_540_330_094_701)
        #expect(record.modifiedAt == 1_540_330_094_702)
        #expect(record.fields["s"] == .string("text"))
        #expect(record.fields["i"] == .int64(1))
        #expect(record.fields["big"] == .int64(9_007_199_254_740_993))
        #expect(record.fields["t"] == .timestamp(1_735_722_000_000))
        #expect(record.fields["d"] == .double(2.5))
        #expect(record.fields["b"] == .bytes("AAEC"))
        #expect(record.fields["r"] == .reference(RecordReference(recordName: "T1")))
        #expect(record.fields["l"] == .stringList([]))
        #expect(record.fields["il"] == .int64List([1, 2]))
        #expect(record.fields["a"]?.type == "ASSETID")
        #expect(record.fields["untyped"] == .string("inferred"))
        // Unknown types survive a round trip unchanged.
        let again = try Record(json: try JSONValue(parsing: record.json.bytes))
        #expect(again.fields == record.fields)
    }

    @Test func retryPolicyBounds() throws {
        let policy = CloudKitRetryPolicy(
            maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .milliseconds(250), maxRetryAfter: .seconds(2))
        for _ in 0..<50 {
            let first = try #require(policy.delay(after: 1, retryAfter: nil))
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            let third = try #require(policy.delay(after: 3, retryAfter: nil))
            #expect(third >= .milliseconds(125) && third <= .milliseconds(250))
            let told = try #require(policy.delay(after: 1, retryAfter: .seconds(1)))
            #expect(told >= .seconds(1) && told <= .milliseconds(1050))
        }
        #expect(policy.delay(after: 4, retryAfter: nil) == nil)
        #expect(policy.delay(after: 1, retryAfter: .seconds(3)) == nil)
    }
}

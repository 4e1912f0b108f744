import RelayJSON
import Testing

@testable import RelayCloudKit

/// `ZoneChangesBody` decodes `changes/zone` responses from their bytes; `ZoneChanges(json:)` over a parsed
/// `JSONValue` is the reference. Every body, well-formed, odd or broken, must come out the same both ways: the
/// same page, the same error (kind and reason), or both refused as not JSON.
struct ZoneChangesBodyTests {
    static func reference(_ body: [UInt8]) -> Result<ZoneChanges, CloudKitError>? {
        guard let json = try? JSONValue(parsing: body) else { return nil }
        return Result { () throws(CloudKitError) in try ZoneChanges(json: json) }
    }

    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectSame(bytes: Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func expectSame(bytes body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let decoded = ZoneChangesBody.decode(body)
        let expected = reference(body)
        #expect(
            decoded == expected, "\(String(decoding: body, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    /// A newest-first page as the emulator answers it: a to-do, a tombstone, the Account.
    static let page = """
        {"zones":[{"zoneID":{"zoneName":"MustDo","ownerRecordName":"_u","zoneType":"REGULAR_CUSTOM_ZONE"},
        "syncToken":"AQAA","moreComing":true,"records":[
        {"recordName":"t1","recordType":"Todo","recordChangeTag":"a1",
        "fields":{"title":{"value":"Water plants","type":"STRING"},"status":{"value":"pending","type":"STRING"},
        "dueAt":{"value":1780272000000,"type":"TIMESTAMP"},"deletedAt":{"value":1780000000000,"type":"TIMESTAMP"}},
        "created":{"timestamp":1764547200000,"userRecordName":"_u"},"modified":{"timestamp":1764633600000},
        "zoneID":{"zoneName":"MustDo","ownerRecordName":"_u"}},
        {"recordName":"t2","deleted":true,"zoneID":{"zoneName":"MustDo"}},
        {"recordName":"account","recordType":"Account","recordChangeTag":"k2",
        "fields":{"timeZone":{"value":"Asia/Tokyo","type":"STRING"}}}]}]}
        """

    @Test func wellFormedAndOddBodiesDecodeAsTheTreeDoes() {
        let bodies = [
            Self.page,
            #"{"zones":[{"zoneID":{"zoneName":"MustDo"},"records":[],"moreComing":false}]}"#,
            #"{"zones":[{"zoneID":{"zoneName":"MustDo"},"serverErrorCode":"ZONE_NOT_FOUND","reason":"gone"}]}"#,
            #"{"zones":[{"serverErrorCode":"THROTTLED","records":[{"recordName":1}]}]}"#,
            #"{"zones":[{"serverErrorCode":7,"records":[]}]}"#,
            #"{"zones":[]}"#, #"{"zones":{}}"#, #"{}"#, #"[]"#, #"1"#, #"{"zones":[1,{"records":[]}]}"#,
            #"{"zones":[{"records":{}}]}"#, #"{"zones":[{}]}"#, #"{"zones":[{"records":[{}]}]}"#,
            #"{"zones":[{"records":[{"recordName":"a"},{"recordName":2}]}]}"#,
            #"{"zones":[{"moreComing":null,"syncToken":5,"zoneID":"x","records":[]}]}"#,
            #"{"zones":[{"moreComing":true,"moreComing":"yes","syncToken":"a","syncToken":"b"}]}"#,
            #"{"zones":[{"zoneID":{"ownerRecordName":"_a"},"zoneID":7}]}"#,
            #"{"zones":[{"zoneID":{"ownerRecordName":"_a","ownerRecordName":"_b"}}]}"#,
            #"{"zones":[{"records":[{"recordName":"a"}],"records":[]}]}"#,
            #"{"zones":[{"records":[]}],"zones":[{"serverErrorCode":"ZONE_NOT_FOUND"}]}"#,
            #"{"zones":[{"records":[]}],"zones":5}"#,
            #"{"zones":[{"records":[{"recordName":"a","fields":{"x":{"value":1,"type":"TIMESTAMP"}}}]}]}"#,
            #"{"zones":[{"records":[{"recordName":"a","fields":{"x":{"type":"STRING"}}}]}]}"#,
            #"{"zones":[{"records":[]}]"#, #"{"zones":[{"records":[]}]} x"#, "",
        ]
        for body in bodies { Self.expectSame(body) }
    }

    /// Thousands of damaged copies of a real page (bytes flipped, deleted, duplicated, cut off): each must
    /// decode, fail or be refused exactly as the tree decoder does.
    @Test func damagedBodiesMatchTheTree() {
        for body in damagedCopies(of: Array(Self.page.utf8), seed: 29) { Self.expectSame(bytes: body) }
    }
}

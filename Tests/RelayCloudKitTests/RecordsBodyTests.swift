import RelayJSON
import Testing

@testable import RelayCloudKit

/// `RecordsBody` decodes records responses from their bytes; `RecordResult.list` over a parsed
/// `JSONValue` is the reference. Every body here, well-formed, odd or broken, must come out the
/// same both ways: the same records, the same error (kind and reason), or both refused as not JSON.
struct RecordsBodyTests {
    /// What the tree-based decoder makes of `body`: nil when it is not JSON.
    static func reference(_ body: [UInt8]) -> Result<RecordsBody, CloudKitError>? {
        guard let json = try? JSONValue(parsing: body) else { return nil }
        return Result { () throws(CloudKitError) in
            RecordsBody(
                results: try RecordResult.list(json["records"]),
                continuationMarker: json["continuationMarker"]?.stringValue)
        }
    }

    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectSame(bytes: Array(text.utf8), sourceLocation: sourceLocation)
    }

    static func expectSame(bytes body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: body, as: UTF8.self)
        let decoded = RecordsBody.decode(body)
        let expected = reference(body)
        switch (decoded, expected) {
        case (nil, nil): break
        case (.success(let got)?, .success(let want)?):
            #expect(got.results == want.results, "\(text)", sourceLocation: sourceLocation)
            #expect(got.continuationMarker == want.continuationMarker, "\(text)", sourceLocation: sourceLocation)
        case (.failure(let got)?, .failure(let want)?):
            #expect(got == want, "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record(
                "\(text): decoded \(String(describing: decoded)), expected \(String(describing: expected))",
                sourceLocation: sourceLocation)
        }
    }

    /// An Account lookup as the emulator answers it, plus a missing record and a deletion.
    static let account = """
        {"records":[{"recordName":"account","recordType":"Account","recordChangeTag":"k2x9",
        "fields":{"timeZone":{"value":"Asia/Tokyo","type":"STRING"},"locale":{"value":"ja_JP","type":"STRING"},
        "defaultTime":{"value":"08:30","type":"STRING"},"canAddTodos":{"value":1,"type":"INT64"},
        "trialStartedAt":{"value":1764547200000,"type":"TIMESTAMP"},"tags":{"value":["a","b"],"type":"STRING_LIST"},
        "parent":{"value":{"recordName":"p","action":"NONE","zoneID":{"zoneName":"MustDo"}},"type":"REFERENCE"},
        "where":{"value":{"latitude":35.6,"longitude":139.7},"type":"LOCATION"},
        "ratio":{"value":"0.5","type":"DOUBLE"},"n":{"value":7}},
        "created":{"timestamp":1764547200000,"userRecordName":"_u"},"modified":{"timestamp":1764633600000.0},
        "pluginFields":{},"zoneID":{"zoneName":"MustDo","ownerRecordName":"_u"}},
        {"recordName":"todo-1","reason":"Record not found","serverErrorCode":"NOT_FOUND"},
        {"recordName":"gone","deleted":true}],"continuationMarker":"m1","syncToken":"s"}
        """

    @Test func wellFormedBodiesDecodeAsTheTreeDoes() {
        let bodies = [
            Self.account,
            #"{"records":[]}"#,
            #"{"records":[], "continuationMarker": 5}"#,
            #"  {"records" : [ { "recordName" : "a" } ] }  "#,
            // Repeated names: the last value counts, at the first position.
            #"{"records":[{"recordName":"a"}],"records":[{"recordName":"b","recordType":"T"}]}"#,
            #"{"records":[{"recordName":"a","recordName":"b","fields":{"x":{"value":1},"y":{"value":"s"},"x":{"value":"t"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":1,"type":"INT64","type":"STRING","value":"s"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":true}},"fields":{"y":{"value":2}}}]}"#,
            #"{"records":[{"recordName":"a","deleted":true,"deleted":false}]}"#,
            #"{"records":[{"recordName":"a","serverErrorCode":7,"deleted":"yes"}]}"#,
            // Errors: retryAfter as seconds, milliseconds, a string; redirect spellings.
            #"{"records":[{"serverErrorCode":"THROTTLED","retryAfter":30,"reason":"slow"}]}"#,
            #"{"records":[{"serverErrorCode":"ZONE_NOT_FOUND","retryAfter":110207.5,"redirectUrl":"u"}]}"#,
            #"{"records":[{"serverErrorCode":"X","retryAfter":"3","redirectURL":"v","redirectUrl":"w"}]}"#,
            // An error item's fields are not decoded, however malformed.
            #"{"records":[{"serverErrorCode":"CONFLICT","recordName":"a","fields":{"x":5}}]}"#,
            // Escapes in names and values, non-ASCII text.
            #"{"rec\u006frds":[{"record\u004eame":"caf\u00e9 \ud83d\ude00","fields":{"t\u0069tle":{"value":"日本\n","type":"STRING"}}}]}"#,
            #"{"records":[{"recordName":"a","created":5,"modified":{"timestamp":"1"}}]}"#,
            #"{"records":[{"recordName":"a","created":{"timestamp":1.5}}]}"#,
        ]
        for body in bodies { Self.expectSame(body) }
    }

    /// More fields than `FieldsMembers` reserves room for, with boxed values (references, unknown
    /// types) among them: the same record as the tree's.
    @Test func manyFieldsAndBoxedValuesDecodeAsTheTreeDoes() {
        var fields = (0..<40).map { #""f\#($0)":{"value":\#($0),"type":"INT64"}"# }
        fields.append(#""r":{"value":{"recordName":"t","action":"DELETE_SELF"},"type":"REFERENCE"}"#)
        fields.append(#""l":{"value":{"latitude":1.5,"longitude":2},"type":"LOCATION"}"#)
        fields.append(#""f3":{"value":{"recordName":"u","zoneID":{"zoneName":"z"}},"type":"REFERENCE"}"#)
        let record = #"{"recordName":"a","recordType":"Todo","fields":{"# + fields.joined(separator: ",") + "}}"
        let body = #"{"records":["# + record + "]}"
        Self.expectSame(body)
        guard case .success(let decoded)? = RecordsBody.decode(Array(body.utf8)),
            case .record(let decodedRecord) = decoded.results.first
        else {
            Issue.record("\(body) did not decode")
            return
        }
        #expect(decodedRecord.fields.count == 42)
        #expect(decodedRecord.fields["f3"] == .reference(RecordReference(recordName: "u", zoneName: "z")))
        #expect(decodedRecord.fields["f39"] == .int64(39))
    }

    /// A field value stays small (the wide payloads boxed), so a record's fields and the list they
    /// are read into stay within glibc's per-thread cache (1,032 bytes) for a typical record.
    @Test func aFieldValueIsSmall() {
        #expect(MemoryLayout<FieldValue>.size <= 17)
        #expect(MemoryLayout<(name: String, value: FieldValue?)>.stride * 24 + 32 <= 1032)
    }

    @Test func unexpectedShapesGiveTheTreesErrors() {
        let bodies = [
            #"{}"#, #"[]"#, #""records""#, #"{"records":{}}"#, #"{"records":null}"#,
            #"{"records":[],"records":5}"#,
            #"{"records":[5]}"#, #"{"records":[null]}"#, #"{"records":[[]]}"#, #"{"records":[{}]}"#,
            #"{"records":[{"recordName":5}]}"#, #"{"records":[{"deleted":true}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":5}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"type":"STRING"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":5,"type":"STRING"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":"s","type":"INT64"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":[1,"a"],"type":"INT64_LIST"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":{},"type":"REFERENCE"}}}]}"#,
            // The first failing field in order, the first failing item in order.
            #"{"records":[{"recordName":"a","fields":{"x":{"value":"s","type":"INT64"},"y":5}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"y":5,"x":{"value":"s","type":"INT64"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":5,"x":{"value":1}}}]}"#,
            // A repeated name's error goes with its last value: failed then fine is fine, fine then
            // failed fails at the first position, and of two failed names the first in order speaks
            // with its own last error.
            #"{"records":[{"recordName":"a","fields":{"x":5,"y":{"value":2},"x":{"value":1}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":{"value":1},"y":{"value":"s","type":"INT64"},"x":7}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":5,"y":{"type":"STRING"},"x":{"value":"s","type":"INT64"}}}]}"#,
            #"{"records":[{"recordName":"a","fields":{"x":5,"y":6,"x":{"value":1},"y":{"value":2}}}]}"#,
            #"{"records":[{"recordName":"a"},{"fields":{}},{"recordName":"b","fields":{"x":1}}]}"#,
        ]
        for body in bodies { Self.expectSame(body) }
    }

    @Test func bodiesThatAreNotJSONAreRefusedWhole() {
        let bodies = [
            "", " ", "<html>502</html>", #"{"records":[]"#, #"{"records":[]}}"#, #"{"records":[],}"#,
            #"{"records":[{"recordName":"a"}]} x"#, #"{"records":[{"recordName":"a",}]}"#,
            // A fault after an item that fails to decode still refuses the whole body.
            #"{"records":[{"recordName":5},{"recordName":"b"]}"#,
            #"{"records":[{"fields":{"x":5}}],"other":[01]}"#,
            #"{"records":[],"x":1e999}"#, #"{"records":[],"x":"\ud800"}"#, #"{"records":[],"x":"a\tb"}"#,
            #"{"records":[],"x":tru}"#, #"{"records":[],"x":"\q"}"#, "{\"records\":[],\"x\":\"\u{1}\"}",
            #"{"records":[],"x":{"a" 1}}"#, #"{"records":[],"x":{1:2}}"#,
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
            #"{"records":[],"x":"#, #"{"records":[],"x":"abc"#,
        ]
        for body in bodies { Self.expectSame(body) }
        // Invalid UTF-8 inside a skipped string and inside a read one.
        for bytes in [
            Array(#"{"records":[],"x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array(#"{"records":[{"recordName":""#.utf8) + [0xFF] + Array(#""}]}"#.utf8),
            Array(#"{"records":[],""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"":1}"#.utf8),
        ] {
            #expect(RecordsBody.decode(bytes) == nil)
            #expect(Self.reference(bytes) == nil)
        }
    }

    /// Thousands of damaged copies of a real body (bytes flipped, deleted, duplicated, cut off):
    /// each must decode, fail or be refused exactly as the tree decoder does.
    @Test func damagedBodiesMatchTheTree() {
        for body in damagedCopies(of: Array(Self.account.utf8), seed: 17) { Self.expectSame(bytes: body) }
    }
}

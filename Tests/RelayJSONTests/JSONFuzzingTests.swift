import Foundation
import Testing

@testable import RelayJSON

/// The fuzz harness's properties on the seed corpus (`Tests/Fuzz/json-parser`), and that the
/// properties can fail: a harness that accepts anything would fuzz nothing.
@Suite struct JSONFuzzingTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/json-parser")

    @Test func everySeedHoldsEveryProperty() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(files.count >= 10)
        var parsed = 0
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(file)))
            JSONFuzzing.run(bytes)
            if (try? JSONValue(parsing: bytes)) != nil { parsed += 1 }
        }
        #expect(parsed >= 8, "the corpus holds valid documents as well as refused ones")
    }

    @Test func valuesAreComparedByNumberAndByBytes() {
        #expect(JSONFuzzing.sameValue(.double(2.0), .int(2)))
        #expect(!JSONFuzzing.sameValue(.double(2.5), .int(2)))
        #expect(!JSONFuzzing.sameValue(.string("\u{e9}"), .string("e\u{301}")), "canonically equal is not equal")
        #expect(!JSONFuzzing.sameValue(["a": 1, "b": 2], ["b": 2, "a": 1]), "member order counts")
        #expect(!JSONFuzzing.sameValue([1], [[1]]))
        #expect(JSONFuzzing.nesting(try! JSONValue(parsing: "[1,{\"a\":[[]]}]")) == 4)
        #expect(JSONFuzzing.nesting(.string("x")) == 0)
    }

    @Test func theDepthLimitIsExact() throws {
        let sixtyFour = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect((try? JSONValue(parsing: sixtyFour)) != nil)
        let sixtyFive = #expect(throws: JSONParseError.self) { try JSONValue(parsing: "[" + sixtyFour + "]") }
        #expect(sixtyFive?.reason == "nesting too deep")
        let two = #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array("[[1]]".utf8), maxDepth: 1) }
        #expect(two?.reason == "nesting too deep")
        #expect((try? JSONValue(parsing: Array("[[1]]".utf8), maxDepth: 2)) != nil)
    }
}

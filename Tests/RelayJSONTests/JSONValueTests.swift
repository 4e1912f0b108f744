import Testing

@testable import RelayJSON

@Suite struct JSONValueTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing: #" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude00"}} "#)
        #expect(value["a"] == [1, -2.5, 300.0, true, false, nil])
        #expect(value["b"]?["c"] == "d\né😀")
    }

    @Test func keepsMemberOrderAndLastValueOfARepeatedKey() throws {
        let value = try JSONValue(parsing: #"{"z":1,"a":2,"z":3}"#)
        #expect(value.objectValue?.keys == ["z", "a"])
        #expect(value["z"] == 3)
    }

    /// Objects built from pairs or literals: distinct keys keep their order (the literal's own array
    /// is kept), a repeated key keeps its first position and its last value, past the pairwise check
    /// (more than 16 members) too, and a kept array is not shared with a later change.
    @Test func objectsFromPairsKeepOrderAndTheLastValueOfARepeatedKey() {
        let literal: JSONObject = ["z": 1, "a": 2, "m": 3]
        #expect(literal.keys == ["z", "a", "m"])
        #expect(Array(literal.map(\.value)) == [1, 2, 3])
        let repeated = JSONObject([("z", 1), ("a", 2), ("z", 3)])
        #expect(repeated.keys == ["z", "a"] && repeated["z"] == 3 && repeated.count == 2)
        let many = (0..<20).map { ("k\($0)", JSONValue.int($0)) }
        #expect(JSONObject(many).keys == many.map(\.0))
        let manyRepeated = JSONObject(many + [("k3", 99)])
        #expect(manyRepeated.count == 20 && manyRepeated["k3"] == 99 && manyRepeated.keys == many.map(\.0))
        var changed = JSONObject(many)
        changed["k0"] = nil
        changed["new"] = true
        #expect(changed.keys == many.map(\.0).dropFirst() + ["new"])
        #expect(JSONObject(many).count == 20, "the pairs the object was made from are unchanged")
        #expect(JSONValue.object(literal).bytes(reservingCapacity: 64) == Array(#"{"z":1,"a":2,"m":3}"#.utf8))
    }

    /// The parser keeps every open object's members (and array's elements) in one shared buffer:
    /// nothing of an inner, sibling or earlier container may end up in another, and a key repeated
    /// at another level is a different member.
    @Test func nestedAndSiblingContainersKeepTheirOwnMembers() throws {
        let value = try JSONValue(
            parsing: #"{"a":{"a":1,"b":[{"a":2},{"a":3,"a":4},[]]},"c":[[1,[2]],[3],{}],"a":5,"d":{"x":{"y":{}}}}"#)
        // The first "a" (an object) is replaced by the last (5) in its first position.
        #expect(value == ["a": 5, "c": [[1, [2]], [3], [:]], "d": ["x": ["y": [:]]]])
        #expect(value.objectValue?.keys == ["a", "c", "d"])
        let inner = try JSONValue(parsing: #"{"a":{"a":1,"b":[{"a":2},{"a":3,"a":4},[]]}}"#)
        #expect(inner["a"] == ["a": 1, "b": [["a": 2], ["a": 4], []]])
        #expect(inner["a"]?["b"]?.arrayValue?[1].objectValue?.count == 1)
        // A failed parse leaves nothing behind for the next document.
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: #"{"a":[1,{"b":2"#) }
        #expect(try JSONValue(parsing: #"{"b":[3]}"#) == ["b": [3]])
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "1e", "+1", "NaN", "Infinity", "tru", "nul",
        "\"a", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"", "\"a\u{1}b\"", "{\"a\" 1}", "[1 2]", "{1:2}",
        "1 2", "// c\n1", "'a'", "\u{FEFF}1", "1e999",
    ])
    func refusesMalformedDocuments(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test func refusesInvalidUTF8InStrings() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func limitsNestingDepth() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONValue(parsing: fine)
    }

    @Test func integersStayIntegersAndLargeOnesBecomeDoubles() throws {
        #expect(try JSONValue(parsing: "9007199254740993") == .int(9_007_199_254_740_993))
        #expect(try JSONValue(parsing: "123456789012345678901234567890").doubleValue == 1.2345678901234568e29)
        #expect(try JSONValue(parsing: "-0") == .int(0))
    }

    @Test func writesCompactEscapedJSON() {
        let value: JSONValue = ["s": "q\"\\\n\t\u{1}é", "n": nil, "i": 42, "d": 1.5, "w": 3.0, "a": [true, false]]
        #expect(value.jsonString == #"{"s":"q\"\\\n\t\u0001é","n":null,"i":42,"d":1.5,"w":3,"a":[true,false]}"#)
    }

    @Test(arguments: [
        ("", #""""#), ("plain", #""plain""#), ("\"", #""\"""#), ("\"a\"", #""\"a\"""#), ("a\\", #""a\\""#),
        ("\n\n", #""\n\n""#), ("x\u{1F}y\u{0}", #""x\u001fy\u0000""#), ("é\"日本", #""é\"日本""#),
    ])
    func escapesOnlyWhatMustBeEscapedWhereverItIs(string: String, written: String) throws {
        #expect(JSONValue.string(string).jsonString == written)
        #expect(try JSONValue(parsing: written) == .string(string))
    }

    /// Strings long enough for the eight-bytes-at-a-time scan: every ASCII character and a few
    /// multi-byte ones at every position of a 19-byte string (so in either word and in the tail),
    /// against escaping one character at a time.
    @Test func everyCharacterIsEscapedAtEveryPositionOfALongString() throws {
        func reference(_ string: String) -> String {
            var written = "\""
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": written += "\\\""
                case "\\": written += "\\\\"
                case "\n": written += "\\n"
                case "\r": written += "\\r"
                case "\t": written += "\\t"
                case _ where scalar.value < 0x20: written += String(format: "\\u%04x", scalar.value)
                default: written.unicodeScalars.append(scalar)
                }
            }
            return written + "\""
        }
        let specials = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) } + ["é", "日", "🙂"]
        for special in specials {
            for position in 0..<19 {
                var characters = Array(repeating: Character("a"), count: 19)
                characters[position] = special
                let string = String(characters)
                #expect(JSONValue.string(string).jsonString == reference(string), "\(Array(string.utf8))")
                #expect(try JSONValue(parsing: reference(string)) == .string(string))
            }
        }
    }

    @Test func roundTripsThroughWriteAndParse() throws {
        let value: JSONValue = [
            "nested": ["list": [1, "two", ["three": 3.25]], "empty": [:], "none": []], "u": "😀/</script>",
        ]
        #expect(try JSONValue(parsing: value.bytes) == value)
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(JSONValue.double(.infinity).jsonString == "null")
        #expect(JSONValue.double(.nan).jsonString == "null")
    }

    @Test func reportsWhereParsingStopped() {
        do {
            _ = try JSONValue(parsing: "[1, 2, x]")
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 7)
        }
    }

    @Test func objectSubscriptSetsReplacesAndRemoves() {
        var object: JSONObject = ["a": 1]
        object["b"] = 2
        object["a"] = 3
        object["b"] = nil
        #expect(object == ["a": 3])
        #expect(object.count == 1)
    }
}

import RelayJSON
import Testing

@testable import RelayMCP

/// The schema subset, as pure values: what passes, what fails, and which field is named.
@Suite struct JSONSchemaTests {
    private func violation(_ schema: JSONValue, _ value: JSONValue) throws -> SchemaViolation? {
        try JSONSchema(schema).validate(value)
    }

    @Test func typesIncludingIntegerAsNumberAndNullable() throws {
        #expect(try violation(["type": "integer"], 3) == nil)
        #expect(try violation(["type": "integer"], 3.0) == nil)
        #expect(try violation(["type": "integer"], 3.5)?.problem == "must be an integer, not a number")
        #expect(try violation(["type": "number"], 3) == nil)
        #expect(try violation(["type": ["string", "null"]], nil) == nil)
        #expect(try violation(["type": ["string", "null"]], 1)?.problem == "must be a string or null, not an integer")
        #expect(try violation(["type": "boolean"], "true") != nil)
        #expect(try violation(true, ["anything": [1, 2]]) == nil)
    }

    @Test func numberBoundsIncludingExclusive() throws {
        let schema: JSONValue = ["type": "number", "minimum": 0, "exclusiveMaximum": 1.5]
        #expect(try violation(schema, 0) == nil)
        #expect(try violation(schema, 1.49) == nil)
        #expect(try violation(schema, 1.5)?.problem == "must be less than 1.5")
        #expect(try violation(schema, -1)?.problem == "must be at least 0")
        #expect(try violation(["exclusiveMinimum": 0], 0)?.problem == "must be greater than 0")
    }

    @Test func stringLengthCountsCodePoints() throws {
        let schema: JSONValue = ["type": "string", "maxLength": 2]
        #expect(try violation(schema, "日本") == nil)
        #expect(try violation(schema, "👍👍") == nil)
        #expect(try violation(schema, "abc")?.problem == "must be at most 2 characters (got 3)")
        #expect(try violation(["pattern": "^a+$"], "aaa") == nil)
        #expect(try violation(["pattern": "b"], "abc") == nil, "patterns are not anchored")
        #expect(try violation(["pattern": "^a+$"], "ab") != nil)
    }

    @Test func enumConstAndUniqueItemsCompareNumbersByValue() throws {
        #expect(try violation(["enum": [1, "two"]], 1.0) == nil)
        #expect(try violation(["enum": [1, "two"]], "three")?.problem == "must be one of: 1, two")
        #expect(try violation(["const": ["a": 1]], ["a": 1]) == nil)
        #expect(try violation(["uniqueItems": true], [1, 1.0])?.problem == "must not repeat 1")
        #expect(try violation(["type": "array", "minItems": 1], [])?.problem == "must have at least 1 item")
    }

    @Test func nestedPathsNameTheField() throws {
        let schema: JSONValue = [
            "type": "object",
            "properties": [
                "list": ["type": "array", "items": ["type": "object", "properties": ["n": ["maximum": 5]]]]
            ],
            "additionalProperties": ["type": "string"],
        ]
        let nested = try violation(schema, ["list": [["n": 1], ["n": 6]]])
        #expect(nested?.field == "list[1].n")
        #expect(nested?.description == "`list[1].n` must be at most 5.")
        #expect(try violation(schema, ["extra": "ok"]) == nil)
        #expect(try violation(schema, ["extra": 1])?.field == "extra")
        #expect(try violation(["type": "object"], [1])?.description == "The arguments must be an object, not an array.")
    }

    @Test func combinationsPickTheMeantAlternative() throws {
        let schema: JSONValue = [
            "anyOf": [
                ["type": "string", "maxLength": 3],
                ["type": "object", "properties": ["k": ["type": "integer", "minimum": 1]], "required": ["k"]],
            ]
        ]
        #expect(try violation(schema, "abc") == nil)
        #expect(try violation(schema, ["k": 2]) == nil)
        #expect(try violation(schema, "abcd")?.problem == "must be at most 3 characters (got 4)")
        #expect(try violation(schema, ["k": 0])?.field == "k")
        #expect(try violation(schema, 5)?.problem == "does not match any of the allowed forms")
        let both: JSONValue = ["oneOf": [["type": "integer"], ["type": "number"]]]
        #expect(try violation(both, 1)?.problem == "matches more than one of the allowed forms")
        #expect(try violation(both, 1.5) == nil)
        let all: JSONValue = ["allOf": [["minimum": 1], ["maximum": 3]]]
        #expect(try violation(all, 4)?.problem == "must be at most 3")
    }
}

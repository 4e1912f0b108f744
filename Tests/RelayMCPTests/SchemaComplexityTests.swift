import RelayJSON
import Testing

@testable import RelayMCP

/// The JSON Schema validator's work is linear in the arguments it checks (issue 38): the cost per
/// input byte (parse and validate, as a `tools/call` does) at ten times the size stays within a
/// generous bound of the cost per byte at the small size (`ComplexityCheck`).
@Suite(.serialized) struct SchemaComplexityTests {
    static let bound = 4.0

    static let schema = try! JSONSchema([
        "type": "object",
        "properties": [
            "title": ["type": "string", "maxLength": 500],
            "tags": [
                "type": "array", "uniqueItems": true, "items": ["type": ["string", "number", "array", "object"]],
            ],
            "items": ["type": "array", "items": ["type": "object", "properties": ["n": ["type": "integer"]]]],
        ],
        "required": ["title"],
        "additionalProperties": ["type": "integer"],
    ])

    static let shapes: [ComplexityCheck.Shape] = [
        .init("many extra members") { size in
            Array(("{\"title\":\"t\"," + (0..<(size / 12)).map { "\"m\($0)\":1" }.joined(separator: ",") + "}").utf8)
        },
        .init("unique strings") { size in
            Array(
                ("{\"title\":\"t\",\"tags\":[" + (0..<(size / 10)).map { "\"t\($0)\"" }.joined(separator: ",") + "]}")
                    .utf8)
        },
        .init("unique numbers") { size in
            Array(
                ("{\"title\":\"t\",\"tags\":[" + (0..<(size / 8)).map { "\($0).5" }.joined(separator: ",") + "]}").utf8)
        },
        .init("unique nested arrays") { size in
            Array(
                ("{\"title\":\"t\",\"tags\":[" + (0..<(size / 12)).map { "[\($0),1.0]" }.joined(separator: ",") + "]}")
                    .utf8)
        },
        .init("many item objects") { size in
            Array(
                ("{\"title\":\"t\",\"items\":[" + (0..<(size / 8)).map { "{\"n\":\($0)}" }.joined(separator: ",") + "]}")
                    .utf8)
        },
    ]

    @Test(arguments: shapes.map(\.name))
    func validationCostPerByteIsFlat(_ name: String) throws {
        let shape = try #require(Self.shapes.first { $0.name == name })
        let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape) { input in
            guard let value = try? JSONValue(parsing: input) else { return -1 }
            return Self.schema.validate(value) == nil ? 1 : 0
        }
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
    }

    @Test func everyShapeIsValid() throws {
        for shape in Self.shapes {
            #expect(Self.schema.validate(try JSONValue(parsing: shape.make(5_000))) == nil, "\(shape.name)")
        }
    }

    @Test func uniqueItemsComparesByValueWithoutComparingEveryPair() throws {
        let unique = try JSONSchema(["uniqueItems": true])
        #expect(unique.validate([1, 1.0])?.problem == "must not repeat 1")
        #expect(unique.validate([0, -0.0]) != nil)
        #expect(unique.validate([[1], [1.0]]) == nil, "inside an array 1 and 1.0 differ, as JSONValue == has them")
        #expect(unique.validate(["a", "b", ["a"], ["a": 1], ["a": 2]]) == nil)
        #expect(unique.validate([["a": [1, "x"]], ["a": [1, "x"]]]) != nil)
        #expect(unique.validate(["ab", ["a", "b"]]) == nil)
        #expect(unique.validate([nil, false, true, "", 0]) == nil)
        #expect(unique.validate([nil, nil]) != nil)
    }
}

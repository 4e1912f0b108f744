import Testing

@testable import RelayJSON

/// The parser's work grows linearly with its input on every adversarial shape (issue 38): the cost
/// per byte at ten times the size stays within a generous bound of the cost per byte at the small
/// size. A scan per member for a duplicate key made the per-byte cost 9.5 times higher at 27,000
/// keys than at 2,700; the bound of 4 leaves room for a loaded machine and nothing for quadratic work.
@Suite(.serialized) struct JSONComplexityTests {
    static let bound = 4.0

    @Test(arguments: JSONFuzzing.adversarialShapes.map(\.name))
    func costPerByteIsFlat(_ name: String) throws {
        let shape = try #require(JSONFuzzing.adversarialShapes.first { $0.name == name })
        let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape, JSONFuzzing.parseCost)
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
    }

    @Test func everyShapeParses() {
        for shape in JSONFuzzing.adversarialShapes {
            for size in [20_000, 200_000] {
                let input = shape.make(size)
                #expect((try? JSONValue(parsing: input)) != nil, "\(shape.name) at \(size) B")
                #expect(
                    input.count <= size * 2 && input.count >= size / 2, "\(shape.name) at \(size) B is \(input.count) B"
                )
            }
        }
    }

    /// Issue 38's body: three-letter keys, 2,700 and 27,000 of them.
    @Test func twentySevenThousandKeysCostTenTimesTwentySevenHundred() {
        let check = ComplexityCheck(smallSize: 2_700, factor: 10)
        let measurement = check.measure(JSONFuzzing.threeLetterKeys, JSONFuzzing.parseCost)
        #expect(measurement.ratio <= Self.bound, "\(measurement)")
        #expect(JSONFuzzing.threeLetterKeys.make(27_000).count > 200_000, "issue 38's 216 KB body")
    }

    /// The check can fail: a duplicate check that scans every earlier member (the parser before
    /// issue 38) is caught on the same shape and sizes.
    @Test func aScanPerMemberFailsTheCheck() throws {
        let shape = try #require(JSONFuzzing.adversarialShapes.first { $0.name == "many distinct keys" })
        // Smaller sizes than the others: the quadratic scan is slow to run, not only to fail.
        let measurement = ComplexityCheck(smallSize: 4_000, factor: 10, rounds: 2).measure(shape) { input in
            guard case .object(let object)? = try? JSONValue(parsing: input) else { return -1 }
            var names: [String] = []
            for name in object.keys where !names.contains(name) { names.append(name) }
            return names.count
        }
        #expect(measurement.ratio > Self.bound, "\(measurement)")
    }

    /// A repeated key still keeps its first position and its last value past the hash index's threshold.
    @Test func duplicatesAmongManyKeysKeepFirstPositionAndLastValue() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" } + ["\"k3\":99", "\"k39\":100", "\"new\":1"]
        let value = try JSONValue(parsing: "{" + members.joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.count == 41)
        #expect(object.keys.prefix(5) == ["k0", "k1", "k2", "k3", "k4"])
        #expect(object["k3"] == .int(99))
        #expect(object["k39"] == .int(100))
        #expect(object.keys.last == "new")
        // Nested objects past the threshold keep their own names.
        let nested =
            "{"
            + (0..<12).map { "\"a\($0)\":{" + (0..<12).map { "\"a\($0)\":1" }.joined(separator: ",") + "}" }
            .joined(separator: ",") + ",\"a0\":2}"
        let outer = try #require(try JSONValue(parsing: nested).objectValue)
        #expect(outer.count == 12)
        #expect(outer["a0"] == .int(2))
        #expect(outer["a1"]?.objectValue?.count == 12)
    }
}

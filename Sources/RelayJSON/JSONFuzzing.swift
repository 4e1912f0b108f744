/// The JSON parser's fuzz harness body, kept in the library so the fuzzer (`fuzz-json-parser`) and
/// the unit tests share it. `run` checks properties that must hold for any input, and stops the
/// process (`precondition`) when one does not:
///
/// - parsing either succeeds or fails at an offset inside the input;
/// - what the writer makes of a parsed value parses again, to the same value (numbers compared by
///   value: `2.0` is written `2` and comes back as an integer), and writing that again gives the same
///   bytes, so the written form is canonical;
/// - the nesting limit is exact: the written form of a value nested `d` deep parses with
///   `maxDepth: d` and fails with `maxDepth: d - 1`;
/// - the input parses the same when it is surrounded by whitespace.
package enum JSONFuzzing {
    /// Checks every property on `input`.
    package static func run(_ input: [UInt8]) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: input)
        } catch {
            precondition(error.offset >= 0 && error.offset <= input.count, "error offset outside the input")
            // Whitespace around a refused document cannot make it acceptable.
            precondition((try? JSONValue(parsing: [0x20] + input + [0x0A])) == nil, "whitespace changed a refusal")
            return
        }
        let written = value.bytes
        let again: JSONValue
        do {
            again = try JSONValue(parsing: written)
        } catch {
            preconditionFailure("the writer produced JSON the parser refuses: \(error)")
        }
        precondition(sameValue(value, again), "parse -> write -> parse changed the value")
        precondition(again.bytes == written, "writing is not canonical")
        // On the written form, whose nesting is the value's (in the input, a repeated key may have
        // hidden a deeper member that the value no longer holds).
        let depth = nesting(value)
        precondition(
            (try? JSONValue(parsing: written, maxDepth: depth)) != nil, "the depth limit refused its own depth")
        if depth > 0 {
            precondition(
                (try? JSONValue(parsing: written, maxDepth: depth - 1)) == nil, "the depth limit let one more in")
        }
        let padded = (try? JSONValue(parsing: [0x09, 0x0D, 0x0A, 0x20] + input + [0x20]))
        precondition(padded.map { sameValue($0, value) } ?? false, "surrounding whitespace changed the value")
    }

    /// Equal, with integers and doubles compared by numeric value and object members in order.
    static func sameValue(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.int(let a), .int(let b)): return a == b
        case (.int, .double), (.double, .int), (.double, .double):
            return left.doubleValue == right.doubleValue
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { sameValue($0, $1) }
        case (.object(let a), .object(let b)):
            let first = Array(a.members)
            let second = Array(b.members)
            return first.count == second.count
                && zip(first, second).allSatisfy {
                    $0.key.utf8.elementsEqual($1.key.utf8) && sameValue($0.value, $1.value)
                }
        default: return false
        }
    }

    /// How many arrays and objects are nested at the deepest point (0 for a scalar).
    static func nesting(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(nesting).max() ?? 0)
        case .object(let object): 1 + (object.members.map { nesting($0.value) }.max() ?? 0)
        default: 0
        }
    }
}

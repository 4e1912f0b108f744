extension JSONFuzzing {
    /// The inputs an attacker would pick to make a JSON parser work harder than its input is long:
    /// the complexity check (`ComplexityCheck`) of the parser runs each at two sizes. Every shape
    /// stays within the default nesting limit, so each is parsed to the end.
    package static let adversarialShapes: [ComplexityCheck.Shape] = [
        .init("many distinct keys") { size in
            // {"k0":0,"k1":0,…}: the shape of issue 38 (a scan per member for a duplicate).
            object(count: size / 9) { "\"k\($0)\":0" }
        },
        .init("many keys in nested objects") { size in
            // Objects of 200 members inside one object: each inner object's index starts empty.
            object(count: size / 2_000) { outer in
                "\"o\(outer)\":" + object(count: 200) { "\"k\($0)\":\(outer)" }.string
            }
        },
        .init("repeated key") { size in object(count: size / 8) { _ in "\"same\":1" } },
        .init("deep nesting") { size in
            // Arrays nested 60 deep, side by side in one array (the limit is 64).
            let nest = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
            return array(count: size / 121) { _ in nest }
        },
        .init("deep objects") { size in
            let nest = String(repeating: "{\"a\":", count: 60) + "1" + String(repeating: "}", count: 60)
            return array(count: size / (nest.utf8.count + 1)) { _ in nest }
        },
        .init("long escapes") { size in
            Array(("\"" + String(repeating: "\\u00e9\\n\\ud83d\\ude00", count: size / 20) + "\"").utf8)
        },
        .init("long plain string") { size in Array(("\"" + String(repeating: "abcdefgh", count: size / 8) + "\"").utf8)
        },
        .init("huge integers") { size in
            array(count: size / 301) { _ in String(repeating: "9", count: 300) }
        },
        .init("huge fractions") { size in
            array(count: size / 302) { _ in "1." + String(repeating: "3", count: 298) + "e5" }
        },
        .init("many small numbers") { size in array(count: size / 2) { "\($0 % 10)" } },
        .init("many small strings") { size in array(count: size / 4) { _ in "\"a\"" } },
    ]

    /// Issue 38's body: a `ping` whose `params` holds `size` distinct keys of three letters
    /// (`"aaa"`, `"baa"`, …; four letters past 17,576). 27,000 of them are 216 KB.
    package static let threeLetterKeys = ComplexityCheck.Shape("three-letter keys (size = keys)") { size in
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var keys: [String] = []
        keys.reserveCapacity(size)
        for index in 0..<size {
            var name = ""
            var rest = index
            repeat {
                name.append(letters[rest % 26])
                rest /= 26
            } while rest > 0
            keys.append("\"" + String(repeating: "a", count: max(0, 3 - name.count)) + name + "\":0")
        }
        return Array(
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{" + keys.joined(separator: ",") + "}}")
                .utf8)
    }

    /// The complexity check as the fuzzer's replay program prints it (`fuzz-json-parser --complexity`):
    /// every adversarial shape at 20 KB and 200 KB, then issue 38's 2,700 and 27,000 keys.
    package static func complexityReport() -> (lines: [String], worstRatio: Double, keysRatio: Double) {
        var lines: [String] = []
        var worst = 0.0
        for shape in adversarialShapes {
            let measurement = ComplexityCheck(smallSize: 20_000, factor: 10).measure(shape, parseCost)
            worst = max(worst, measurement.ratio)
            lines.append("\(measurement)")
        }
        let keys = ComplexityCheck(smallSize: 2_700, factor: 10).measure(threeLetterKeys, parseCost)
        // The whole parse of the larger body over the smaller (ten times the keys: 10 when linear).
        let total =
            keys.largeNanosPerByte * Double(keys.largeBytes) / (keys.smallNanosPerByte * Double(keys.smallBytes))
        lines.append("\(keys)")
        lines.append(
            "27,000-key body parse / 2,700-key body parse: \((total * 10).rounded() / 10)x "
                + "(\(keys.largeBytes) B vs \(keys.smallBytes) B; linear is about 10x, the goal at most 15x)")
        return (lines, worst, total)
    }

    private static func object(count: Int, _ member: (Int) -> String) -> [UInt8] {
        Array(("{" + (0..<max(count, 1)).map(member).joined(separator: ",") + "}").utf8)
    }

    private static func array(count: Int, _ element: (Int) -> String) -> [UInt8] {
        Array(("[" + (0..<max(count, 1)).map(element).joined(separator: ",") + "]").utf8)
    }

    /// Parses `input` and returns a number derived from the result (for `ComplexityCheck.measure`).
    package static func parseCost(_ input: [UInt8]) -> Int {
        switch Result(catching: { () throws(JSONParseError) in try JSONValue(parsing: input) }) {
        case .success(let value):
            switch value {
            case .object(let object): return object.count
            case .array(let elements): return elements.count
            case .string(let string): return string.utf8.count
            default: return 1
            }
        case .failure(let error): return -error.offset
        }
    }
}

extension [UInt8] {
    fileprivate var string: String { String(decoding: self, as: UTF8.self) }
}

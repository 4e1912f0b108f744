import RelayJSON

extension JSONSchema {
    func check(_ value: JSONValue, at path: inout [SchemaPath]) -> SchemaViolation? {
        if let types, !types.contains(where: { Self.value(value, hasType: $0) }) {
            return mismatch(path, "must be \(Self.describe(types)), not \(Self.describeType(of: value))")
        }
        if let enumValues, !enumValues.contains(where: { Self.same($0, value) }) {
            let choices = enumValues.map { $0.stringValue ?? $0.jsonString }.joined(separator: ", ")
            return mismatch(path, "must be one of: \(choices)")
        }
        if let constValue, !Self.same(constValue, value) { return mismatch(path, "must be \(constValue.jsonString)") }
        let violation: SchemaViolation? =
            switch value {
            case .string(let string): checkString(string, path)
            case .int, .double: checkNumber(value.doubleValue ?? 0, path)
            case .array(let elements): checkArray(elements, at: &path)
            case .object(let object): checkObject(object, at: &path)
            case .null, .bool: nil
            }
        if let violation { return violation }
        return checkCombinations(value, at: &path)
    }

    private func fail(_ path: [SchemaPath], _ problem: String) -> SchemaViolation {
        SchemaViolation(path: path, problem: problem)
    }

    private func mismatch(_ path: [SchemaPath], _ problem: String) -> SchemaViolation {
        SchemaViolation(path: path, problem: problem, isMismatch: true)
    }

    private func checkString(_ string: String, _ path: [SchemaPath]) -> SchemaViolation? {
        if minLength != nil || maxLength != nil {
            let length = string.unicodeScalars.count
            if let minLength, length < minLength {
                return fail(path, minLength == 1 ? "must not be empty" : "must be at least \(minLength) characters")
            }
            if let maxLength, length > maxLength {
                return fail(path, "must be at most \(maxLength) characters (got \(length))")
            }
        }
        if let pattern, !pattern.matches(string) { return fail(path, "must match the pattern \(pattern.source)") }
        return nil
    }

    private func checkNumber(_ number: Double, _ path: [SchemaPath]) -> SchemaViolation? {
        if let minimum, number < minimum { return fail(path, "must be at least \(Self.format(minimum))") }
        if let maximum, number > maximum { return fail(path, "must be at most \(Self.format(maximum))") }
        if let exclusiveMinimum, number <= exclusiveMinimum {
            return fail(path, "must be greater than \(Self.format(exclusiveMinimum))")
        }
        if let exclusiveMaximum, number >= exclusiveMaximum {
            return fail(path, "must be less than \(Self.format(exclusiveMaximum))")
        }
        return nil
    }

    private func checkArray(_ elements: [JSONValue], at path: inout [SchemaPath]) -> SchemaViolation? {
        if let minItems, elements.count < minItems {
            return fail(path, "must have at least \(Self.itemCount(minItems))")
        }
        if let maxItems, elements.count > maxItems {
            return fail(path, "must have at most \(Self.itemCount(maxItems))")
        }
        if uniqueItems {
            // Hashed, not compared pairwise: a pairwise check is quadratic in the array (issue 38).
            var seen = Set<String>()
            for element in elements where !seen.insert(Self.sameKey(element)).inserted {
                return fail(path, "must not repeat \(element.jsonString)")
            }
        }
        guard let items else { return nil }
        for (index, element) in elements.enumerated() {
            path.append(.index(index))
            defer { path.removeLast() }
            if let violation = items.check(element, at: &path) { return violation }
        }
        return nil
    }

    private func checkObject(_ object: JSONObject, at path: inout [SchemaPath]) -> SchemaViolation? {
        // Present members first: a wrong discriminator says more than the member it would require.
        for (name, member) in object {
            path.append(.property(name))
            defer { path.removeLast() }
            if let schema = property(name) {
                if let violation = schema.check(member, at: &path) { return violation }
                continue
            }
            switch additional {
            case .allowed: continue
            case .forbidden:
                let known = properties.map(\.name).joined(separator: ", ")
                let hint = known.isEmpty ? "this tool takes no arguments" : "known arguments: \(known)"
                return fail(path, "is not a known argument (\(hint))")
            case .schema(let schema):
                if let violation = schema.check(member, at: &path) { return violation }
            }
        }
        for name in required where object[name] == nil {
            return SchemaViolation(path: path + [.property(name)], problem: "is required")
        }
        return nil
    }

    private func checkCombinations(_ value: JSONValue, at path: inout [SchemaPath]) -> SchemaViolation? {
        for schema in allOf {
            if let violation = schema.check(value, at: &path) { return violation }
        }
        if !anyOf.isEmpty {
            var failures: [SchemaViolation] = []
            for schema in anyOf {
                guard let violation = schema.check(value, at: &path) else { return nil }
                failures.append(violation)
            }
            return Self.closest(failures, value: value, path: path)
        }
        if !oneOf.isEmpty {
            var failures: [SchemaViolation] = []
            var matches = 0
            for schema in oneOf {
                if let violation = schema.check(value, at: &path) { failures.append(violation) } else { matches += 1 }
            }
            if matches == 1 { return nil }
            if matches > 1 { return fail(path, "matches more than one of the allowed forms") }
            return Self.closest(failures, value: value, path: path)
        }
        return nil
    }

    /// When no alternative matches, the most useful message comes from the alternative whose kind
    /// (type, discriminating `const`) fits and that got furthest into the value; if none fits, the
    /// value itself is named.
    private static func closest(_ failures: [SchemaViolation], value: JSONValue, path: [SchemaPath]) -> SchemaViolation
    {
        let fitting = failures.filter { !$0.isMismatch }
        if let deepest = fitting.max(by: { $0.path.count < $1.path.count }) { return deepest }
        return SchemaViolation(path: path, problem: "does not match any of the allowed forms", isMismatch: true)
    }

    static func value(_ value: JSONValue, hasType type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .int), ("number", .int), ("number", .double): true
        case ("integer", .double(let double)): double.rounded() == double
        default: false
        }
    }

    /// JSON equality where 1 and 1.0 are the same number.
    static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if let left = lhs.doubleValue, let right = rhs.doubleValue { return left == right }
        return lhs == rhs
    }

    /// A text equal for two values exactly when `same` holds: a number at the top by its value,
    /// anything else by its kind and contents (inside an array or object 1 and 1.0 differ, as
    /// `JSONValue ==` has them).
    static func sameKey(_ value: JSONValue) -> String {
        if let number = value.doubleValue { return "n\(number == 0 ? 0 : number)" }
        var key = ""
        appendKey(value, to: &key)
        return key
    }

    private static func appendKey(_ value: JSONValue, to key: inout String) {
        switch value {
        case .null: key += "z"
        case .bool(let bool): key += bool ? "t" : "f"
        case .int(let int): key += "i\(int);"
        case .double(let double): key += "d\(double == 0 ? 0 : double);"
        case .string(let string): key += "s\(string.utf8.count):" + string
        case .array(let elements):
            key += "[\(elements.count):"
            for element in elements { appendKey(element, to: &key) }
        case .object(let object):
            key += "{\(object.count):"
            for (name, member) in object {
                key += "\(name.utf8.count):" + name
                appendKey(member, to: &key)
            }
        }
    }

    private static func describe(_ types: [String]) -> String {
        let names = types.map {
            $0 == "null" ? "null" : (["integer", "array", "object"].contains($0) ? "an \($0)" : "a \($0)")
        }
        return names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    private static func describeType(of value: JSONValue) -> String {
        switch value {
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private static func itemCount(_ count: Int) -> String { count == 1 ? "1 item" : "\(count) items" }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

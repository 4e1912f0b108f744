/// One step from the arguments object to a value: a property name or an array index.
package enum SchemaPath: Sendable, Equatable {
    /// A member of an object.
    case property(String)
    /// An element of an array.
    case index(Int)
}

/// Why a value does not match a schema, and where.
package struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// Where the offending value sits (empty: the arguments object itself).
    package var path: [SchemaPath]
    /// What is wrong, phrased after the field name (`must be a string`).
    package var problem: String
    /// The value is of the wrong kind (type, `enum` or `const`), rather than breaking a constraint;
    /// used to pick the branch of `oneOf`/`anyOf` the caller most likely meant.
    var isMismatch = false

    /// A violation.
    package init(path: [SchemaPath], problem: String) {
        self.path = path
        self.problem = problem
    }

    init(path: [SchemaPath], problem: String, isMismatch: Bool) {
        self.path = path
        self.problem = problem
        self.isMismatch = isMismatch
    }

    /// The path as a field name: `repeat.interval`, `weekdays[2]`; nil for the root.
    package var field: String? {
        guard !path.isEmpty else { return nil }
        var text = ""
        for step in path {
            switch step {
            case .property(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// A sentence naming the field: "`repeat.interval` must be at most 99."
    package var description: String {
        guard let field else { return "The arguments \(problem)." }
        return "`\(field)` \(problem)."
    }

    /// The violation as a tool error.
    package var toolError: ToolError { .invalidArgument(description, field: field) }
}

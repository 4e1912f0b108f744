/// The schema as text, laid out as `cktool export-schema` writes it: types in name order, the six system
/// fields first, every name padded to one column, options in alphabetical order, grants last.
extension ContainerSchema {
    /// The schema in the CloudKit Schema Language (parses back to an equal schema).
    package var text: String {
        var lines = ["DEFINE SCHEMA", ""]
        for role in roles.sorted() { lines += ["    CREATE ROLE \(role);", ""] }
        for type in recordTypes.values.sorted(by: { $0.name < $1.name }) {
            lines.append("    RECORD TYPE \(Self.quoted(type.name)) (")
            let system = type.fields.values.filter(\.isSystem).sorted { $0.name < $1.name }
            let fields = system + type.declaredFields
            let width = fields.map { Self.quoted($0.name).count }.max() ?? 0
            var items = fields.map { field -> String in
                let name = Self.quoted(field.name)
                var options: [String] = []
                if field.queryable { options.append("QUERYABLE") }
                if field.searchable { options.append("SEARCHABLE") }
                if field.sortable { options.append("SORTABLE") }
                let padding = String(repeating: " ", count: width - name.count + 1)
                return ([name + padding + field.type.description] + options).joined(separator: " ")
            }
            items += type.grants.map { grant in
                // "GRANT READ TO _creator" → the role quoted when it needs quotes.
                guard let range = grant.range(of: " TO ", options: .backwards) else { return grant }
                return String(grant[..<range.upperBound]) + Self.quoted(String(grant[range.upperBound...]))
            }
            lines += items.enumerated().map { "        " + $1 + ($0 < items.count - 1 ? "," : "") }
            lines += ["    );", ""]
        }
        if lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A name as the language needs it: bare when it is a plain identifier, else in double quotes.
    static func quoted(_ name: String) -> String {
        let scalars = name.unicodeScalars
        let plain =
            scalars.first.map { $0.isASCII && $0.properties.isAlphabetic } == true
            && scalars.allSatisfy {
                $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
            && !SchemaLanguage.reservedWords.contains(name.uppercased())
        return plain ? name : "\"\(name)\""
    }
}

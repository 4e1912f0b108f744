/// A container's schema as the CloudKit Schema Language states it (what `cktool export-schema`
/// writes and `cktool import-schema` reads): record types, their fields with types and indexes, and
/// the grants. The emulator checks writes and queries against it the way Apple's production
/// environment does; `SchemaLanguage` parses it.
///
/// Apple: "Integrating a Text-Based Schema into Your Workflow",
/// https://developer.apple.com/documentation/cloudkit/integrating-a-text-based-schema-into-your-workflow
package struct ContainerSchema: Sendable, Equatable {
    /// Record types by name.
    package var recordTypes: [String: RecordType]
    /// Roles made with `CREATE ROLE`.
    package var roles: [String]

    /// A schema of these types.
    package init(recordTypes: [String: RecordType] = [:], roles: [String] = []) {
        self.recordTypes = recordTypes
        self.roles = roles
    }

    /// Parses schema text; the error names the line.
    package init(parsing text: String) throws(EmulatorError) {
        self = try SchemaLanguage.parse(text)
    }

    /// One record type.
    package struct RecordType: Sendable, Equatable {
        /// The type's name (`Todo`).
        package var name: String
        /// Fields by name, the implicit system fields (`___recordID`…) included.
        package var fields: [String: Field]
        /// `GRANT … TO …` lines, as written (the emulator serves the private database, where they do not apply).
        package var grants: [String]

        /// A type with the system fields and `fields`.
        package init(name: String, fields: [Field] = [], grants: [String] = []) {
            self.name = name
            self.grants = grants
            var all: [String: Field] = [:]
            for field in Field.systemFields { all[field.name] = field }
            for field in fields { all[field.name] = field }
            self.fields = all
        }

        /// The fields the type declares, without the implicit system fields.
        package var declaredFields: [Field] {
            fields.values.filter { !$0.isSystem }.sorted { $0.name < $1.name }
        }
    }

    /// One field: its type and the indexes CloudKit keeps for it.
    package struct Field: Sendable, Equatable {
        /// The field's name.
        package var name: String
        /// Its type.
        package var type: FieldType
        /// `QUERYABLE`: an index for equality lookups.
        package var queryable: Bool
        /// `SORTABLE`: an index for sorting and range searches.
        package var sortable: Bool
        /// `SEARCHABLE`: a text search index.
        package var searchable: Bool

        /// A field.
        package init(
            _ name: String, _ type: FieldType, queryable: Bool = false, sortable: Bool = false,
            searchable: Bool = false
        ) {
            self.name = name
            self.type = type
            self.queryable = queryable
            self.sortable = sortable
            self.searchable = searchable
        }

        /// Whether CloudKit defines it for every type (a name that starts with `___`).
        package var isSystem: Bool { name.hasPrefix("___") }

        /// The fields every record type has, without indexes unless the schema names them.
        static let systemFields: [Field] = [
            Field("___createTime", .timestamp), Field("___createdBy", .reference), Field("___etag", .string),
            Field("___modTime", .timestamp), Field("___modifiedBy", .reference), Field("___recordID", .reference),
        ]

        /// The system field behind a query's `systemFieldName` (Web Services name → schema name).
        static func system(named name: String) -> String? {
            switch name {
            case "recordName": "___recordID"
            case "createdTimestamp": "___createTime"
            case "modifiedTimestamp": "___modTime"
            case "createdUserRecordName": "___createdBy"
            case "modifiedUserRecordName": "___modifiedBy"
            default: nil
            }
        }
    }
}

/// A field's data type in the schema language.
package struct FieldType: Sendable, Equatable, CustomStringConvertible {
    /// The primitive types.
    package enum Primitive: String, Sendable, CaseIterable {
        /// `ASSET`.
        case asset = "ASSET"
        /// `BYTES`.
        case bytes = "BYTES"
        /// `DOUBLE`.
        case double = "DOUBLE"
        /// `INT64`.
        case int64 = "INT64"
        /// `LOCATION`.
        case location = "LOCATION"
        /// `NUMBER`: only what development's just-in-time schema makes; `PREFERRED AS` picks INT64 or DOUBLE.
        case number = "NUMBER"
        /// `REFERENCE`.
        case reference = "REFERENCE"
        /// `STRING`.
        case string = "STRING"
        /// `TIMESTAMP`.
        case timestamp = "TIMESTAMP"
    }

    /// The element type.
    package var primitive: Primitive
    /// `LIST<…>`.
    package var isList: Bool
    /// `ENCRYPTED …`.
    package var isEncrypted: Bool
    /// `NUMBER PREFERRED AS INT64|DOUBLE`.
    package var preferred: Primitive?

    /// A type.
    package init(_ primitive: Primitive, list: Bool = false, encrypted: Bool = false, preferred: Primitive? = nil) {
        self.primitive = primitive
        isList = list
        isEncrypted = encrypted
        self.preferred = preferred
    }

    static let string = FieldType(.string)
    static let timestamp = FieldType(.timestamp)
    static let reference = FieldType(.reference)

    /// As the schema language writes it.
    package var description: String {
        var element = (isEncrypted ? "ENCRYPTED " : "") + primitive.rawValue
        if let preferred { element += " PREFERRED AS \(preferred.rawValue)" }
        return isList ? "LIST<\(element)>" : element
    }

    /// The Web Services type tags a value of this type may carry (`reference/cloudkit-ws.md` §4): an asset is
    /// `ASSETID` in responses and `ASSET` or `ASSETID` in requests, an encrypted BYTES field is `ENCRYPTED_BYTES`
    /// in Apple's own containers, a list is the element's tag with `_LIST`.
    package var wireTags: Set<String> {
        var elements: Set<String>
        switch primitive {
        case .asset: elements = ["ASSETID", "ASSET"]
        case .number: elements = preferred.map { [$0.rawValue] } ?? ["INT64", "DOUBLE"]
        case .bytes where isEncrypted: elements = ["BYTES", "ENCRYPTED_BYTES"]
        default: elements = [primitive.rawValue]
        }
        return isList ? Set(elements.map { $0 + "_LIST" }) : elements
    }

    /// The tag a response labels values of this type with.
    package var responseTag: String {
        let element: String
        switch primitive {
        case .asset: element = "ASSETID"
        case .number: element = preferred?.rawValue ?? "INT64"
        default: element = primitive.rawValue
        }
        return isList ? element + "_LIST" : element
    }

    /// The schema type a development save gives a new field sent with `tag` (`STRING_LIST` → `LIST<STRING>`).
    static func inferred(fromTag tag: String) -> FieldType? {
        let isList = tag.hasSuffix("_LIST")
        let element = isList ? String(tag.dropLast(5)) : tag
        switch element {
        case "ASSETID", "ASSET": return FieldType(.asset, list: isList)
        case "ENCRYPTED_BYTES": return FieldType(.bytes, list: isList, encrypted: true)
        default: return Primitive(rawValue: element).flatMap { $0 == .number ? nil : FieldType($0, list: isList) }
        }
    }
}

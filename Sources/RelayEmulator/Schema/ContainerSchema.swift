/// A container's schema as the CloudKit Schema Language states it (what `cktool export-schema`
/// writes and `cktool import-schema` reads): record types, their fields with types and indexes, and
/// the grants. The emulator checks writes and queries against it the way Apple's production
/// environment does; `SchemaLanguage` parses it.
///
/// Apple: "Integrating a Text-Based Schema into Your Workflow",
/// https://developer.apple.com/documentation/cloudkit/integrating-a-text-based-schema-into-your-workflow
public struct ContainerSchema: Sendable, Equatable {
    /// Record types by name.
    public var recordTypes: [String: RecordType]
    /// Roles made with `CREATE ROLE`.
    public var roles: [String]

    /// A schema of these types.
    public init(recordTypes: [String: RecordType] = [:], roles: [String] = []) {
        self.recordTypes = recordTypes
        self.roles = roles
    }

    /// Parses schema text; the error names the line.
    public init(parsing text: String) throws(EmulatorError) {
        self = try SchemaLanguage.parse(text)
    }

    /// One record type.
    public struct RecordType: Sendable, Equatable {
        /// The type's name (`Todo`).
        public var name: String
        /// Fields by name, the implicit system fields (`___recordID`…) included.
        public var fields: [String: Field]
        /// `GRANT … TO …` lines, as written (the emulator serves the private database, where they do not apply).
        public var grants: [String]

        /// A type with the system fields and `fields`.
        public init(name: String, fields: [Field] = [], grants: [String] = []) {
            self.name = name
            self.grants = grants
            var all: [String: Field] = [:]
            for field in Field.systemFields { all[field.name] = field }
            for field in fields { all[field.name] = field }
            self.fields = all
        }

        /// The fields the type declares, without the implicit system fields.
        public var declaredFields: [Field] {
            fields.values.filter { !$0.isSystem }.sorted { $0.name < $1.name }
        }
    }

    /// One field: its type and the indexes CloudKit keeps for it.
    public struct Field: Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// Its type.
        public var type: FieldType
        /// `QUERYABLE`: an index for equality lookups.
        public var queryable: Bool
        /// `SORTABLE`: an index for sorting and range searches.
        public var sortable: Bool
        /// `SEARCHABLE`: a text search index.
        public var searchable: Bool

        /// A field.
        public init(
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
        public var isSystem: Bool { name.hasPrefix("___") }

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
public struct FieldType: Sendable, Equatable, CustomStringConvertible {
    /// The primitive types.
    public enum Primitive: String, Sendable, CaseIterable {
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
    public var primitive: Primitive
    /// `LIST<…>`.
    public var isList: Bool
    /// `ENCRYPTED …`.
    public var isEncrypted: Bool
    /// `NUMBER PREFERRED AS INT64|DOUBLE`.
    public var preferred: Primitive?

    /// A type.
    public init(_ primitive: Primitive, list: Bool = false, encrypted: Bool = false, preferred: Primitive? = nil) {
        self.primitive = primitive
        isList = list
        isEncrypted = encrypted
        self.preferred = preferred
    }

    static let string = FieldType(.string)
    static let timestamp = FieldType(.timestamp)
    static let reference = FieldType(.reference)

    /// As the schema language writes it.
    public var description: String {
        var element = (isEncrypted ? "ENCRYPTED " : "") + primitive.rawValue
        if let preferred { element += " PREFERRED AS \(preferred.rawValue)" }
        return isList ? "LIST<\(element)>" : element
    }

    /// The Web Services type tags a value of this type may carry (`reference/cloudkit-ws.md` §4): an asset is
    /// `ASSETID` in responses and `ASSET` or `ASSETID` in requests, an encrypted BYTES field is `ENCRYPTED_BYTES`
    /// in Apple's own containers, a list is the element's tag with `_LIST`.
    public var wireTags: Set<String> {
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
    public var responseTag: String {
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

import RelayJSON

/// Whether the schema's indexes can serve a `records/query`, checked the way CloudKit refuses queries: a filter
/// needs its field QUERYABLE (SORTABLE for a range comparison), a sort needs SORTABLE, and a query with no filter
/// needs `recordName` (`___recordID`) QUERYABLE. Reasons as Apple's servers word them, all BAD_REQUEST:
///
/// - "Field 'recordName' is not marked queryable" (caiyue1993/IceCream#169; "Field '___recordID' is not marked
///   queryable" in DevMountain/Timeline#11: the name Apple uses for a system field varies, so a client must not
///   parse it), "Field '___createTime' is not marked sortable" (evermeer/EVCloudKitDao#2);
/// - "Did not find field: 'recordName' in type: 'Poodle'" for a `fieldName` the type lacks (malhal/CloudKit-PHP#4,
///   a Web Services call);
/// - "Did not find record type: Crash" for an unknown type (kasianov-mikhail/scout#254: the native framework
///   reports it as unknownItem, which Web Services calls NOT_FOUND, so the emulator answers 404 NOT_FOUND).
///
/// Whether a range comparison needs SORTABLE or only QUERYABLE is not documented; Apple describes SORTABLE as
/// "an index optimizing for range searches", so the emulator asks for SORTABLE (the relay makes no range query).
enum QueryIndexCheck {
    static let rangeComparators: Set<String> = [
        "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS",
    ]
    static let tokenComparators: Set<String> = ["CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS"]

    /// Refuses the query when `schema` cannot serve it; `type` is the record type asked for.
    static func check(_ query: JSONValue, type name: String, schema: ContainerSchema) throws(EmulatorError) {
        guard let type = schema.recordTypes[name] else {
            throw EmulatorError(status: 404, code: "NOT_FOUND", reason: "Did not find record type: \(name)")
        }
        let filters = query["filterBy"]?.arrayValue ?? []
        if filters.isEmpty, type.fields["___recordID"]?.queryable != true {
            throw refusal("Field 'recordName' is not marked queryable")
        }
        for filter in filters {
            let (shown, field) = try resolve(filter, in: type)
            let comparator = filter["comparator"]?.stringValue ?? ""
            if tokenComparators.contains(comparator) {
                guard field.searchable else { throw refusal("Field '\(shown)' is not marked searchable") }
            } else if rangeComparators.contains(comparator) {
                guard field.sortable else { throw refusal("Field '\(shown)' is not marked sortable") }
            } else {
                guard field.queryable else { throw refusal("Field '\(shown)' is not marked queryable") }
            }
        }
        for sort in query["sortBy"]?.arrayValue ?? [] {
            let (shown, field) = try resolve(sort, in: type)
            guard field.sortable else { throw refusal("Field '\(shown)' is not marked sortable") }
        }
    }

    /// The schema field a filter or sort names, and the name the refusal shows.
    private static func resolve(
        _ item: JSONValue, in type: ContainerSchema.RecordType
    ) throws(EmulatorError) -> (String, ContainerSchema.Field) {
        if let system = item["systemFieldName"]?.stringValue {
            guard let name = ContainerSchema.Field.system(named: system), let field = type.fields[name] else {
                throw EmulatorError.badRequest("Unknown system field name: \(system)")
            }
            return (system, field)
        }
        let name = item["fieldName"]?.stringValue ?? ""
        guard !name.hasPrefix("___"), let field = type.fields[name] else {
            throw refusal("Did not find field: '\(name)' in type: '\(type.name)'")
        }
        return (name, field)
    }

    private static func refusal(_ reason: String) -> EmulatorError {
        EmulatorError(status: 400, code: "BAD_REQUEST", reason: reason)
    }
}

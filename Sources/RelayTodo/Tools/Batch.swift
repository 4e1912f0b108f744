import RelayJSON
import RelayMCP

/// The batch tools (issue 44): `add_todos`, `complete_todos`, `snooze_todos`, `delete_todos`. Each item means
/// what the single tool means for it; all are read in one CloudKit lookup and written in one `records/modify`
/// (CloudKit takes up to 200 operations per request, `reference/cloudkit-ws.md` §6, so 25 items and their
/// Occurrences fit one), with a result per item and one undo handle for the whole batch.
package enum Batch {
    /// The most items one call takes. A longer list is refused before anything is read or written.
    package static let maxItems = 25

    /// One item of a batch as parsed: its request, or why it was refused before any I/O.
    package enum Item<Request: Sendable>: Sendable {
        /// Valid.
        case valid(Request)
        /// Refused (an `add_todos` item without an id has `id` nil).
        case refused(id: String?, TodoError)
    }

    /// The list member `key` (`items` or `ids`): present, an array of 1…25.
    static func list(_ object: ArgumentObject, _ key: String) throws(TodoError) -> [JSONValue] {
        guard let list = try object.array(key) else { throw .invalidArgument(key, "is required") }
        guard !list.isEmpty else { throw .invalidArgument(key, "must list at least one") }
        guard list.count <= maxItems else {
            throw .invalidArgument(
                key,
                "lists \(list.count); at most \(maxItems) per call, and nothing was changed. Split it into calls of "
                    + "\(maxItems) or fewer.")
        }
        return list
    }

    /// Parses `ids` and the other arguments shared by every id with the single tool's `parse`, once per id: an
    /// argument that is wrong for every id refuses the call; an id that is malformed or listed twice refuses that
    /// item only.
    static func perID<Request>(
        _ arguments: JSONValue?, shared: Set<String>, parse: (JSONValue) throws(TodoError) -> Request
    ) throws(TodoError) -> [Item<Request>] {
        let object = try ArgumentObject(arguments, field: "", allowed: shared.union(["ids"]))
        let ids = try list(object, "ids")
        var seen: Set<String> = []
        var items: [Item<Request>] = []
        for (index, value) in ids.enumerated() {
            guard let id = value.stringValue else { throw .invalidArgument("ids[\(index)]", "must be a string") }
            var single = object.members
            single["ids"] = nil
            single["id"] = .string(id)
            do throws(TodoError) {
                let request = try parse(.object(single))
                guard seen.insert(id).inserted else {
                    items.append(.refused(id: id, .invalidArgument("ids[\(index)]", "is listed twice")))
                    continue
                }
                items.append(.valid(request))
            } catch  where error.field == "id" {
                items.append(
                    .refused(
                        id: id,
                        TodoError(
                            code: error.code, message: "ids[\(index)]" + error.message.dropFirst("id".count),
                            field: "ids[\(index)]")))
            }
        }
        return items
    }

    /// The output schema every batch tool shares: `{results, undo}`.
    static let outputSchema = Schema.object(
        [("results", BatchResult.schema), ("undo", UndoText.schema)], required: ["results", "undo"])

    /// The result's `structuredContent`: `{results, undo}`.
    static func result(_ results: [BatchResult], undo: String) -> JSONValue {
        ["results": .array(results.map(\.json)), "undo": .string(undo)]
    }

    /// The `ids` input.
    static let ids: JSONValue = [
        "type": "array", "items": Schema.id, "minItems": 1, "maxItems": .int(maxItems),
        "description": "The to-dos' ids (from list_todos or add_todo), at most 25.",
    ]
}

/// What the write tools say about their `undo` member.
enum UndoText {
    /// The `undo` member of a write's result.
    static let schema = Schema.string(
        "Pass to the undo tool to take this change back (within 24 hours, while the to-do is unchanged).")

    /// The sentence every write tool's description ends with.
    static let sentence =
        "The result has undo: if the user wants this taken back, call undo with it (works for 24 hours while the "
        + "to-do is unchanged)."
}

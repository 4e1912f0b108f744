import Foundation
import RelayCloudKit
import RelayJSON
import RelayMCP

/// `search`: the person's to-dos whose title or notes hold every word of a query, in the shape OpenAI
/// documents for ChatGPT's deep research and company knowledge (`{results: [{id, title, url}]}`, plus a
/// one-line `text`; docs/tools.md "search and fetch"). CloudKit has no text index the relay could use, so
/// the tool reads every Todo record as `list_todos` does and matches here (`SearchText`).
package enum SearchTodos {
    /// Most results one call returns.
    package static let maxResults = 20
    /// Longest query, in Unicode scalars (a model may send a whole question).
    package static let maxQueryLength = 1000
    /// Most words of a query that count; the rest are ignored.
    package static let maxWords = 32

    /// Validated arguments.
    package struct Request: Sendable, Equatable {
        /// The folded words (`SearchText.words`), at least one.
        package var words: [String]

        /// A request for `query`'s words.
        package init(query: String) { words = SearchText.words(query, maxWords: SearchTodos.maxWords) }
    }

    /// One matching to-do.
    package struct Hit: Sendable, Equatable {
        /// The to-do.
        package let todo: Todo
        /// Whether every word is in the title (ranked first).
        package let inTitle: Bool
    }

    /// Validates the arguments: `query` must hold a word (punctuation and spaces alone match nothing).
    package static func parse(_ arguments: JSONValue?) throws(TodoError) -> Request {
        let object = try ArgumentObject(arguments, field: "", allowed: ["query"])
        let query = try object.requiredString("query")
        guard query.unicodeScalars.count <= maxQueryLength else {
            throw .invalidArgument("query", "must be at most \(maxQueryLength) characters; send a few key words")
        }
        let request = Request(query: query)
        guard !request.words.isEmpty else {
            throw .invalidArgument("query", "must contain a word to look for in titles and notes")
        }
        return request
    }

    /// The to-dos (never a soft-deleted one) whose title or notes contain every word, best first, at most
    /// `maxResults`: those with every word in the title before the others; then to-dos still to do (pending
    /// one-offs, repeats that have not ended) soonest first, by due time (a snoozed one-off: the time it was
    /// snoozed to) or, for a repeat, its next occurrence; then finished ones (done or skipped one-offs, ended repeats), latest first; no due time
    /// last; the id breaks ties.
    package static func select(
        _ request: Request, todos: [Todo], account: Account, now: Date, occurrences: [Occurrence] = []
    ) -> [Hit] {
        var ranked: [(key: RankKey, hit: Hit)] = []
        for todo in todos where !todo.isDeleted {
            let title = SearchText.fold(todo.title)
            let inTitle = request.words.allSatisfy { title.contains($0) }
            if !inTitle {
                let notes = SearchText.fold(todo.notes ?? "")
                guard request.words.allSatisfy({ title.contains($0) || notes.contains($0) }) else { continue }
            }
            ranked.append(
                (
                    RankKey(todo, inTitle: inTitle, account: account, now: now, occurrences: occurrences),
                    Hit(todo: todo, inTitle: inTitle)
                ))
        }
        ranked.sort { $0.key < $1.key }
        return ranked.prefix(maxResults).map(\.hit)
    }

    /// The result's `structuredContent`: `{results: [{id, title, url, text}], complete, warning?}`. `url` is empty
    /// (a to-do has no web page); `text` is one line saying when it rings, in the Account zone; `warning` (what
    /// could not be read, for the model to pass on) makes `complete` false.
    package static func result(
        _ hits: [Hit], account: Account, now: Date, occurrences: [Occurrence] = [], warning: String? = nil
    ) -> JSONValue {
        let results = hits.map { hit -> JSONValue in
            let document = TodoDocument(todo: hit.todo, account: account, now: now, occurrences: occurrences)
            return [
                "id": .string(hit.todo.id), "title": .string(document.title), "url": "",
                "text": .string(document.summary),
            ]
        }
        var object: JSONObject = ["results": .array(results), "complete": .bool(warning == nil)]
        if let warning { object["warning"] = .string(warning) }
        return .object(object)
    }

    /// Sort order of a hit (see `select`).
    struct RankKey: Comparable {
        let tier: Int
        let time: Int
        let id: String

        init(_ todo: Todo, inTitle: Bool, account: Account, now: Date, occurrences: [Occurrence]) {
            let finished = todo.isFinished(account: account, now: now)
            let when: Date?
            if !todo.isRepeating {
                when = todo.ringsAt
            } else if finished {
                when = todo.schedule(account: account)?.last.flatMap { todo.alarm(on: $0, account: account) }
            } else {
                when = todo.nextOccurrence(account: account, now: now, occurrences: occurrences)?.alarm
            }
            tier = (inTitle ? 0 : 2) + (finished ? 1 : 0)
            let milliseconds = when.map { Int(($0.timeIntervalSince1970 * 1000).rounded(.down)) }
            time = milliseconds.map { finished ? -$0 : $0 } ?? Int.max
            id = todo.id
        }

        static func < (lhs: RankKey, rhs: RankKey) -> Bool {
            (lhs.tier, lhs.time, lhs.id) < (rhs.tier, rhs.time, rhs.id)
        }
    }
}

extension SearchTodos {
    /// The tool's name, title, schemas and hints. The name and the single `query` string are what ChatGPT's
    /// deep research and company knowledge look for (OpenAI, "Building MCP servers for ChatGPT and API
    /// integrations"; Apps SDK, "Company knowledge compatibility": the input is checked, so it stays exactly
    /// that).
    package static let definition = ToolDefinition(
        name: "search", title: "Search to-dos",
        description: """
            Searches the user's to-dos by words in their titles and notes. query: one or a few key words such \
            as "dentist" or "牛乳", not a question: every word must appear in the title or the notes (anywhere \
            in the text, ignoring case and full- or half-width forms). Returns at most \(maxResults) results, \
            best first: to-dos with every word in the title, then to-dos still to do, soonest first, then \
            finished ones. Each result has id (pass it to fetch for the whole to-do), title, text (one line: \
            when it is due or how it repeats, in the user's time zone) and url (always empty: a to-do has no \
            web page). Deleted to-dos never appear. To see to-dos by date, use list_todos. complete is false \
            only when iCloud held more than could be read; then warning says what may be missing: tell the user.
            """,
        requiredScopes: [TodoScope.read],
        inputSchema: Schema.object(
            [("query", Schema.string("Key words to find in to-do titles and notes."))], required: ["query"],
            closed: true),
        outputSchema: Schema.object(
            [
                (
                    "results",
                    Schema.array(
                        of: Schema.object(
                            [
                                ("id", Schema.string("Pass to fetch.")), ("title", Schema.string()),
                                ("url", Schema.string("Always empty: a to-do has no web page.")),
                                ("text", Schema.string("When it is due or how it repeats.")),
                            ],
                            required: ["id", "title", "url", "text"]),
                        description: "Best first.")
                ),
                ("complete", Schema.completeness),
                ("warning", Schema.warning),
            ],
            required: ["results", "complete"]),
        annotations: ToolAnnotations(
            readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false))
}

extension SearchTodos {
    /// `search`: the zone's newest changes, the Account and the live to-dos, pending ones first and then finished
    /// ones within the same budget of calls, matched here: CloudKit has no index for words inside a field.
    static func run(_ arguments: JSONValue, _ database: TodoDatabase, _ now: Date) async throws -> JSONValue {
        let request = try parse(arguments)
        let listing = try await database.listing(groups: [["pending"], ["done", "skipped"]])
        let todos = listing.todos.values.map(Todo.init(record:))
        let account = listing.account
        var hits = select(request, todos: todos, account: account, now: now)
        // A repeat's "next" honours its done, skipped and snoozed days: one lookup of the days that can be next.
        var occurrences = listing.recentOccurrences.values.compactMap(Occurrence.init(record:))
        let repeating = hits.map(\.todo).filter(\.isRepeating).map(\.id)
        if !repeating.isEmpty {
            let names = repeating.flatMap { id in
                upcomingDays(now: now).map { Occurrence.recordName(todoId: id, date: $0) }
            }
            let found = try await database.lookup(names)
            occurrences += found.values.compactMap {
                (try? OccurrenceRecord(record: $0, schema: database.schema.occurrence)).flatMap(
                    Occurrence.init(record:))
            }
            hits = select(request, todos: todos, account: account, now: now, occurrences: occurrences)
        }
        return result(hits, account: account, now: now, occurrences: occurrences, warning: listing.warning)
    }
}

extension SearchTodos {
    /// The days whose Occurrences can decide a repeat's next alarm at `now`: from any zone's yesterday (a snooze
    /// past midnight) over the coming week: 9 per to-do, so the 20 results fit one lookup.
    static func upcomingDays(now: Date) -> [LocalDate] {
        let today = TimeRules.utc.today(now: now)
        return (-2...6).map { today.adding(days: $0) }
    }
}

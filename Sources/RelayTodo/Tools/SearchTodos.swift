import Foundation
import RelayJSON

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

import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct ListTodosTests {
    let tokyo = Account(timeZone: "Asia/Tokyo")

    func list(_ arguments: String, _ todos: [Todo], _ occurrences: [Occurrence] = [], pageSize: Int = 200)
        throws(TodoError)
        -> ListTodos.Page
    {
        try ListTodos.select(
            ListTodos.parse(json(arguments)), todos: todos, occurrences: occurrences, account: tokyo, pageSize: pageSize
        )
    }

    @Test func oneOffsAreFilteredByTheirDueDateInTheAccountZone() throws {
        // 2026-06-09T15:30Z is already 2026-06-10 00:30 in Tokyo.
        let todos = [
            oneOff("late", due: "2026-06-09T15:30:00Z"), oneOff("early", due: "2026-06-09T14:59:00Z"),
            oneOff("next", due: "2026-06-11T00:00:00Z"), oneOff("undated", due: nil),
        ]
        #expect(try list(#"{"date":"2026-06-10"}"#, todos).items.map(\.id) == ["late"])
        #expect(try list(#"{"date":"2026-06-09"}"#, todos).items.map(\.id) == ["early"])
        #expect(try list(#"{"from":"2026-06-10","to":"2026-06-11"}"#, todos).items.map(\.id) == ["late", "next"])
        #expect(try list(#"{"from":"2026-06-10"}"#, todos).items.map(\.id) == ["late", "next"])
        #expect(try list(#"{"to":"2026-06-09"}"#, todos).items.map(\.id) == ["early"])
        // No range: every date, undated last.
        #expect(try list(#"{}"#, todos).items.map(\.id) == ["early", "late", "next", "undated"])
    }

    @Test func statusFilterDefaultsToPendingAndNeverShowsDeleted() throws {
        var done = oneOff("done")
        done.status = .done
        var skipped = oneOff("skipped")
        skipped.status = .skipped
        var deleted = oneOff("deleted")
        deleted.deletedAt = instant("2026-06-02T00:00:00Z")
        var deletedRepeat = repeating("gone")
        deletedRepeat.deletedAt = instant("2026-06-02T00:00:00Z")
        let todos = [done, skipped, deleted, oneOff("pending"), deletedRepeat]
        #expect(try list(#"{}"#, todos).items.map(\.id) == ["pending"])
        #expect(try list(#"{"status":"done"}"#, todos).items.map(\.id) == ["done"])
        #expect(try list(#"{"status":"skipped"}"#, todos).items.map(\.id) == ["skipped"])
        #expect(try list(#"{"status":"all"}"#, todos).items.map(\.id) == ["done", "pending", "skipped"])
        #expect(try list(#"{"status":"all"}"#, todos).repeating.isEmpty)
    }

    @Test func repeatingTemplatesCarryTheirOccurrencesInRange() throws {
        var daily = repeating("daily", due: "2026-06-01T22:30:00Z")
        daily.timeZone = "Asia/Tokyo"
        let ended = repeating(
            "ended", rule: RepeatRule(kind: .daily, end: .until(day("2026-06-05"))), due: "2026-06-01T00:00:00Z")
        let future = repeating("future", due: "2026-07-01T00:00:00Z")
        let occurrences = [
            Occurrence(todoId: "daily", date: day("2026-06-11"), state: .skipped),
            Occurrence(todoId: "daily", date: day("2026-06-10"), state: .done),
            Occurrence(
                todoId: "daily", date: day("2026-06-12"), state: .snoozed, snoozedUntil: instant("2026-06-12T01:00:00Z")
            ),
            Occurrence(todoId: "daily", date: day("2026-05-31"), state: .done),
            Occurrence(todoId: "other", date: day("2026-06-10"), state: .done),
        ]
        let page = try list(
            #"{"from":"2026-06-10","to":"2026-06-12"}"#,
            [daily, ended, future, oneOff("x", due: "2026-06-11T00:00:00Z")], occurrences)
        #expect(page.items.map(\.id) == ["x"])
        #expect(page.repeating.map(\.todo.id) == ["daily"])
        #expect(
            page.repeating.first?.occurrences.map(\.date) == [day("2026-06-10"), day("2026-06-11"), day("2026-06-12")])
        // The status filter applies to one-offs only.
        #expect(try list(#"{"from":"2026-06-10","to":"2026-06-12","status":"done"}"#, [daily]).repeating.count == 1)
        #expect(try list(#"{"includeRepeating":false}"#, [daily, ended]).repeating.isEmpty)
        #expect(
            try list(#"{}"#, [daily, ended, future], occurrences).repeating.map(\.todo.id) == [
                "ended", "daily", "future",
            ])
        // 2026-05-31 is before the repeat's first day: not one of its days, so not reported (issue 42).
        #expect(try list(#"{}"#, [daily], occurrences).repeating.first?.occurrences.count == 3)

        let result = ListTodos.result(page, account: tokyo)
        let template = result["repeating"]?.arrayValue?.first
        #expect(template?["repeatDescription"] == "every day at 07:30")
        #expect(template?["occurrences"]?.arrayValue?.count == 3)
        #expect(template?["occurrences"]?.arrayValue?.last?["snoozedUntil"] == "2026-06-12T10:00:00+09:00")
        #expect(result["items"]?.arrayValue?.first?["due"] == "2026-06-11T09:00:00+09:00")
        #expect(result["nextCursor"] == nil)
    }

    @Test func pagesFollowEachOtherWithoutGapsOrRepeats() throws {
        let todos =
            (0..<7).map { index in
                oneOff("t\(index)", due: "2026-06-1\(index % 3)T09:00:00Z")
            } + [repeating("r1", due: "2026-06-10T09:00:00Z"), oneOff("undated", due: nil)]
        var seen: [String] = []
        var arguments = #"{"status":"all"}"#
        var pages = 0
        while true {
            let page = try list(arguments, todos.shuffled(), pageSize: 3)
            pages += 1
            #expect(page.items.count + page.repeating.count <= 3)
            seen += (page.items + page.repeating.map(\.todo)).sorted {
                ($0.dueAt ?? .distantFuture, $0.id) < ($1.dueAt ?? .distantFuture, $1.id)
            }.map(\.id)
            guard let cursor = page.nextCursor else { break }
            arguments = #"{"status":"all","cursor":"\#(cursor)"}"#
        }
        #expect(pages == 3)
        #expect(seen == ["r1", "t0", "t3", "t6", "t1", "t4", "t2", "t5", "undated"])
    }

    @Test func aCursorSurvivesRecordsAddedBeforeIt() throws {
        let todos = (1...5).map { oneOff("t\($0)", due: "2026-06-1\($0)T00:00:00Z") }
        let first = try list(#"{}"#, todos, pageSize: 2)
        let cursor = try #require(first.nextCursor)
        let next = try list(
            #"{"cursor":"\#(cursor)"}"#, [oneOff("t0", due: "2026-06-01T00:00:00Z")] + todos, pageSize: 2)
        #expect(next.items.map(\.id) == ["t3", "t4"])
        #expect(ListTodos.result(first, account: tokyo)["nextCursor"] == .string(cursor))
    }

    /// A page only means something for the filters that made it: other filters with a cursor are refused,
    /// never answered with an empty or unrelated page. `date` is the same filter as `from` and `to` on that day.
    @Test func aCursorIsRefusedWithOtherFilters() throws {
        let todos = (1...5).map { oneOff("t\($0)", due: "2026-06-1\($0)T00:00:00Z") }
        let first = try list(#"{"from":"2026-06-10","status":"pending"}"#, todos, pageSize: 2)
        let cursor = try #require(first.nextCursor)
        for other in [
            #""from":"2026-06-11""#, #""from":"2026-06-10","status":"all""#, #""to":"2026-06-30""#,
            #""from":"2026-06-10","includeRepeating":false"#, #""status":"pending""#,
        ] {
            let error = expectError { () throws(TodoError) in
                try ListTodos.parse(json(#"{\#(other),"cursor":"\#(cursor)"}"#))
            }
            #expect(error?.field == "cursor" && error?.message.contains("other filters") == true, "\(other)")
        }
        // The same filters, written another way (status left out means pending): accepted.
        let next = try list(#"{"from":"2026-06-10","cursor":"\#(cursor)"}"#, todos, pageSize: 2)
        #expect(next.items.map(\.id) == ["t3", "t4"])
        #expect(
            try ListTodos.parse(json(#"{"date":"2026-06-11"}"#)).filterKey
                == ListTodos.parse(json(#"{"from":"2026-06-11","to":"2026-06-11","status":"pending"}"#)).filterKey)
    }

    @Test func twoHundredIsTheMostPerPage() throws {
        let todos = (0..<450).map { oneOff(String(format: "t%03d", $0)) }
        let page = try list(#"{}"#, todos, pageSize: 1000)
        #expect(page.items.count == 200)
        #expect(page.nextCursor != nil)
        let exact = try list(#"{}"#, Array(todos.prefix(200)))
        #expect(exact.items.count == 200 && exact.nextCursor == nil)
    }

    @Test(arguments: [
        (#"{"date":"2026-06-10","from":"2026-06-01"}"#, "date"),
        (#"{"date":"2026-06-10","to":"2026-06-11"}"#, "date"),
        (#"{"from":"2026-06-12","to":"2026-06-11"}"#, "to"),
        (#"{"date":"10/06/2026"}"#, "date"),
        (#"{"from":"2026-06-31"}"#, "from"),
        (#"{"to":20260611}"#, "to"),
        (#"{"status":"snoozed"}"#, "status"),
        (#"{"status":"PENDING"}"#, "status"),
        (#"{"includeRepeating":"yes"}"#, "includeRepeating"),
        (#"{"cursor":"not-a-cursor"}"#, "cursor"),
        (#"{"cursor":"djF8eHx5"}"#, "cursor"),
        (#"{"limit":10}"#, "limit"),
    ])
    func invalidArguments(arguments: String, field: String) {
        expectInvalid(field) { () throws(TodoError) in try ListTodos.parse(json(arguments)) }
    }

    @Test func emptyArgumentsAreFine() throws {
        #expect(try ListTodos.parse(nil) == ListTodos.Request())
        #expect(try ListTodos.parse(json("{}")) == ListTodos.Request())
        #expect(try ListTodos.parse(.null) == ListTodos.Request())
    }
}

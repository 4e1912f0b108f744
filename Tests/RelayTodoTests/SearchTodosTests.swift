import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct SearchTodosTests {
    let tokyo = Account(timeZone: "Asia/Tokyo")
    let now = instant("2026-06-10T03:00:00Z")

    func search(_ query: String, _ todos: [Todo]) throws(TodoError) -> [String] {
        try SearchTodos.select(SearchTodos.parse(["query": .string(query)]), todos: todos, account: tokyo, now: now)
            .map(\.todo.id)
    }

    func todo(_ id: String, _ title: String, notes: String? = nil, due: String? = "2026-06-12T00:00:00Z") -> Todo {
        var todo = oneOff(id, due: due)
        todo.title = title
        todo.notes = notes
        return todo
    }

    @Test func queriesSplitIntoFoldedWords() {
        #expect(SearchText.words("Dentist  appointment?", maxWords: 32) == ["dentist", "appointment"])
        #expect(SearchText.words("牛乳、卵。", maxWords: 32) == ["牛乳", "卵"])
        // Ideographic space, full-width Latin, half-width katakana with a separate voicing mark.
        #expect(SearchText.words("ＤＥＮＴＩＳＴ\u{3000}ｶﾞｽ", maxWords: 32) == ["dentist", "ガス"])
        #expect(SearchText.words("Milk milk MILK", maxWords: 32) == ["milk"])
        #expect(SearchText.words("a b c d", maxWords: 2) == ["a", "b"])
        #expect(SearchText.words(" ,.!? 「」 ", maxWords: 32) == [])
        // Symbols stay part of a word: an emoji and a price are things to look for.
        #expect(SearchText.words("🦷 $20", maxWords: 32) == ["🦷", "$20"])
    }

    @Test func wordsMatchTitlesAndNotesIgnoringCaseAndWidth() throws {
        let todos = [
            todo("dentist", "Call the DENTIST"), todo("fullwidth", "Ｄｅｎｔｉｓｔ ｒｅｃｅｉｐｔ"),
            todo("notes", "Errands", notes: "ask the dentist about floss"), todo("other", "Buy milk"),
        ]
        #expect(try search("dentist", todos) == ["dentist", "fullwidth", "notes"])
        #expect(try search("ＭＩＬＫ", todos) == ["other"])
        // Every word must appear, in the title or the notes.
        #expect(try search("dentist floss", todos) == ["notes"])
        #expect(try search("dentist milk", todos) == [])
    }

    @Test func japaneseMatchesInsideTheText() throws {
        let todos = [
            todo("milk", "牛乳を買う"), todo("gas", "ガス代を払う"), todo("kana", "ｶﾞｽの点検"),
            todo("notes", "買い物", notes: "卵と牛乳"),
        ]
        #expect(try search("牛乳", todos) == ["milk", "notes"])
        // Half-width katakana and its voicing mark fold to the full-width word.
        #expect(try search("ガス", todos) == ["gas", "kana"])
        // A different word (voiced vs unvoiced) does not match.
        #expect(try search("カス", todos) == [])
        #expect(try search("牛乳　卵", todos) == ["notes"])
    }

    @Test func deletedToDosNeverAppear() throws {
        var gone = todo("gone", "Dentist")
        gone.deletedAt = instant("2026-06-01T00:00:00Z")
        var goneRepeat = repeating("gone-repeat")
        goneRepeat.title = "Dentist floss"
        goneRepeat.deletedAt = instant("2026-06-01T00:00:00Z")
        #expect(try search("dentist", [gone, goneRepeat, todo("kept", "Dentist")]) == ["kept"])
    }

    @Test func titleMatchesComeFirstThenStillToDoSoonestFirst() throws {
        var done = todo("done", "Dentist bill", due: "2026-06-01T00:00:00Z")
        done.status = .done
        var olderDone = todo("older-done", "Dentist form", due: "2026-05-01T00:00:00Z")
        olderDone.status = .skipped
        var daily = repeating("daily", due: "2026-06-01T01:00:00Z")
        daily.title = "Dentist floss"
        var ended = repeating(
            "ended", rule: RepeatRule(kind: .daily, end: .until(day("2026-06-05"))), due: "2026-06-01T00:00:00Z")
        ended.title = "Dentist rinse"
        let todos = [
            todo("later", "Dentist", due: "2026-06-20T00:00:00Z"), todo("undated", "dentist", due: nil),
            todo("sooner", "Dentist", due: "2026-06-11T00:00:00Z"), done, olderDone, daily, ended,
            todo("in-notes-soon", "Errand", notes: "dentist", due: "2026-06-10T05:00:00Z"),
            todo("in-notes-undated", "Errand", notes: "dentist", due: nil),
        ]
        // Title matches still to do: the daily repeat next rings 2026-06-11 01:00Z (today's 01:00Z is past at
        // 03:00Z), after "sooner"; undated last. Then finished ones, latest first. Then the notes-only matches.
        #expect(
            try search("dentist", todos) == [
                "sooner", "daily", "later", "undated", "ended", "done", "older-done", "in-notes-soon",
                "in-notes-undated",
            ])
    }

    @Test func aSnoozedOneOffRanksByTheTimeItWasSnoozedTo() throws {
        var snoozed = todo("snoozed", "Dentist", due: "2026-06-10T01:00:00Z")
        snoozed.snoozedUntil = instant("2026-06-13T00:00:00Z")
        #expect(
            try search("dentist", [snoozed, todo("sooner", "Dentist", due: "2026-06-12T00:00:00Z")]) == [
                "sooner", "snoozed",
            ])
        let hits = SearchTodos.select(
            try SearchTodos.parse(["query": "dentist"]), todos: [snoozed], account: tokyo, now: now)
        #expect(
            SearchTodos.result(hits, account: tokyo, now: now)["results"]?.arrayValue?.first?["text"]
                == "Pending, due Wednesday 2026-06-10 10:00, snoozed until Saturday 2026-06-13 09:00 (Asia/Tokyo).")
    }

    @Test func atMostTwentyResultsAndTiesBrokenById() throws {
        let todos = (0..<25).map { todo(String(format: "t%02d", 24 - $0), "Dentist") }
        let found = try search("dentist", todos)
        #expect(found.count == SearchTodos.maxResults)
        #expect(found == (0..<20).map { String(format: "t%02d", $0) })
    }

    @Test func badQueriesAreInvalidArguments() {
        expectInvalid("query") { () throws(TodoError) in try SearchTodos.parse([:]) }
        expectInvalid("query") { () throws(TodoError) in try SearchTodos.parse(["query": 7]) }
        expectInvalid("query") { () throws(TodoError) in try SearchTodos.parse(["query": ""]) }
        expectInvalid("query") { () throws(TodoError) in try SearchTodos.parse(["query": " ?!、 "]) }
        let long = String(repeating: "a", count: SearchTodos.maxQueryLength + 1)
        expectInvalid("query") { () throws(TodoError) in try SearchTodos.parse(["query": .string(long)]) }
        expectInvalid("limit") { () throws(TodoError) in try SearchTodos.parse(["query": "x", "limit": 3]) }
        expectInvalid(nil) { () throws(TodoError) in try SearchTodos.parse("dentist") }
    }

    @Test func resultsHaveOpenAIsShapeWithTimesInTheAccountZone() throws {
        var daily = repeating("daily", due: "2026-06-01T01:00:00Z")
        daily.title = "Floss"
        daily.timeZone = "Asia/Tokyo"
        let untitled = todo("untitled", "", notes: "floss", due: nil)
        let request = try SearchTodos.parse(["query": "floss"])
        let hits = SearchTodos.select(
            request, todos: [todo("one", "Floss"), daily, untitled], account: tokyo, now: now)
        let result = SearchTodos.result(hits, account: tokyo, now: now)
        #expect(
            result == [
                "results": [
                    // The repeat rings tomorrow, the one-off the day after.
                    [
                        "id": "daily", "title": "Floss", "url": "",
                        "text":
                            "Repeats every day at 10:00 (Asia/Tokyo time); next Thursday 2026-06-11 10:00 (Asia/Tokyo).",
                    ],
                    [
                        "id": "one", "title": "Floss", "url": "",
                        "text": "Pending, due Friday 2026-06-12 09:00 (Asia/Tokyo).",
                    ],
                    ["id": "untitled", "title": "(no title)", "url": "", "text": "Pending, no due time."],
                ],
                "complete": true,
            ])
    }
}

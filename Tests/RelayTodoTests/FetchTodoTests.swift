import Foundation
import RelayJSON
import Testing

@testable import RelayTodo

@Suite struct FetchTodoTests {
    let tokyo = Account(timeZone: "Asia/Tokyo")
    let now = instant("2026-06-10T03:00:00Z")

    func fetch(_ todo: Todo?, _ occurrences: [Occurrence] = [], account: Account? = nil) throws(TodoError)
        -> JSONValue
    {
        try FetchTodo.result(
            FetchTodo.Request(id: todo?.id ?? "missing"), todo: todo, occurrences: occurrences,
            account: account ?? tokyo, now: now)
    }

    @Test func aOneOffIsADocumentWithTimesInTheAccountZone() throws {
        var todo = oneOff("dentist", due: "2026-06-12T00:00:00Z")
        todo.title = "Dentist"
        todo.notes = "Bring the card\nand the form"
        let result = try fetch(todo)
        #expect(
            result == [
                "id": "dentist", "title": "Dentist",
                "text": """
                Dentist
                Times are in Asia/Tokyo.
                One-off to-do, pending.
                Due: Friday 2026-06-12 09:00.
                Created in the MustDo app: Monday 2026-06-01 09:00.
                Last changed: Monday 2026-06-01 09:00.
                Notes:
                Bring the card
                and the form
                """,
                "url": "",
                "metadata": [
                    "kind": "one-off", "status": "pending", "timeZone": "Asia/Tokyo", "source": "app",
                    "due": "2026-06-12T09:00:00+09:00", "createdAt": "2026-06-01T09:00:00+09:00",
                    "changedAt": "2026-06-01T09:00:00+09:00",
                ],
            ])
    }

    @Test func aFinishedOneOffSaysSo() throws {
        var todo = oneOff("paid", due: nil)
        todo.status = .done
        todo.source = .mcp
        todo.completedAt = instant("2026-06-09T23:30:00Z")
        let text = try #require(fetch(todo)["text"]?.stringValue)
        #expect(text.contains("One-off to-do, done.\nNo due time.\nCompleted: Wednesday 2026-06-10 08:30.\n"))
        #expect(text.contains("Created through an AI assistant: "))
        #expect(try fetch(todo)["metadata"]?["completedAt"] == "2026-06-10T08:30:00+09:00")
    }

    @Test func aRepeatShowsItsRuleAndTheStateOfRecentDays() throws {
        var daily = repeating("daily", due: "2026-06-01T01:00:00Z")
        daily.title = "Floss"
        daily.timeZone = "Asia/Tokyo"
        let occurrences = [
            Occurrence(todoId: "daily", date: day("2026-06-08"), state: .skipped),
            Occurrence(todoId: "daily", date: day("2026-06-09"), state: .done),
            Occurrence(
                todoId: "daily", date: day("2026-06-11"), state: .snoozed,
                snoozedUntil: instant("2026-06-11T05:00:00Z")),
            // Another to-do's, and one outside the window: neither shows.
            Occurrence(todoId: "other", date: day("2026-06-07"), state: .done),
            Occurrence(todoId: "daily", date: day("2026-05-01"), state: .done),
        ]
        let result = try fetch(daily, occurrences)
        let lines = try #require(result["text"]?.stringValue).split(separator: "\n").map(String.init)
        #expect(
            Array(lines.prefix(6)) == [
                "Floss", "Times are in Asia/Tokyo.", "Repeating to-do: every day at 10:00 (Asia/Tokyo time).",
                "First occurrence: Monday 2026-06-01 10:00.", "Next occurrence: Thursday 2026-06-11 14:00.",
                "Days from 2026-05-27 to 2026-06-17:",
            ])
        // The schedule starts 2026-06-01: seventeen days in the window, none before the first occurrence.
        let days = lines.filter { $0.hasPrefix("- ") }
        #expect(days.count == 17)
        #expect(days.first == "- Monday 2026-06-01: not marked done")
        #expect(days.contains("- Monday 2026-06-08: skipped"))
        #expect(days.contains("- Tuesday 2026-06-09: done"))
        #expect(days.contains("- Wednesday 2026-06-10 (today): open"))
        #expect(days.contains("- Thursday 2026-06-11: snoozed until Thursday 2026-06-11 14:00"))
        #expect(days.last == "- Wednesday 2026-06-17: coming")
        #expect(!lines.contains { $0.contains("2026-05-01") || $0.contains("繰り返し") })
        #expect(result["metadata"]?["repeat"] == "every day at 10:00")
        // The 11th is snoozed to 14:00: that is when it next rings, as the app sees it (issue 42).
        #expect(result["metadata"]?["nextOccurrence"] == "2026-06-11T14:00:00+09:00")
        #expect(result["metadata"]?["kind"] == "repeating")
        #expect(try fetch(daily)["metadata"]?["nextOccurrence"] == "2026-06-11T10:00:00+09:00")
    }

    @Test func aRepeatInAnotherZoneNamesItAndJapaneseReadersGetTheRuleInJapanese() throws {
        let japanese = Account(locale: "ja-JP", timeZone: "Asia/Tokyo")
        var weekly = repeating("weekly", rule: RepeatRule(kind: .weekly), due: "2026-06-01T13:00:00Z")
        weekly.timeZone = "America/New_York"
        let text = try #require(fetch(weekly, account: japanese)["text"]?.stringValue)
        #expect(text.contains("Repeating to-do: every week on Monday at 09:00 (America/New_York time).\n"))
        #expect(text.contains("繰り返し: "))
        #expect(text.contains("Days from 2026-05-26 to 2026-06-16 (dates in America/New_York):\n"))
        #expect(text.contains("- Monday 2026-06-08: not marked done\n"))
        #expect(text.contains("Next occurrence: Monday 2026-06-15 22:00."))
    }

    @Test func anEndedRepeatSaysWhenItEnded() throws {
        let ended = repeating(
            "ended", rule: RepeatRule(kind: .daily, end: .until(day("2026-06-05"))), due: "2026-06-01T00:00:00Z")
        let result = try fetch(ended)
        let text = try #require(result["text"]?.stringValue)
        #expect(text.contains("The repeat has ended; its last occurrence was on 2026-06-05.\n"))
        #expect(!text.contains("Next occurrence"))
        #expect(result["metadata"]?["nextOccurrence"] == nil)
    }

    @Test func missingAndDeletedToDosAreNotFound() {
        var deleted = oneOff("gone")
        deleted.deletedAt = instant("2026-06-02T00:00:00Z")
        for todo in [nil, deleted] {
            let error = expectError { () throws(TodoError) in try fetch(todo) }
            #expect(error?.code == .notFound)
            #expect(error?.field == "id")
        }
    }

    @Test func idsAreCheckedLikeEveryOtherTool() throws {
        #expect(try FetchTodo.parse(["id": "3f2a-b"]) == FetchTodo.Request(id: "3f2a-b"))
        for bad: JSONValue in [
            "", "_hidden", "ä", 7, .string(String(repeating: "a", count: ArgumentObject.maxIDLength + 1)),
        ] {
            expectInvalid("id") { () throws(TodoError) in try FetchTodo.parse(["id": bad]) }
        }
        expectInvalid("id") { () throws(TodoError) in try FetchTodo.parse([:]) }
        expectInvalid("url") { () throws(TodoError) in try FetchTodo.parse(["id": "a", "url": ""]) }
        let message = expectError { () throws(TodoError) in try FetchTodo.parse(["id": "_x"]) }?.message ?? ""
        #expect(message.contains("search or list_todos"))
    }

    @Test func oneLookupCoversEveryZonesWindow() {
        let names = FetchTodo.occurrenceNames(id: "x", now: now)
        // UTC's today is 2026-06-10; any zone's window lies within 2026-05-26 … 2026-06-18.
        #expect(names.count == TodoDocument.pastDays + TodoDocument.comingDays + 3)
        #expect(names.first == "x|2026-05-26")
        #expect(names.last == "x|2026-06-18")
    }
}

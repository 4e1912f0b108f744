import Foundation
import RelayJSON
import RelayMCP
import Testing

@testable import RelayTodo

/// The MustDo prompts: both languages, tools and arguments that exist, dates worked out exactly, and every
/// bad argument refused.
@Suite struct MustDoPromptsTests {
    let toolNames = Set(TodoTools.definitions.map(\.name))

    func prompt(_ name: String) throws -> Prompt {
        try #require(MustDoPrompts.all.first { $0.definition.name == name }, "\(name)")
    }

    func text(_ name: String, _ arguments: [String: String] = [:]) throws -> String {
        let result = try prompt(name).render(arguments)
        #expect(result.messages.count == 1)
        #expect(result.messages.first?.role == .user)
        return result.messages.first?.text ?? ""
    }

    @Test func testEachPromptComesInEnglishAndJapanese() {
        #expect(
            MustDoPrompts.all.map(\.definition.name) == [
                "plan_my_day", "weekly_review", "clear_backlog", "plan_my_day_ja", "weekly_review_ja",
                "clear_backlog_ja",
            ])
        for (english, japanese) in zip(MustDoPrompts.all.prefix(3), MustDoPrompts.all.suffix(3)) {
            #expect(english.definition.arguments.map(\.name) == japanese.definition.arguments.map(\.name))
            #expect(english.definition.arguments.allSatisfy { !$0.required }, "every argument is optional")
            #expect(!(english.definition.title?.isEmpty ?? true))
            #expect(japanese.definition.description.unicodeScalars.contains { $0.value > 0x3000 })
        }
    }

    /// Every snake_case word in a text is a tool the relay registers, and both languages name the same ones:
    /// a renamed or removed tool fails here (another engineer's tools change while prompts ship).
    @Test func testTheTextsNameOnlyRegisteredTools() throws {
        #expect(Set(MustDoPrompts.toolsNamed).isSubset(of: toolNames))
        let word = try NSRegularExpression(pattern: "\\b[a-z]+(?:_[a-z]+)+\\b")
        let samples: [[String: String]] = [
            [:], ["date": "2026-08-01", "weekEnding": "2026-08-01", "before": "2026-08-01"],
        ]
        for base in ["plan_my_day", "weekly_review", "clear_backlog"] {
            var namedPerLanguage: [Set<String>] = []
            for name in [base, base + "_ja"] {
                let declared = Set(try prompt(name).definition.arguments.map(\.name))
                var named = Set<String>()
                for sample in samples {
                    let text = try text(name, sample.filter { declared.contains($0.key) })
                    let range = NSRange(text.startIndex..., in: text)
                    for match in word.matches(in: text, range: range) {
                        named.insert(String(text[Range(match.range, in: text)!]))
                    }
                }
                #expect(named.isSubset(of: toolNames), "\(name) names \(named.subtracting(toolNames))")
                #expect(named.contains("get_me") && named.contains("list_todos"), "\(name)")
                namedPerLanguage.append(named)
            }
            #expect(namedPerLanguage[0] == namedPerLanguage[1], "\(base)")
        }
        // The list_todos arguments the texts use are the tool's own.
        let listing = try #require(TodoTools.definitions.first { $0.name == "list_todos" })
        let properties = Set(listing.inputSchema["properties"]?.objectValue?.keys ?? [])
        #expect(["date", "from", "to", "status", "includeRepeating", "cursor"].allSatisfy(properties.contains))
    }

    @Test func testDatesAreWorkedOutExactly() throws {
        let plan = try text("plan_my_day", ["date": "2026-03-01"])
        #expect(plan.contains("plan 2026-03-01 (a Sunday)"), "\(plan)")
        #expect(plan.contains("date set to \"2026-03-01\""), "\(plan)")
        #expect(plan.contains("to set to \"2026-02-28\""), "\(plan)")
        let planJA = try text("plan_my_day_ja", ["date": "2026-03-01"])
        #expect(planJA.contains("2026-03-01(日曜日)"), "\(planJA)")
        #expect(planJA.contains("\"2026-02-28\""), "\(planJA)")

        for name in ["weekly_review", "weekly_review_ja"] {
            let review = try text(name, ["weekEnding": "2026-01-02"])
            for date in ["2025-12-27", "2026-01-02", "2026-01-03", "2026-01-09"] {
                #expect(review.contains("\"\(date)\""), "\(name): \(date) in \(review)")
            }
        }
        for name in ["clear_backlog", "clear_backlog_ja"] {
            #expect(try text(name, ["before": "2024-03-01"]).contains("\"2024-02-29\""), "\(name)")
        }
        // Without a date the model works from get_me's today.
        let today = try text("plan_my_day")
        #expect(today.contains("today's date from get_me"), "\(today)")
        #expect(!today.contains("\"20"), "\(today)")
    }

    @Test func testBadArgumentsAreRefused() throws {
        let refused: [(String, [String: String], String)] = [
            ("plan_my_day", ["date": "2026-02-30"], "date"),
            ("plan_my_day", ["date": "tomorrow"], "date"),
            ("plan_my_day", ["date": "2026-8-1"], "date"),
            ("plan_my_day", ["date": "0001-01-01"], "date"),
            ("plan_my_day", ["focus": String(repeating: "x", count: 201)], "focus"),
            ("plan_my_day", ["focus": "one\nline"], "focus"),
            ("plan_my_day_ja", ["focus": "tab\u{7}bell"], "focus"),
            // Bidi overrides and isolates (issue 42): the request must read the same to the person and the model.
            ("plan_my_day", ["focus": "pay \u{202E}xet\u{202C} today"], "focus"),
            ("plan_my_day", ["focus": "\u{2067}hidden\u{2069}"], "focus"),
            ("weekly_review", ["weekEnding": "2026-13-01"], "weekEnding"),
            ("clear_backlog_ja", ["before": "2026/08/01"], "before"),
        ]
        for (name, arguments, argument) in refused {
            let error = #expect(throws: PromptArgumentError.self, "\(name) \(arguments)") {
                try prompt(name).render(arguments)
            }
            if let error { #expect(error.argument == argument) }
        }
        #expect(throws: Never.self) { try prompt("plan_my_day").render(["focus": String(repeating: "字", count: 200)]) }
    }
}

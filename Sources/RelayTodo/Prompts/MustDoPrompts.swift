import RelayMCP

/// The ready-made prompts (MCP `prompts/list`), in English and Japanese: plan a day, review a week, clear the
/// overdue backlog. They read nothing: each is the text of a request to the model naming which tools to call
/// with which arguments, so a client shows them as one-click commands and the model does the rest.
///
/// **Language.** Each prompt comes twice, `name` (English) and `name_ja` (Japanese), rather than once with a
/// `language` argument. The language has to be known when the list is shown: titles, descriptions and argument
/// descriptions are what the person reads in the client's menu, before any tool call, and the list is the
/// same for every caller (pre-encoded, `cacheScope: public`), so it cannot follow the Account's `locale`, which
/// only `get_me` returns. A language argument would also be one more thing to type (Claude Code passes
/// arguments by position). The variant the person picks fixes both the text they see and the reply language.
///
/// Arguments are optional and validated here (`PromptArgumentError` → -32602): dates must be `YYYY-MM-DD`,
/// `focus` one line of at most 200 characters. A date given is turned into the exact `list_todos` arguments;
/// without one the model derives them from `get_me`'s today, in the person's time zone.
package enum MustDoPrompts {
    /// A language the prompts are written in.
    package enum Language: String, Sendable, CaseIterable {
        /// English (`plan_my_day`).
        case english = "en"
        /// Japanese (`plan_my_day_ja`).
        case japanese = "ja"

        /// The suffix of the prompt names in this language.
        var suffix: String { self == .english ? "" : "_ja" }
    }

    /// Every prompt, English first, in the order `prompts/list` shows them.
    package static let all: [Prompt] = Language.allCases.flatMap { language in
        [planMyDay(language), weeklyReview(language), clearBacklog(language)]
    }

    /// The tools the prompts tell the model to call (each must be registered wherever the prompts are).
    package static let toolsNamed: [String] = [
        ToolName.getMe, ToolName.listTodos, ToolName.snooze, ToolName.update, ToolName.complete, ToolName.delete,
    ]

    /// Tool names as the texts use them, from the definitions themselves.
    enum ToolName {
        static let getMe = GetMe.definition.name
        static let listTodos = ListTodos.definition.name
        static let snooze = SnoozeTodo.definition.name
        static let update = UpdateTodo.definition.name
        static let complete = CompleteTodo.definition.name
        static let delete = DeleteTodo.definition.name
    }

    /// The longest `focus` accepted.
    static let maxFocusLength = 200

    // MARK: - The three prompts

    static func planMyDay(_ language: Language) -> Prompt {
        let copy = Copy(language)
        return Prompt(
            PromptDefinition(
                name: "plan_my_day" + language.suffix, title: copy.planTitle, description: copy.planDescription,
                arguments: [
                    PromptArgument(name: "date", title: copy.dateTitle, description: copy.planDateDescription),
                    PromptArgument(name: "focus", title: copy.focusTitle, description: copy.focusDescription),
                ])
        ) { arguments throws(PromptArgumentError) in
            let day = try date(arguments, "date")
            let focus = try focus(arguments)
            return .user(copy.plan(day: day, focus: focus), description: copy.planTitle)
        }
    }

    static func weeklyReview(_ language: Language) -> Prompt {
        let copy = Copy(language)
        return Prompt(
            PromptDefinition(
                name: "weekly_review" + language.suffix, title: copy.reviewTitle,
                description: copy.reviewDescription,
                arguments: [
                    PromptArgument(
                        name: "weekEnding", title: copy.weekEndingTitle, description: copy.weekEndingDescription)
                ])
        ) { arguments throws(PromptArgumentError) in
            .user(copy.review(end: try date(arguments, "weekEnding")), description: copy.reviewTitle)
        }
    }

    static func clearBacklog(_ language: Language) -> Prompt {
        let copy = Copy(language)
        return Prompt(
            PromptDefinition(
                name: "clear_backlog" + language.suffix, title: copy.backlogTitle,
                description: copy.backlogDescription,
                arguments: [
                    PromptArgument(name: "before", title: copy.beforeTitle, description: copy.beforeDescription)
                ])
        ) { arguments throws(PromptArgumentError) in
            .user(copy.backlog(before: try date(arguments, "before")), description: copy.backlogTitle)
        }
    }

    // MARK: - Arguments

    /// A `YYYY-MM-DD` argument, nil when not given.
    static func date(_ arguments: [String: String], _ name: String) throws(PromptArgumentError) -> LocalDate? {
        guard let text = arguments[name] else { return nil }
        guard let date = LocalDate(trim(text)),
            (1970...9999).contains(date.year)
        else {
            throw PromptArgumentError(argument: name, "give a date as YYYY-MM-DD, e.g. 2026-08-01.")
        }
        return date
    }

    /// The `focus` argument, nil when not given: one line, at most `maxFocusLength` characters.
    static func focus(_ arguments: [String: String]) throws(PromptArgumentError) -> String? {
        guard let text = arguments["focus"] else { return nil }
        let trimmed = trim(text)
        guard trimmed.count <= maxFocusLength else {
            throw PromptArgumentError(argument: "focus", "at most \(maxFocusLength) characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PromptArgumentError(argument: "focus", "one line of text, without control characters.")
        }
        // Bidi embeddings, overrides and isolates would make the request read differently to the person than to
        // the model (issue 42; the "Trojan Source" characters, CVE-2021-42574).
        guard
            !trimmed.unicodeScalars.contains(where: {
                (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
            })
        else {
            throw PromptArgumentError(argument: "focus", "plain text, without bidirectional override characters.")
        }
        return trimmed
    }

    /// `text` without spaces and tabs at either end (the ideographic space a Japanese keyboard types included).
    static func trim(_ text: String) -> String {
        let blank: Set<Character> = [" ", "\t", "\u{3000}"]
        var slice = text[...]
        while let first = slice.first, blank.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, blank.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

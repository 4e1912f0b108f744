import RelayJSON

/// A prompt the server offers (`server/prompts.mdx` in every revision): a template the person picks in
/// their client (Claude shows them as slash commands), which the server turns into messages for the
/// model. Prompts read nothing themselves; they only shape what the model is asked to do.
///
/// The endpoint checks a `prompts/get` before `render` runs: the name exists, `arguments` is an object
/// of strings naming only declared arguments, and every required one is there (otherwise -32602, as
/// the spec asks). `render` checks the values and throws `PromptArgumentError` for one it refuses.
package struct Prompt: Sendable {
    /// Name, title, description and arguments, as `prompts/list` shows them.
    package var definition: PromptDefinition
    /// The messages for `arguments` (declared names only; required ones present).
    package var render: @Sendable ([String: String]) throws(PromptArgumentError) -> PromptResult

    /// A prompt.
    package init(
        _ definition: PromptDefinition,
        render: @escaping @Sendable ([String: String]) throws(PromptArgumentError) -> PromptResult
    ) {
        self.definition = definition
        self.render = render
    }
}

/// How a prompt presents itself in `prompts/list`.
package struct PromptDefinition: Sendable, Equatable {
    /// Unique name: 1–128 characters from `A–Z a–z 0–9 _ - .` (the tool-name rule).
    package var name: String
    /// Display name (2025-06-18+; 2025-03-26 has no title).
    package var title: String?
    /// What it does, for the person choosing it.
    package var description: String
    /// The arguments it takes, in the order a client asks for them.
    package var arguments: [PromptArgument]

    /// A definition.
    package init(name: String, title: String? = nil, description: String, arguments: [PromptArgument] = []) {
        self.name = name
        self.title = title
        self.description = description
        self.arguments = arguments
    }

    /// The prompt object as `prompts/list` shows it to a client speaking `version`.
    func json(for version: ProtocolVersion) -> JSONValue {
        var object: JSONObject = ["name": .string(name)]
        if version.hasStructuredOutput, let title { object["title"] = .string(title) }
        object["description"] = .string(description)
        if !arguments.isEmpty { object["arguments"] = .array(arguments.map { $0.json(for: version) }) }
        return .object(object)
    }
}

/// One argument of a prompt. Values are always strings (`GetPromptRequest.params.arguments`).
package struct PromptArgument: Sendable, Equatable {
    /// The argument's name.
    package var name: String
    /// Display name (2025-06-18+).
    package var title: String?
    /// What to give, for the person filling it in.
    package var description: String
    /// Whether `prompts/get` without it is refused (-32602).
    package var required: Bool

    /// An argument.
    package init(name: String, title: String? = nil, description: String, required: Bool = false) {
        self.name = name
        self.title = title
        self.description = description
        self.required = required
    }

    func json(for version: ProtocolVersion) -> JSONValue {
        var object: JSONObject = ["name": .string(name)]
        if version.hasStructuredOutput, let title { object["title"] = .string(title) }
        object["description"] = .string(description)
        object["required"] = .bool(required)
        return .object(object)
    }
}

/// What `prompts/get` answers: an optional description and the messages.
package struct PromptResult: Sendable, Equatable {
    /// One message of the conversation the prompt starts.
    package struct Message: Sendable, Equatable {
        /// `user` or `assistant`.
        package enum Role: String, Sendable {
            case user
            case assistant
        }

        /// Who speaks.
        package var role: Role
        /// The text (prompts of this server carry text only).
        package var text: String

        /// A text message.
        package init(role: Role, text: String) {
            self.role = role
            self.text = text
        }

        var json: JSONValue {
            ["role": .string(role.rawValue), "content": ["type": "text", "text": .string(text)]]
        }
    }

    /// Shown by some clients next to the inserted prompt.
    package var description: String?
    /// The messages, in order.
    package var messages: [Message]

    /// A result.
    package init(description: String? = nil, messages: [Message]) {
        self.description = description
        self.messages = messages
    }

    /// One user message.
    package static func user(_ text: String, description: String? = nil) -> PromptResult {
        PromptResult(description: description, messages: [Message(role: .user, text: text)])
    }

    var json: JSONObject {
        var object: JSONObject = [:]
        if let description { object["description"] = .string(description) }
        object["messages"] = .array(messages.map(\.json))
        return object
    }
}

/// A prompt argument whose value `render` refuses (a malformed date…): `prompts/get` answers -32602.
package struct PromptArgumentError: Error, Sendable, Equatable {
    /// The argument at fault.
    package var argument: String
    /// What is wrong and what to give instead; never echoes the value.
    package var message: String

    /// An error about `argument`.
    package init(argument: String, _ message: String) {
        self.argument = argument
        self.message = message
    }
}

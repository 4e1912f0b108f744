import RelayMCP

/// Prompts for the endpoint tests: one with a required and an optional argument (whose value is
/// checked), one without arguments that starts a two-message conversation.
enum SamplePrompts {
    static let greet = Prompt(
        PromptDefinition(
            name: "greet", title: "Greet", description: "Says hello to someone.",
            arguments: [
                PromptArgument(name: "name", title: "Name", description: "Who to greet.", required: true),
                PromptArgument(name: "style", description: "plain (default) or loud."),
            ])
    ) { arguments throws(PromptArgumentError) in
        let name = arguments["name"] ?? ""
        switch arguments["style"] ?? "plain" {
        case "plain": return .user("Say hello to \(name).", description: "A greeting")
        case "loud": return .user("SAY HELLO TO \(name.uppercased())!", description: "A greeting")
        default: throw PromptArgumentError(argument: "style", "plain or loud.")
        }
    }

    static let warmUp = Prompt(
        PromptDefinition(name: "warm_up", title: "Warm up", description: "Starts a conversation.")
    ) { _ throws(PromptArgumentError) in
        PromptResult(messages: [
            .init(role: .user, text: "Are you there?"), .init(role: .assistant, text: "I am. What shall we do?"),
        ])
    }

    static let all = [greet, warmUp]
}

import RelayJSON
import RelayService

/// `mustdo-relayctl config check`.
enum ConfigCommands {
    static let group = AdminGroup(
        name: "config", summary: "Check the relay's settings, secret files, key service and store.", commands: [check])

    static let check = AdminCommand(
        "config", "check", summary: "Validate everything `mustdo-relay serve` needs; print every problem.",
        details: """
            Reads the settings as `mustdo-relay serve` does, then checks each secret file (present,
            mode 600 or 400, well formed), makes and opens a data key with the key service, and
            opens and reads the store. Every problem is listed with the setting it concerns and
            what to fix; nothing secret is printed. Same checks as `mustdo-relay serve --check-config`.

            Example:
              mustdo-relayctl config check --config /etc/mustdo-relay/relay.env
            """
    ) { parser, context in
        try parser.finish()
        let problems = await ConfigurationCheck.problems(
            configFile: context.configFile, environment: context.environment)
        context.output(
            ["valid": .bool(problems.isEmpty), "problems": .array(problems.map { .string($0) })],
            text: problems.isEmpty
                ? "configuration ok"
                : "the configuration has \(problems.count) problem(s):\n"
                    + problems.map { "  - \($0)" }.joined(separator: "\n"))
        return problems.isEmpty ? 0 : 1
    }
}

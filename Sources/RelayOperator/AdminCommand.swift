import RelayService
/// One `mustdo-relayctl <group> <name>` command: its help and what it runs. Each group lives in
/// its own file (`KeysCommands.swift`, `ClientsCommands.swift`…) and lists its commands.
struct AdminCommand: Sendable {
    /// `keys`, `clients`…
    let group: String
    /// `list`, `delete`…
    let name: String
    /// What follows the command in its usage line: `ID`, `[--user ID]`.
    let arguments: String
    /// One line for the command list.
    let summary: String
    /// The rest of its `--help`: what it does, what it prints, an example.
    let details: String
    /// Changes or deletes something: asks on a terminal, or needs `--yes`.
    let destructive: Bool
    /// Takes the command's own options and arguments from the parser, then does the work.
    let run: @Sendable (inout ArgumentParser, AdminContext) async throws -> Int32

    init(
        _ group: String, _ name: String, arguments: String = "", summary: String, details: String,
        destructive: Bool = false, run: @escaping @Sendable (inout ArgumentParser, AdminContext) async throws -> Int32
    ) {
        self.group = group
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.details = details
        self.destructive = destructive
        self.run = run
    }

    var usageLine: String {
        "mustdo-relayctl \(group) \(name)\(arguments.isEmpty ? "" : " " + arguments) [--config FILE] [--json]"
            + (destructive ? " [--yes]" : "")
    }

    var help: String {
        """
        Usage: \(usageLine)

        \(summary)

        \(details)

        Options:
          --config FILE   read settings from FILE (KEY=value lines); RELAY_* variables win
          --json          machine-readable output on stdout
        """ + (destructive ? "\n  --yes, -y       do it without asking (required when stdin is not a terminal)" : "")
            + "\n  -h, --help      show this text\n\nExit codes: 0 success, 1 the command failed, 2 usage error."
    }
}

/// A command group: `mustdo-relayctl keys …`.
struct AdminGroup: Sendable {
    let name: String
    let summary: String
    let commands: [AdminCommand]

    func command(_ name: String) -> AdminCommand? { commands.first { $0.name == name } }

    var help: String {
        let width = commands.map { $0.name.count + ($0.arguments.isEmpty ? 0 : $0.arguments.count + 1) }.max() ?? 0
        let lines = commands.map { command in
            let left = command.name + (command.arguments.isEmpty ? "" : " " + command.arguments)
            return "  " + left + String(repeating: " ", count: width - left.count + 3) + command.summary
        }
        return """
            Usage: mustdo-relayctl \(name) <command> [options]

            \(summary)

            Commands:
            \(lines.joined(separator: "\n"))

            Run 'mustdo-relayctl \(name) <command> --help' for a command's options and output.
            """
    }
}

extension AdminGroup {
    /// Every group, in the order `--help` lists them.
    static let all: [AdminGroup] = [
        ConfigCommands.group, KeysCommands.group, PepperCommands.group, ClientsCommands.group, GrantsCommands.group,
        UsersCommands.group, StoreCommands.group, CloudKitCommands.group,
    ]
}

import Foundation
import RelayJSON
import RelayService

/// The `mustdo-relayctl` operator command line: `mustdo-relayctl <group> <command> [options]`,
/// one group per file under `Admin/`. It never prints a secret, a token, a hash of one, a sealed
/// blob or to-do content; destructive commands ask on a terminal or need `--yes`.
package enum RelayctlCommand {
    static var usage: String {
        let width =
            AdminGroup.all.map { $0.commands.map(\.name).joined(separator: "|").count + $0.name.count }.max() ?? 0
        let lines = AdminGroup.all.map { group in
            let left = "\(group.name) \(group.commands.map(\.name).joined(separator: "|"))"
            return "  " + left + String(repeating: " ", count: max(1, width - left.count + 3)) + group.summary
        }
        return """
            Usage: mustdo-relayctl <group> <command> [arguments] [--config FILE] [--json] [--yes]

            The operator's tool for MustDo Relay. Every command reads the relay's settings like
            `mustdo-relay serve` does: from --config FILE (KEY=value lines) and RELAY_* environment
            variables, which win. It prints no secret, token, hash or to-do content.

            Commands:
            \(lines.joined(separator: "\n"))

            Options:
              --config FILE   the relay's env file
              --json          machine-readable output on stdout (one JSON value)
              --yes, -y       go ahead with a destructive command without asking; required when
                              standard input is not a terminal
              -h, --help      this text; after a group or command, its help
              --version       print the version

            Run 'mustdo-relayctl <group> --help' or 'mustdo-relayctl <group> <command> --help' for more.
            Exit codes: 0 success, 1 the command failed, 2 usage error.
            """
    }

    /// Runs the command line and returns the process exit code.
    package static func main(_ arguments: [String]) async -> Int32 {
        var parser = ArgumentParser(Array(arguments.dropFirst()))
        let json = parser.flag("--json")
        do {
            let help = parser.flag("--help") || parser.flag("-h")
            let yes = parser.flag("--yes") || parser.flag("-y")
            let configFile = try parser.value(for: "--config")
            var words: [String] = []
            while words.count < 3, let word = parser.next() { words.append(word) }
            if words.first == "help" {
                words.removeFirst()
                return try printHelp(for: words, requested: true)
            }
            if words.first == "--version" {
                print("mustdo-relayctl \(RelayCommand.version)")
                return 0
            }
            guard words.count >= 2, let group = AdminGroup.all.first(where: { $0.name == words[0] }),
                let command = group.command(words[1])
            else { return try printHelp(for: words, requested: help) }
            if help { return try printHelp(for: words, requested: true) }
            // A third word is the command's argument (an ID): give it back.
            var rest = ArgumentParser(words.dropFirst(2) + parser.remaining)
            let context = AdminContext(
                configFile: configFile, json: json, yes: yes, environment: ProcessInfo.processInfo.environment)
            return try await command.run(&rest, context)
        } catch let failure as ArgumentParser.Failure {
            report(failure.message + "\nRun 'mustdo-relayctl --help' for usage.", json: json)
            return 2
        } catch {
            report("\(error)", json: json)
            return 1
        }
    }

    /// Help for `words` (nothing, a group, or a group and command). Asked for: on stdout, exit 0.
    /// Not asked for (a missing or unknown word): a usage error.
    private static func printHelp(for words: [String], requested: Bool) throws(ArgumentParser.Failure) -> Int32 {
        guard let first = words.first else {
            print(usage)
            return requested ? 0 : 2
        }
        guard let group = AdminGroup.all.first(where: { $0.name == first }) else {
            throw ArgumentParser.Failure("unknown command \"\(first)\"")
        }
        guard words.count >= 2 else {
            if requested {
                print(group.help)
                return 0
            }
            throw ArgumentParser.Failure("\(group.name) needs a command\n\n\(group.help)")
        }
        guard let command = group.command(words[1]) else {
            throw ArgumentParser.Failure("unknown command \"\(first) \(words[1])\"\n\n\(group.help)")
        }
        print(command.help)
        return 0
    }

    private static func report(_ message: String, json: Bool) {
        if json { print(JSONValue.object(["error": .string(message)]).jsonString) }
        printError("mustdo-relayctl: \(message)")
    }
}

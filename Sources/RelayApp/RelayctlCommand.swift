import Foundation
import RelayJSON

/// The `mustdo-relayctl` operator command line. It never prints a secret, a token or to-do content.
public enum RelayctlCommand {
    static let usage = """
        Usage: mustdo-relayctl <command> [options]

        Every command reads the relay's settings like `mustdo-relay serve` does: from
        --config FILE (KEY=value lines) and RELAY_* environment variables, which win.

        Commands:
          config check [--config FILE] [--json]
                  Validate the settings, the secret files and the store; print every problem.
          keys generate [--config FILE] [--json]
                  Create every missing secret file (pepper, user-ID key, binding secret,
                  local master key file), mode 0600. Existing files are never touched.
          help    Show this text.

        Options:
          -h, --help      Show this text (also after a command).
          --version       Print the version.
          --json          Machine-readable output.

        Exit codes: 0 success, 1 the command failed, 2 usage error.
        """

    /// Runs the command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        var parser = ArgumentParser(Array(arguments.dropFirst()))
        do {
            guard let command = parser.next() else {
                print(usage)
                return 2
            }
            if ["-h", "--help", "help"].contains(command) || parser.flag("--help") || parser.flag("-h") {
                print(usage)
                return 0
            }
            if command == "--version" {
                print("mustdo-relayctl \(RelayCommand.version)")
                return 0
            }
            let subcommand = parser.next()
            let configFile = try parser.value(for: "--config")
            let json = parser.flag("--json")
            let context = AdminContext(configFile: configFile, json: json)
            switch (command, subcommand) {
            case ("config", "check"):
                try parser.finish()
                return await context.checkConfiguration()
            case ("keys", "generate"):
                try parser.finish()
                return try context.generateKeys()
            default:
                throw ArgumentParser.Failure(
                    "unknown command \"\([command, subcommand].compactMap { $0 }.joined(separator: " "))\"")
            }
        } catch let failure as ArgumentParser.Failure {
            printError("mustdo-relayctl: \(failure.message)\nRun 'mustdo-relayctl --help' for usage.")
            return 2
        } catch {
            printError("mustdo-relayctl: \(error)")
            return 1
        }
    }
}

/// What every admin command needs: the configuration and the output mode.
struct AdminContext {
    let configFile: String?
    let json: Bool

    func loadConfiguration() throws -> Configuration {
        try Configuration.load(configFile: configFile, environment: ProcessInfo.processInfo.environment)
    }

    /// Prints a JSON value or a text block, per `--json`.
    func output(_ value: JSONValue, text: @autoclosure () -> String) {
        print(json ? value.jsonString : text())
    }

    func checkConfiguration() async -> Int32 {
        var problems: [String] = []
        do {
            let configuration = try loadConfiguration()
            do {
                try configuration.validateForService()
            } catch {
                problems += error.problems.map(\.description)
            }
            if problems.isEmpty {
                do {
                    _ = try await Backends.open(configuration)
                } catch {
                    problems.append("\(error)")
                }
            }
        } catch let errors as ConfigurationErrors {
            problems = errors.problems.map(\.description)
        } catch {
            problems = ["\(error)"]
        }
        output(
            ["valid": .bool(problems.isEmpty), "problems": .array(problems.map { .string($0) })],
            text: problems.isEmpty
                ? "configuration ok"
                : "the configuration has \(problems.count) problem(s):\n"
                    + problems.map { "  - \($0)" }.joined(separator: "\n"))
        return problems.isEmpty ? 0 : 1
    }

    func generateKeys() throws -> Int32 {
        let configuration = try loadConfiguration()
        let created = try SecretProvisioning.createMissing(configuration.secrets, keyService: configuration.keyService)
        let tokenMissing = !FileManager.default.fileExists(atPath: configuration.secrets.cloudKitAPITokenFile)
        var text =
            created.isEmpty
            ? "every secret file exists already"
            : "created (mode 0600):\n" + created.map { "  \($0)" }.joined(separator: "\n")
        if tokenMissing {
            text +=
                "\nstill missing: \(configuration.secrets.cloudKitAPITokenFile) — paste the CloudKit API token from CloudKit Console there (chmod 600)"
        }
        output(
            ["created": .array(created.map { .string($0) }), "cloudKitAPITokenMissing": .bool(tokenMissing)], text: text
        )
        return 0
    }
}

import Foundation
import RelayJSON

/// The `mustdo-relayctl` operator command line. It never prints a secret, a token or to-do content.
public enum RelayctlCommand {
    static let usage = """
        Usage: mustdo-relayctl <command> [options]

        Commands:
          config check [--config FILE] [--json]
                  Validate the relay's settings (FILE, then RELAY_* environment variables)
                  and print every problem found. Exit code 0 when valid, 1 otherwise.
          help    Show this text.

        Options:
          -h, --help      Show this text.
          --version       Print the version.

        Exit codes: 0 success, 1 the command failed, 2 usage error.
        """

    /// Runs the command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        var parser = ArgumentParser(Array(arguments.dropFirst()))
        do {
            switch parser.next() {
            case nil:
                print(usage)
                return 2
            case "-h", "--help", "help":
                print(usage)
                return 0
            case "--version":
                print("mustdo-relayctl \(RelayCommand.version)")
                return 0
            case "config":
                guard parser.next() == "check" else {
                    throw ArgumentParser.Failure("usage: mustdo-relayctl config check")
                }
                if parser.flag("--help") || parser.flag("-h") {
                    print(usage)
                    return 0
                }
                let file = try parser.value(for: "--config")
                let json = parser.flag("--json")
                try parser.finish()
                return checkConfiguration(file: file, json: json)
            case let command?:
                throw ArgumentParser.Failure("unknown command \"\(command)\"")
            }
        } catch let failure as ArgumentParser.Failure {
            printError("mustdo-relayctl: \(failure.message)\nRun 'mustdo-relayctl --help' for usage.")
            return 2
        } catch {
            printError("mustdo-relayctl: \(error)")
            return 1
        }
    }

    private static func checkConfiguration(file: String?, json: Bool) -> Int32 {
        var problems: [Configuration.Problem] = []
        do {
            _ = try Configuration.load(configFile: file, environment: ProcessInfo.processInfo.environment)
        } catch let errors as ConfigurationErrors {
            problems = errors.problems
        } catch {
            problems = [Configuration.Problem(setting: file ?? "configuration", message: "\(error)")]
        }
        if json {
            let list = problems.map { "{\"setting\":\(jsonString($0.setting)),\"message\":\(jsonString($0.message))}" }
            print("{\"valid\":\(problems.isEmpty),\"problems\":[\(list.joined(separator: ","))]}")
        } else if problems.isEmpty {
            print("configuration ok")
        } else {
            print("the configuration has \(problems.count) problem(s):")
            for problem in problems { print("  - \(problem)") }
        }
        return problems.isEmpty ? 0 : 1
    }

    private static func jsonString(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONValue.writeString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

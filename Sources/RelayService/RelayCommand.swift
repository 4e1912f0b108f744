import Foundation
import RelayHTTP

/// The `mustdo-relay` command line: `serve`, `local`, `--help`, `--version`.
package enum RelayCommand {
    /// Version string printed by `--version` and served in MCP `serverInfo`: the one place the version
    /// is written. `make package` reads this line for the Debian package's version (packaging/build-deb.sh),
    /// so keep it one plain string literal, in Debian's version syntax.
    package static let version = "0.1.0"

    static let usage = """
        Usage: mustdo-relay <command> [options]

        Commands:
          serve [--config FILE] [--check-config]
                  Run the relay. Settings come from FILE (KEY=value lines, see
                  config/relay.env.example) and from RELAY_* environment variables,
                  which win. --check-config validates the settings and exits.
          local [sign-in | sign-out]
                  The local MCP server for one person: MCP on standard input and output,
                  calling CloudKit directly with their own sign-in, kept in ~/.mustdo/auth.json
                  (mode 0600). MUSTDO_* variables configure it; 'mustdo-relay local --help'
                  and docs/local.md list them.
          help    Show this text.

        The local demo (the relay with a CloudKit emulator) is its own program,
        mustdo-relay-demo ('make demo'), so this one never carries the emulator.

        Options:
          -h, --help      Show this text.
          --version       Print the version.
        """

    static let serveUsage = """
        Usage: mustdo-relay serve [--config FILE] [--check-config]

        Runs the relay. Settings come from FILE (KEY=value lines, see config/relay.env.example)
        and from RELAY_* environment variables, which win; docs/operations.md explains each one.

        Options:
          --config FILE   Read settings from FILE.
          --check-config  Validate the settings (and reach the store and key service), then exit:
                          0 when they are usable, 1 with every problem listed.
          -h, --help      Show this text.
        """

    /// Runs the command line and returns the process exit code.
    package static func main(_ arguments: [String]) async -> Int32 {
        var parser = ArgumentParser(Array(arguments.dropFirst()))
        do {
            guard let command = parser.next() else {
                print(usage)
                return 2
            }
            switch command {
            case "-h", "--help", "help":
                print(usage)
                return 0
            case "--version":
                print("mustdo-relay \(version)")
                return 0
            case "serve":
                if parser.flag("--help") || parser.flag("-h") {
                    print(serveUsage)
                    return 0
                }
                let configFile = try parser.value(for: "--config")
                let checkOnly = parser.flag("--check-config")
                try parser.finish()
                return await serve(configFile: configFile, checkOnly: checkOnly)
            case "local":
                // Nothing but MCP may reach standard output from here on.
                return await LocalCommand.main(parser.remaining, environment: ProcessInfo.processInfo.environment)
            case "demo":
                throw ArgumentParser.Failure(
                    "the demo is its own program: run 'make demo' (or mustdo-relay-demo from a source build)")
            default:
                throw ArgumentParser.Failure("unknown command \"\(command)\"")
            }
        } catch let failure as ArgumentParser.Failure {
            printError("mustdo-relay: \(failure.message)\nRun 'mustdo-relay --help' for usage.")
            return 2
        } catch {
            printError("mustdo-relay: \(error)")
            return 1
        }
    }

    private static func serve(configFile: String?, checkOnly: Bool) async -> Int32 {
        if checkOnly {
            var problems = await ConfigurationCheck.problems(
                configFile: configFile, environment: ProcessInfo.processInfo.environment)
            // The limit `serve` would raise itself to (what a systemd unit's ExecStartPre= sees too).
            if let configuration = try? Configuration.load(
                configFile: configFile, environment: ProcessInfo.processInfo.environment)
            {
                if configuration.retiredHTTPClientSettingSet {
                    printError(
                        "mustdo-relay: note: RELAY_HTTP_CLIENT is retired and ignored (libcurl makes every upstream call)"
                    )
                }
                do {
                    _ = try ConnectionBudget.plan(configuration, limit: DescriptorLimit.attainable())
                } catch {
                    problems.append(error.description)
                }
            }
            guard problems.isEmpty else {
                printError(
                    "mustdo-relay: the configuration has \(problems.count) problem(s):\n"
                        + problems.map { "  - \($0)" }.joined(separator: "\n"))
                return 1
            }
            print("configuration ok")
            return 0
        }
        var configuration: Configuration
        do {
            configuration = try Configuration.load(
                configFile: configFile, environment: ProcessInfo.processInfo.environment)
            try configuration.validateForService()
        } catch {
            printError("mustdo-relay: the configuration has problems:\n\(error)")
            return 1
        }
        let descriptors = DescriptorsAtStart.raise()
        let budget: ConnectionBudget
        do {
            budget = try ConnectionBudget.plan(configuration, limit: descriptors.limit.soft)
        } catch {
            printError("mustdo-relay: the configuration has problems:\n  - \(error)")
            return 1
        }
        configuration.server.maxConnections = budget.maxConnections
        let application: Application
        do {
            application = try await Application.open(configuration)
            try await application.backends.verifyAtStart()
        } catch {
            printError("mustdo-relay: cannot start:\n  - \(error)")
            return 1
        }
        descriptors.log(budget, to: application.logger)
        if configuration.retiredHTTPClientSettingSet {
            application.logger.log(LogEvent(.warning, "config.relay_http_client_ignored"))
        }
        return await run(application) {
            var lines = [
                "mustdo-relay listening on http://\(configuration.server.host):\(application.server.port)",
                "  issuer: \(configuration.issuer)",
                budget.summary(perAddress: configuration.server.maxConnectionsPerAddress),
            ]
            if let metrics = application.metricsServer {
                lines.append("  metrics: http://\(configuration.metricsHost):\(metrics.port)/metrics")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Starts `application`, prints `banner`, and serves until SIGTERM or SIGINT drains it; the
    /// exit code. The demo's command runs its relay the same way.
    package static func run(_ application: Application, banner: () -> String) async -> Int32 {
        do {
            let signals = ShutdownSignals(application)
            defer { signals.cancel() }
            try application.start()
            print(banner())
            fflush(nil)
            await application.waitUntilStopped()
            await application.backends.close()
            application.logger.close()
            return 0
        } catch {
            printError("mustdo-relay: \(error)")
            return 1
        }
    }
}

/// Prints to standard error.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

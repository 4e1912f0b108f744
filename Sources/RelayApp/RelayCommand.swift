import Foundation
import RelayHTTP

/// The `mustdo-relay` command line: `serve`, `demo`, `--help`, `--version`.
public enum RelayCommand {
    /// Version string printed by `--version` and served in MCP `serverInfo`.
    public static let version = "0.1.0"

    static let usage = """
        Usage: mustdo-relay <command> [options]

        Commands:
          serve [--config FILE] [--check-config]
                  Run the relay. Settings come from FILE (KEY=value lines, see
                  config/relay.env.example) and from RELAY_* environment variables,
                  which win. --check-config validates the settings and exits.
          demo [--port N]
                  Run a local demo on 127.0.0.1 (port 8080 unless given; 0 = any).
          help    Show this text.

        Options:
          -h, --help      Show this text.
          --version       Print the version.
        """

    /// Runs the command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
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
                let configFile = try parser.value(for: "--config")
                let checkOnly = parser.flag("--check-config")
                try parser.finish()
                return await serve(configFile: configFile, checkOnly: checkOnly)
            case "demo":
                let port = try parser.value(for: "--port").map { try ArgumentParser.port($0) } ?? 8080
                try parser.finish()
                return await demo(port: port)
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
        let configuration: Configuration
        do {
            configuration = try Configuration.load(
                configFile: configFile, environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("mustdo-relay: the configuration has problems:\n\(error)")
            return 1
        }
        if checkOnly {
            print("configuration ok")
            return 0
        }
        return await run(buildApplication(configuration), banner: "mustdo-relay listening on")
    }

    private static func demo(port: Int) async -> Int32 {
        var configuration = Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = port
        configuration.server.host = "127.0.0.1"
        configuration.server.port = port
        configuration.metricsPort = 0
        let application = buildApplication(configuration)
        return await run(application, banner: "MustDo Relay demo on")
    }

    private static func run(_ application: Application, banner: String) async -> Int32 {
        do {
            let signals = ShutdownSignals(application)
            defer { signals.cancel() }
            try application.start()
            print("\(banner) http://\(application.configuration.host):\(application.server.port)")
            print("  health: http://\(application.configuration.host):\(application.server.port)/healthz")
            if let metrics = application.metricsServer {
                print("  metrics: http://\(application.configuration.metricsHost):\(metrics.port)/metrics")
            }
            print("Press Ctrl-C to stop.")
            fflush(nil)
            await application.waitUntilStopped()
            application.logger.close()
            return 0
        } catch {
            printError("mustdo-relay: \(error)")
            return 1
        }
    }
}

/// Prints to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

import Foundation
import RelayService

/// The `mustdo-relay-demo` command line: the relay, a CloudKit emulator and SQLite on one machine.
/// A program of its own so that `mustdo-relay`, the one that serves people, never links the emulator.
package enum DemoCommand {
    static let usage = """
        Usage: mustdo-relay-demo [--port N] [--data DIR]

        Runs everything locally: the relay on http://127.0.0.1:N, a CloudKit emulator with a fake
        Apple sign-in page, SQLite and freshly generated keys.

        Options:
          --port N        The relay's port (8080 unless given; 0 = any free port).
          --data DIR      Keep the data in DIR (a new temporary directory unless given; a kept DIR
                          keeps its connections).
          -h, --help      Show this text.
          --version       Print the version.
        """

    /// Runs the command line and returns the process exit code.
    package static func main(_ arguments: [String]) async -> Int32 {
        var parser = ArgumentParser(Array(arguments.dropFirst()))
        do throws(ArgumentParser.Failure) {
            if parser.flag("--help") || parser.flag("-h") {
                print(usage)
                return 0
            }
            if parser.flag("--version") {
                print("mustdo-relay-demo \(RelayCommand.version)")
                return 0
            }
            let port = try parser.value(for: "--port").map(ArgumentParser.port) ?? 8080
            let data = try parser.value(for: "--data")
            try parser.finish()
            return await run(port: port, dataDirectory: data)
        } catch {
            printError("mustdo-relay-demo: \(error.message)\nRun 'mustdo-relay-demo --help' for usage.")
            return 2
        }
    }

    private static func run(port: Int, dataDirectory: String?) async -> Int32 {
        let prepared: Demo.Prepared
        let application: Application
        do {
            prepared = try Demo(port: port, dataDirectory: dataDirectory).prepare()
            var configuration = prepared.configuration
            let descriptors = DescriptorsAtStart.raise()
            let budget = try ConnectionBudget.plan(configuration, limit: descriptors.limit.soft)
            configuration.server.maxConnections = budget.maxConnections
            application = try await Application.open(configuration)
            descriptors.log(budget, to: application.logger)
        } catch {
            printError("mustdo-relay-demo: cannot start: \(error)")
            return 1
        }
        let status = await RelayCommand.run(application) { Demo.banner(prepared, application: application) }
        prepared.emulator.shutdown()
        await prepared.emulator.waitUntilStopped()
        return status
    }
}

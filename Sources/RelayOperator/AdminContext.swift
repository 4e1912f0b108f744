import Foundation
import RelayCrypto
import RelayHTTP
import RelayJSON
import RelayOAuth
import RelayService
import RelayStore

/// What every admin command needs: the settings, the output mode, the confirmation rule, and a
/// way to open only the backends it uses (a store, the user-ID key, a key file).
struct AdminContext: Sendable {
    let configFile: String?
    let json: Bool
    let yes: Bool
    let environment: [String: String]

    /// A command that ran but did not succeed (exit code 1); the message says what to do.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func loadConfiguration() throws -> Configuration {
        do {
            return try Configuration.load(configFile: configFile, environment: environment)
        } catch let errors as ConfigurationErrors {
            throw Failure("the configuration has problems (run `mustdo-relayctl config check`):\n\(errors)")
        } catch {
            throw Failure("cannot read the configuration: \(error)")
        }
    }

    /// Prints a JSON value or a text block, per `--json`.
    func output(_ value: JSONValue, text: @autoclosure () -> String) {
        print(json ? value.jsonString : text())
    }

    /// Goes ahead only with `--yes`, or with "y" typed on a terminal. Without a terminal and
    /// without `--yes` it refuses (a usage error), so a script never deletes by accident.
    func confirm(_ question: String) throws {
        if yes { return }
        guard isatty(STDIN_FILENO) == 1 else {
            throw ArgumentParser.Failure(
                "\(question)\nThis changes data and standard input is not a terminal: add --yes to go ahead.")
        }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard answer == "y" || answer == "yes" else { throw Failure("cancelled; nothing was changed") }
    }

    /// The store the configuration names, opened for a short command (SQLite: one reader, no
    /// background purge), with the HTTP client DynamoDB needs. Call `close` when done. A missing
    /// SQLite file is created only when `create` is true (`store migrate`): created by the wrong
    /// user, the relay could not open it.
    func openStore(_ configuration: Configuration, create: Bool = false) async throws -> OpenStore {
        switch configuration.store {
        case .memory:
            throw Failure(
                "RELAY_STORE is memory: the relay's items live only inside its own process; there is nothing to manage from here"
            )
        case .sqlite(let path) where !create && !FileManager.default.fileExists(atPath: path):
            throw Failure(
                "there is no store at \(path) yet: the relay creates it when it first starts (or run `mustdo-relayctl store migrate` as the relay's user)"
            )
        default:
            break
        }
        let http = try Backends.openHTTPClient(configuration)
        do {
            return OpenStore(store: try await Backends.openStore(configuration, http: http, forAdmin: true), http: http)
        } catch {
            http.shutdown()
            throw error
        }
    }

    /// Runs `body` with the configured store open, closing it afterwards whatever happens.
    func withStore<T>(_ body: (Configuration, any Store) async throws -> T) async throws -> T {
        let configuration = try loadConfiguration()
        let opened = try await openStore(configuration)
        do {
            let result = try await body(configuration, opened.store)
            await opened.close()
            return result
        } catch {
            await opened.close()
            throw error
        }
    }

    /// Runs `body` with the OAuth records of the configured store.
    func withAdmin<T>(_ body: (OAuthAdmin) async throws -> T) async throws -> T {
        try await withStore { _, store in try await body(OAuthAdmin(store: store)) }
    }
}

/// A store opened by an admin command and what must be closed with it.
struct OpenStore: Sendable {
    let store: any Store
    let http: HTTPClient

    func close() async {
        await (store as? SQLiteStore)?.close()
        http.shutdown()
    }
}

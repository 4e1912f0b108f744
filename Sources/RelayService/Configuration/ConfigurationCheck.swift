import Foundation
import RelayAWS
import RelayHTTP
import RelayStore
import RelayVault

/// What `mustdo-relay serve --check-config` and `mustdo-relayctl config check` verify, every
/// problem collected rather than stopping at the first: the settings, each secret file (present,
/// owner-only, well formed), the key service (a data key made and opened again), and the store
/// (opened and read). Messages name the setting and say what to fix; none carries a secret.
package enum ConfigurationCheck {
    /// Every problem of the configuration in `configFile` plus the environment; empty when the
    /// relay would start.
    package static func problems(configFile: String?, environment: [String: String]) async -> [String] {
        let configuration: Configuration
        do {
            configuration = try Configuration.load(configFile: configFile, environment: environment)
        } catch let errors as ConfigurationErrors {
            return errors.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
        return await problems(configuration)
    }

    /// Every problem of a loaded configuration.
    package static func problems(_ configuration: Configuration) async -> [String] {
        var problems: [String] = []
        do {
            try configuration.validateForService()
        } catch {
            problems += error.problems.map(\.description)
        }
        func note<T>(_ body: () throws(Backends.Failure) -> T) -> T? {
            do { return try body() } catch {
                problems.append(error.description)
                return nil
            }
        }
        _ = note { () throws(Backends.Failure) in try Backends.readPeppers(configuration) }
        _ = note { () throws(Backends.Failure) in try Backends.readUserIDKey(configuration) }
        _ = note { () throws(Backends.Failure) in try Backends.readBindingSecret(configuration) }
        _ = note { () throws(Backends.Failure) in try Backends.readAPIToken(configuration) }
        guard let http = note({ () throws(Backends.Failure) in try Backends.openHTTPClient(configuration) }) else {
            return problems
        }
        defer { http.shutdown() }
        // One credential chain for both AWS backends, as the relay has: one fetch, one message.
        var aws: (any AWSCredentialsProvider)?
        var awsFailed = false
        do {
            aws = try Backends.openAWSCredentials(configuration, http: http)
        } catch {
            problems.append(error.description)
            awsFailed = true
        }
        if !awsFailed,
            let keyService = note({ () throws(Backends.Failure) in
                try Backends.openKeyService(configuration, http: http, awsCredentials: aws)
            })
        {
            if let problem = await roundTrip(keyService) { problems.append(problem) }
        }
        if case .sqlite(let path) = configuration.store, !FileManager.default.fileExists(atPath: path) {
            // Not created here: whoever runs the check may not be the relay's user.
            if let problem = sqliteLocationProblem(path) { problems.append(problem) }
            return problems
        }
        if awsFailed, case .dynamoDB = configuration.store { return problems }
        do {
            let store = try await Backends.openStore(configuration, http: http, forAdmin: true, awsCredentials: aws)
            await (store as? SQLiteStore)?.close()
        } catch {
            problems.append(error.description)
        }
        return problems
    }

    /// Whether the relay could create a SQLite file at `path`: its directory, or the nearest
    /// existing ancestor the relay would create it in, must be a writable directory.
    static func sqliteLocationProblem(_ path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        var ancestor = directory.isEmpty ? "." : directory
        while !FileManager.default.fileExists(atPath: ancestor) {
            ancestor = (ancestor as NSString).deletingLastPathComponent
            if ancestor.isEmpty { ancestor = "." }
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: ancestor, isDirectory: &isDirectory)
        let fix = "create it, writable by the relay's user, or point RELAY_SQLITE_PATH elsewhere"
        guard isDirectory.boolValue else {
            return
                "RELAY_SQLITE_PATH: cannot create the directory \(directory) (\(ancestor) is not a directory); \(fix)"
        }
        guard access(ancestor, W_OK | X_OK) == 0 else {
            return
                "RELAY_SQLITE_PATH: cannot create \(path): \(ancestor) is not writable by this user (uid \(getuid())); \(fix)"
        }
        return nil
    }

    /// The encryption context of probes (this check, `/readyz`): shaped like a grant's, because
    /// the KMS key policy of deploy/aws allows only that shape, with IDs no grant can have.
    static let probeContext = SealContext(
        purpose: "cloudkit-web-auth-token", userId: "relay-probe", grantId: "relay-probe"
    ).encryptionContext

    /// Makes a data key and opens it again, as sealing and unsealing a grant will.
    static func roundTrip(_ keyService: any KeyService) async -> String? {
        let context = probeContext
        do {
            let key = try await keyService.generateDataKey(context: context)
            _ = try await keyService.unwrap(key.wrapped, context: context)
            return nil
        } catch {
            return "RELAY_KEY_SERVICE: the key service cannot make and open a data key: \(error)"
        }
    }
}

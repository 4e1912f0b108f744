import Foundation
import RelayCrypto

/// The secret files, each read on its own with a message that names the setting and says what to fix.
extension Backends {
    static let createSecrets = "create it with `mustdo-relayctl keys generate`"

    static func readPeppers(_ configuration: Configuration) throws(Failure) -> [(version: Int, key: SymmetricKey)] {
        try secret("RELAY_PEPPER_FILE", configuration.secrets.pepperFile, ifMissing: createSecrets) {
            (path) throws(SecretFiles.Problem) in try SecretFiles.readVersionedKeys(path)
        }
    }

    package static func readUserIDKey(_ configuration: Configuration) throws(Failure) -> SymmetricKey {
        try secret("RELAY_USER_ID_KEY_FILE", configuration.secrets.userIDKeyFile, ifMissing: createSecrets) {
            (path) throws(SecretFiles.Problem) in try SecretFiles.readKey(path)
        }
    }

    static func readBindingSecret(_ configuration: Configuration) throws(Failure) -> SymmetricKey {
        try secret("RELAY_BINDING_SECRET_FILE", configuration.secrets.bindingSecretFile, ifMissing: createSecrets) {
            (path) throws(SecretFiles.Problem) in try SecretFiles.readKey(path)
        }
    }

    package static func readAPIToken(_ configuration: Configuration) throws(Failure) -> String {
        try secret(
            "RELAY_CLOUDKIT_API_TOKEN_FILE", configuration.secrets.cloudKitAPITokenFile,
            ifMissing:
                "create it (mode 600) holding the API token of \(configuration.cloudKit.container.isEmpty ? "the container" : configuration.cloudKit.container) from CloudKit Console (API Access → API Tokens)"
        ) { (path) throws(SecretFiles.Problem) in try SecretFiles.readText(path) }
    }

    private static func secret<T>(
        _ setting: String, _ path: String, ifMissing fix: String,
        _ read: (String) throws(SecretFiles.Problem) -> T
    ) throws(Failure) -> T {
        do {
            return try read(path)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: path)
            throw Failure(description: "\(setting): \(error)\(missing ? "; \(fix)" : "")")
        }
    }
}

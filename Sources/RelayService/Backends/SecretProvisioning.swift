import Foundation
import RelayVault

/// Creates the secret files a configuration names, each only if it is missing (mode 0600,
/// written atomically). Used by `mustdo-relayctl keys generate` and by the demo.
package enum SecretProvisioning {
    /// What was created, by path (never the contents).
    package static func createMissing(
        _ secrets: SecretSettings, keyService: KeyServiceSettings, apiToken: String? = nil
    ) throws -> [String] {
        var created: [String] = []
        let manager = FileManager.default
        if !manager.fileExists(atPath: secrets.pepperFile) {
            try SecretFiles.write("1 \(SecretFiles.newKeyText())\n", to: secrets.pepperFile, replace: false)
            created.append(secrets.pepperFile)
        }
        for file in [secrets.userIDKeyFile, secrets.bindingSecretFile] where !manager.fileExists(atPath: file) {
            try SecretFiles.write(SecretFiles.newKeyText() + "\n", to: file, replace: false)
            created.append(file)
        }
        if case .local(let keyFile) = keyService, !manager.fileExists(atPath: keyFile) {
            let directory = (keyFile as NSString).deletingLastPathComponent
            try? manager.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            _ = try LocalKeyService.createKeyFile(at: keyFile)
            created.append(keyFile)
        }
        if let apiToken, !manager.fileExists(atPath: secrets.cloudKitAPITokenFile) {
            try SecretFiles.write(apiToken + "\n", to: secrets.cloudKitAPITokenFile, replace: false)
            created.append(secrets.cloudKitAPITokenFile)
        }
        return created
    }
}

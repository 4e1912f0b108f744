import Foundation
import RelayJSON
import RelayService
import RelayVault

/// `mustdo-relayctl keys generate|rotate|list`: the secret files and the local master keys.
enum KeysCommands {
    static let group = AdminGroup(
        name: "keys", summary: "Create the secret files; list and rotate the local master keys.",
        commands: [generate, list, rotate])

    static let generate = AdminCommand(
        "keys", "generate", summary: "Create every missing secret file (mode 600); never touch an existing one.",
        details: """
            Creates the pepper file, the user-ID key, the binding secret and (with
            RELAY_KEY_SERVICE=local) the master key file, each only if it is missing, with fresh
            random keys and mode 600. Prints the paths it created, never their contents. The
            CloudKit API token cannot be generated: paste it from CloudKit Console into
            RELAY_CLOUDKIT_API_TOKEN_FILE (mode 600); the output says when it is still missing.

            Example:
              mustdo-relayctl keys generate --config /etc/mustdo-relay/relay.env
            """
    ) { parser, context in
        try parser.finish()
        let configuration = try context.loadConfiguration()
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
        context.output(
            ["created": .array(created.map { .string($0) }), "cloudKitAPITokenMissing": .bool(tokenMissing)],
            text: text)
        return 0
    }

    static let list = AdminCommand(
        "keys", "list", summary: "List the master key IDs; mark the one that seals new grants.",
        details: """
            With RELAY_KEY_SERVICE=local, prints the ID of every key in RELAY_LOCAL_KEY_FILE, oldest
            first, and marks the current one (the last), which wraps the data keys of new grants.
            Older keys still open what they wrapped. Key material is never printed. With aws-kms,
            prints the configured key: KMS keeps the material and rotates it itself.

            Example:
              mustdo-relayctl keys list --json
            """
    ) { parser, context in
        try parser.finish()
        let configuration = try context.loadConfiguration()
        switch configuration.keyService {
        case .local(let keyFile):
            let service: LocalKeyService
            do { service = try LocalKeyService(keyFile: keyFile) } catch { throw AdminContext.Failure("\(error)") }
            context.output(
                [
                    "keyService": "local", "keyFile": .string(keyFile),
                    "keys": .array(
                        service.keyIDs.map { ["id": .string($0), "current": .bool($0 == service.currentKeyID)] }),
                ],
                text: "\(keyFile):\n"
                    + service.keyIDs.map {
                        $0 == service.currentKeyID ? "  \($0)  (current: seals new grants)" : "  \($0)"
                    }
                    .joined(separator: "\n"))
        case .awsKMS(let keyID, let region, _):
            context.output(
                ["keyService": "aws-kms", "keyID": .string(keyID), "region": .string(region)],
                text:
                    "aws-kms: \(keyID) in \(region)\nKMS keeps the key material and rotates it itself (EnableKeyRotation); old ciphertexts keep opening."
            )
        }
        return 0
    }

    static let rotate = AdminCommand(
        "keys", "rotate", summary: "Add a new local master key; after a restart it seals new grants.",
        details: """
            Appends a fresh random key with the next ID (k2, k3…) to RELAY_LOCAL_KEY_FILE,
            atomically, mode 600. Restart the relay (every instance, with the same file) to seal new
            grants with it. Existing grants keep opening with the key that sealed them, so keep the
            old keys in the file while such grants may live: up to RELAY_OAUTH_GRANT_LIFETIME (90
            days by default) after the restart. Remove a key earlier and its grants stop working;
            their users connect again. With aws-kms there is nothing to do here: KMS rotates.

            Example:
              mustdo-relayctl keys rotate --yes && systemctl restart mustdo-relay
            """, destructive: true
    ) { parser, context in
        try parser.finish()
        let configuration = try context.loadConfiguration()
        guard case .local(let keyFile) = configuration.keyService else {
            throw AdminContext.Failure(
                "RELAY_KEY_SERVICE is aws-kms: KMS rotates the key material itself (EnableKeyRotation in deploy/aws); nothing to do here"
            )
        }
        let before: LocalKeyService
        do { before = try LocalKeyService(keyFile: keyFile) } catch { throw AdminContext.Failure("\(error)") }
        try context.confirm(
            "Add a new master key to \(keyFile)? After a restart it seals new grants; \(before.keyIDs.joined(separator: ", ")) stay in the file to open existing ones."
        )
        let added: String
        do { added = try LocalKeyService.addKey(toKeyFile: keyFile) } catch { throw AdminContext.Failure("\(error)") }
        context.output(
            [
                "keyFile": .string(keyFile), "added": .string(added),
                "keys": .array((before.keyIDs + [added]).map { .string($0) }),
            ],
            text: """
                added \(added) to \(keyFile); it is now the current key.
                Restart the relay (every instance, with this same file) to seal new grants with it.
                Keep \(before.keyIDs.joined(separator: ", ")) in the file while grants sealed with them may live (RELAY_OAUTH_GRANT_LIFETIME).
                """)
        return 0
    }
}

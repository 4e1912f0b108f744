import Foundation
import RelayCrypto
import RelayJSON
import RelayService

/// `mustdo-relayctl pepper rotate`: a new token-hash pepper.
enum PepperCommands {
    static let group = AdminGroup(
        name: "pepper", summary: "Rotate the pepper that tokens, codes and client secrets are hashed with.",
        commands: [rotate])

    static let rotate = AdminCommand(
        "pepper", "rotate", summary: "Append a new pepper version; keep only it and the one before.",
        details: """
            The relay stores tokens, codes and client secrets only as HMACs under a pepper from
            RELAY_PEPPER_FILE. This appends a new random version and keeps only the previous one
            besides it. After a restart (every instance, with the same file) new hashes use the new
            version and lookups try both, so nothing in use breaks on the first rotation. What was
            hashed with the version this drops stops working: access and refresh tokens not
            refreshed since the rotation before, and client secrets of clients registered before
            it (those clients register again). Rotate at least RELAY_OAUTH_REFRESH_TOKEN_TTL
            apart (30 days by default) and nobody notices; rotate twice in a row to end every
            token at once (a suspected leak of the pepper file). The pepper is never printed.

            Example:
              mustdo-relayctl pepper rotate --yes && systemctl restart mustdo-relay
            """, destructive: true
    ) { parser, context in
        try parser.finish()
        let configuration = try context.loadConfiguration()
        let path = configuration.secrets.pepperFile
        let versions: [(version: Int, key: SymmetricKey)]
        do { versions = try SecretFiles.readVersionedKeys(path) } catch { throw AdminContext.Failure("\(error)") }
        let previous = versions[versions.count - 1]
        let next = previous.version + 1
        let dropped = versions.dropLast().map(\.version)
        let droppedText =
            dropped.isEmpty
            ? "Nothing stops working now: version \(previous.version) stays for lookups."
            : "Version(s) \(dropped.map(String.init).joined(separator: ", ")) will be dropped: tokens, codes and client secrets hashed with them stop working once the relay restarts."
        // The file changes only by a rotation (or `keys generate`): its age is the time since the last one.
        var warning = ""
        if !dropped.isEmpty,
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        {
            let age = Int(Date().timeIntervalSince(modified))
            let ttl = Int(configuration.oauth.lifetimes.refreshToken.components.seconds)
            if age >= 0, age < ttl {
                warning =
                    "WARNING: the last rotation was \(Self.span(age)) ago, less than RELAY_OAUTH_REFRESH_TOKEN_TTL (\(Self.span(ttl))): every connection that has not refreshed since then ends, and its person must connect again. Go ahead only to end every token at once (a leaked pepper file)."
                printError(warning)
            }
        }
        try context.confirm(
            "Add pepper version \(next) to \(path)? \(droppedText)\(warning.isEmpty ? "" : " " + warning)")
        let contents =
            "# MustDo Relay token-hash peppers, `<version> <base64url key>`, newest last. Keep mode 0600.\n"
            + "\(previous.version) \(Base64URL.encode(previous.key.withUnsafeBytes { Array($0) }))\n"
            + "\(next) \(SecretFiles.newKeyText())\n"
        try SecretFiles.write(contents, to: path, replace: true)
        context.output(
            [
                "pepperFile": .string(path), "current": .int(next), "previous": .int(previous.version),
                "dropped": .array(dropped.map { .int($0) }),
            ],
            text: """
                \(path) now holds version \(next) (current) and \(previous.version) (previous).
                Restart the relay (every instance, with this same file): new tokens are then hashed with \(next), and tokens hashed with \(previous.version) keep working.
                \(dropped.isEmpty ? "Nothing was dropped." : "Dropped \(dropped.map(String.init).joined(separator: ", ")): tokens, codes and client secrets hashed with it no longer work (their clients refresh in vain and connect again).")
                The next rotation drops version \(previous.version): everything hashed with it then stops working — tokens not refreshed since now (access tokens live an hour, refresh tokens RELAY_OAUTH_REFRESH_TOKEN_TTL), and client secrets of clients registered before now.
                """)
        return 0
    }

    /// "42 minutes", "3 days".
    static func span(_ seconds: Int) -> String {
        if seconds < 2 * 3600 { return "\(seconds / 60) minutes" }
        if seconds < 2 * 86400 { return "\(seconds / 3600) hours" }
        return "\(seconds / 86400) days"
    }
}

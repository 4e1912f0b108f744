import Foundation

/// Keys of one profile in the shared credentials file (`~/.aws/credentials`, section `[name]`) or
/// the shared config file (`~/.aws/config`, section `[profile name]`, or `[default]`): for an
/// operator's `mustdo-relayctl` on a workstation, or long-term keys for a relay off AWS kept in a
/// file (mode 0600) rather than in its environment.
///
/// Only keys are read (`aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`). A
/// profile that gets credentials another way (`role_arn`, `credential_process`, `sso_session`,
/// `web_identity_token_file`…) is reported as unsupported rather than half-followed.
enum SharedProfile {
    /// What a profile lookup found.
    enum Lookup: Equatable {
        case keys(id: String, secret: String, token: String?, file: String)
        /// No section for the profile in either file (or neither file exists).
        case notFound
        /// The profile exists but holds no keys; `setting` names what it uses instead (or nil).
        case withoutKeys(setting: String?)
    }

    /// Settings of profiles that get credentials in ways the relay does not implement.
    static let otherMethods = [
        "role_arn", "source_profile", "credential_source", "credential_process", "sso_session", "sso_start_url",
        "web_identity_token_file", "login_session",
    ]

    /// Looks `profile` up, the credentials file first (as every SDK does).
    static func lookup(profile: String, credentialsFile: String?, configFile: String?) throws(AWSError) -> Lookup {
        var found = false
        var other: String?
        let places: [(path: String?, section: String)] = [
            (credentialsFile, profile),
            (configFile, profile == "default" ? "default" : "profile \(profile)"),
            (configFile, "profile \(profile)"),
        ]
        for (path, section) in places {
            guard let path, let sections = try read(path), let settings = sections[section] else { continue }
            found = true
            let id = settings["aws_access_key_id"]
            let secret = settings["aws_secret_access_key"]
            if id != nil || secret != nil {
                guard let id, let secret, !id.isEmpty, !secret.isEmpty else {
                    throw .configuration(
                        "profile \(profile) in \(path) has only one of aws_access_key_id and aws_secret_access_key")
                }
                try checkPrivate(path)
                return .keys(
                    id: id, secret: secret, token: settings["aws_session_token"] ?? settings["aws_security_token"],
                    file: path)
            }
            other = other ?? otherMethods.first { settings[$0] != nil }
        }
        return found ? .withoutKeys(setting: other) : .notFound
    }

    /// The file's sections (name → lowercased key → value), or nil when it does not exist.
    static func read(_ path: String) throws(AWSError) -> [String: [String: String]]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .configuration("cannot read \(path); it must be readable by the relay's user")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The INI dialect of the AWS shared files: `[section]`, `key = value`, full-line `#` and `;`
    /// comments; indented lines (nested settings such as `s3 =`) are skipped.
    static func parse(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            if rawLine.first == " " || rawLine.first == "\t" { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().split(separator: " ", omittingEmptySubsequences: true)
                    .joined(separator: " ")
                current = name
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current]?[key] = value
        }
        return sections
    }

    /// Keys may come only from a file no one else can read, like the relay's other secret files.
    private static func checkPrivate(_ path: String) throws(AWSError) {
        let mode =
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?
            .intValue ?? 0
        guard mode & 0o077 == 0 else {
            throw .configuration(
                "\(path) holds AWS keys and is readable by group or others (mode \(String(mode & 0o777, radix: 8))); run: chmod 600 \(path)"
            )
        }
    }
}

import Foundation
import RelayCloudKit
import RelayHTTP
import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl cloudkit check`.
enum CloudKitCommands {
    static let group = AdminGroup(
        name: "cloudkit", summary: "Check the CloudKit container before people connect.", commands: [check])

    static let check = AdminCommand(
        "cloudkit", "check", arguments: "[--web-auth-token-file F] [--create-zone]",
        summary: "Preflight against the real container: API token, callback, zone, indexes, fields.",
        details: """
            With only the settings: calls users/caller without a web auth token, which must answer 421
            with a sign-in URL. That proves the API token, RELAY_CLOUDKIT_CONTAINER and
            RELAY_CLOUDKIT_ENVIRONMENT, and prints the sign-in page: open it, sign in with a test
            Apple ID, and see where Apple sends the browser back (the API token's Sign in Callback,
            which must be RELAY_ISSUER/oauth/apple/callback).

            With --web-auth-token-file F (F holds the ckWebAuthToken from that landing address, or
            the whole address, which is then compared with the relay's callback): the token signs in;
            the zone RELAY_CLOUDKIT_ZONE exists (--create-zone creates it when missing); the relay's
            two queries, with exactly its filters and sorts, are served (proves the QUERYABLE
            indexes); one scratch Todo and one scratch Occurrence with every field the relay writes
            are created and deleted (proves the fields reached production). CloudKit rotates the
            token on every call, so F is rewritten with the newest token (run again within 30
            minutes without signing in again). Use a test account: the scratch records are
            deleted at once, but the zone, if created, stays.

            Every check prints ok, or what to fix; skipped checks say why. Nothing printed is a
            token or a to-do.

            Example:
              mustdo-relayctl cloudkit check --config /etc/mustdo-relay/relay.env
              mustdo-relayctl cloudkit check --web-auth-token-file ~/ck-token --config /etc/mustdo-relay/relay.env
            """
    ) { parser, context in
        let tokenFile = try parser.value(for: "--web-auth-token-file")
        let createZone = parser.flag("--create-zone")
        try parser.finish()
        let configuration = try context.loadConfiguration()
        let given = try tokenFile.map(TokenFile.read)
        let apiToken: String
        do {
            apiToken = try Backends.readAPIToken(configuration)
        } catch {
            throw AdminContext.Failure("\(error)")
        }
        let http = try Backends.openHTTPClient(configuration)
        defer { http.shutdown() }
        var check = CloudKitCheck(
            client: Backends.cloudKitClient(configuration, apiToken: apiToken, http: http),
            settings: configuration.cloudKit,
            callbackURL: configuration.issuer + OAuthConfiguration(issuer: configuration.issuer).callbackPath,
            token: given.map { CloudKitWebAuthToken($0.token) })
        await check.run(createZone: createZone, callbackSeen: given?.landing)
        var note: String?
        if let tokenFile, let newest = check.token, newest.rawValue != given?.token {
            note = TokenFile.write(newest.rawValue, to: tokenFile)
        }
        let failed = check.outcomes.filter { $0.status == .fail }.count
        var json: JSONObject = [
            "ok": .bool(failed == 0), "container": .string(configuration.cloudKit.container),
            "environment": .string(configuration.cloudKit.environment.rawValue),
            "checks": .array(check.outcomes.map(\.json)),
        ]
        if failed > 0 { json["error"] = .string("\(failed) CloudKit check(s) failed") }
        if let note { json["note"] = .string(note) }
        context.output(.object(json), text: text(check.outcomes, configuration.cloudKit, note: note))
        return failed == 0 ? 0 : 1
    }

    private static func text(_ outcomes: [CloudKitCheck.Outcome], _ settings: CloudKitSettings, note: String?) -> String
    {
        var lines = ["cloudkit check: \(settings.container) (\(settings.environment)) at \(settings.baseURL)"]
        for outcome in outcomes {
            let mark = outcome.status == .fail ? "FAIL" : outcome.status.rawValue
            lines.append(
                "  " + mark.padding(toLength: 6, withPad: " ", startingAt: 0) + outcome.name + ": "
                    + outcome.detail)
            if let fix = outcome.fix { lines.append("        fix: " + fix) }
        }
        if let note { lines.append(note) }
        let failed = outcomes.filter { $0.status == .fail }.count
        let passed = outcomes.filter { $0.status == .ok }.count
        lines.append("\(passed) ok, \(failed) failed, \(outcomes.count - passed - failed) skipped")
        return lines.joined(separator: "\n")
    }
}

/// The `--web-auth-token-file`: a token, or the address Apple's sign-in sent the browser to.
enum TokenFile {
    struct Contents {
        /// The web auth token, decoded.
        var token: String
        /// `scheme://host[:port]/path` of the landing address, when the file held one.
        var landing: String?
    }

    static func read(_ path: String) throws -> Contents {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AdminContext.Failure("cannot read the web auth token file \(path)")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw AdminContext.Failure("the web auth token file \(path) is empty") }
        guard text.contains("://") else {
            // A pasted token is percent-encoded as it stood in the address (%2B, %2F, %3D), or raw.
            return Contents(token: text.contains("%") ? (text.removingPercentEncoding ?? text) : text)
        }
        // An address: read the raw query (a + stays a +), ckWebAuthToken first, ckSession as Apple also sends it.
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            let host = components.host
        else { throw AdminContext.Failure("the web auth token file \(path) holds an address that does not parse") }
        var values: [String: String] = [:]
        for pair in (components.percentEncodedQuery ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1].removingPercentEncoding ?? parts[1] }
        }
        guard let token = values["ckWebAuthToken"] ?? values["ckSession"], !token.isEmpty else {
            throw AdminContext.Failure("the address in \(path) has no ckWebAuthToken")
        }
        let port = components.port.map { ":\($0)" } ?? ""
        return Contents(token: token, landing: "\(scheme)://\(host)\(port)\(components.path)")
    }

    /// Replaces the file's contents with `token` (mode 0600, in one step); a note for the operator.
    static func write(_ token: String, to path: String) -> String {
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            try? FileManager.default.removeItem(atPath: temporary)
            return "could not write the newest web auth token to \(path): sign in again before the next run"
        }
        return "\(path) now holds the newest web auth token (CloudKit rotated it on every call)"
    }
}

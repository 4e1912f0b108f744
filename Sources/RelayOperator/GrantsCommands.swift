import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl grants list|activity|revoke`.
enum GrantsCommands {
    static let group = AdminGroup(
        name: "grants", summary: "Grants: one per connection of a user to a client.",
        commands: [list, ActivityCommand.activity, revoke])

    static let list = AdminCommand(
        "grants", "list", arguments: "[--user ID]", summary: "List grants, oldest first; one user's with --user.",
        details: """
            One line per grant: grant ID, user ID (the HMAC from `users id`), client ID, the app's
            name as the person saw it at consent ("(unverified)" when it registered itself), the
            host it returns to, its scopes, state (pending until its code is redeemed, then active),
            when it was connected, the day it was last used (UTC, day precision), hard end, and
            refresh rotations: what the person's connections page shows, and more. Without --user
            this scans the store; with it, it reads the user's index. Never a token, a hash of one,
            or the sealed CloudKit token.

            Example:
              mustdo-relayctl grants list --user "$(mustdo-relayctl users id _0123456789abcdef0123456789abcdef)"
            """
    ) { parser, context in
        let user = try parser.value(for: "--user")
        try parser.finish()
        try await context.withAdmin { admin in
            let grants = try await admin.grants(userID: user)
            context.output(
                .array(grants.map(json)),
                text: grants.isEmpty
                    ? "no grants"
                    : AdminFormat.table(
                        [
                            "GRANT", "USER", "CLIENT", "APP", "REDIRECT", "SCOPES", "STATE", "CONNECTED", "LAST USED",
                            "ENDS", "REFRESHES",
                        ],
                        grants.map {
                            [
                                $0.id, $0.userID, AdminFormat.safe($0.clientID), appName($0),
                                AdminFormat.safe($0.redirectHost), $0.scopes.joined(separator: ","), $0.state,
                                AdminFormat.time($0.createdAt), AdminFormat.day($0.lastUsedDay),
                                AdminFormat.time($0.endsAt), String($0.refreshCount),
                            ]
                        }) + "\n\(grants.count) grant(s)")
        }
        return 0
    }

    static let revoke = AdminCommand(
        "grants", "revoke", arguments: "ID", summary: "Revoke a grant and every token it issued.",
        details: """
            Deletes the grant, its sealed CloudKit token and all its access and refresh tokens. The
            client's next call gets 401 and its user must connect again. A running relay may accept
            a token it validated in the last RELAY_OAUTH_VALIDATION_CACHE_TTL seconds (5 by default).

            Example:
              mustdo-relayctl grants revoke Vx3k9Qm2bR7hT1sYp0aLcw --yes
            """, destructive: true
    ) { parser, context in
        let id = try parser.positional("grant ID")
        try await context.withAdmin { admin in
            guard let grant = try await admin.grant(id) else { throw AdminContext.Failure("no grant \(id)") }
            try context.confirm(
                "Revoke grant \(id) of user \(grant.userID) for client \(grant.clientID)? The user must connect again.")
            let revoked = try await admin.revokeGrant(id)
            context.output(
                ["grant": .string(id), "revoked": .bool(revoked)],
                text: revoked ? "revoked grant \(id)" : "grant \(id) was already gone")
        }
        return 0
    }

    /// The app's name made safe for a terminal, marked as the connections page marks it.
    static func appName(_ grant: GrantSummary) -> String {
        let name = AdminFormat.safe(grant.clientName)
        return grant.clientSource == "dcr" ? name + " (unverified)" : name
    }

    static func json(_ grant: GrantSummary) -> JSONValue {
        var object: JSONObject = [
            "id": .string(grant.id), "userID": .string(grant.userID), "clientID": .string(grant.clientID),
            "scopes": .array(grant.scopes.map { .string($0) }), "resource": .string(grant.resource),
            "state": .string(grant.state), "createdAt": .int(grant.createdAt), "endsAt": .int(grant.endsAt),
            "refreshCount": .int(grant.refreshCount),
        ]
        object["lastRefreshAt"] = grant.lastRefreshAt.map { .int($0) } ?? .null
        object["clientName"] = grant.clientName.map { .string($0) } ?? .null
        object["clientSource"] = grant.clientSource.map { .string($0) } ?? .null
        object["redirectHost"] = grant.redirectHost.map { .string($0) } ?? .null
        object["lastUsedDay"] = grant.lastUsedDay.map { .string(AdminFormat.day($0)) } ?? .null
        return .object(object)
    }
}

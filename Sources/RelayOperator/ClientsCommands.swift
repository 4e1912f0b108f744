import Foundation
import RelayJSON
import RelayOAuth
import RelayService

/// `mustdo-relayctl clients list|show|add|delete|purge-unused` (`add`: `ClientsAddCommand.swift`).
enum ClientsCommands {
    static let group = AdminGroup(
        name: "clients", summary: "OAuth clients: registered (DCR) and cached client metadata documents.",
        commands: [list, show, add, delete, purgeUnused])

    static let list = AdminCommand(
        "clients", "list", summary: "List every client, oldest first (scans the store).",
        details: """
            One line per client: ID, source (dcr: registered; cimd: a cached client ID metadata
            document), name, registration time, last authorization-code exchange, and when the
            store forgets it (unused registrations and cached documents expire). Names are the
            clients' own, untrusted, shown with control characters replaced. Never a secret.

            Example:
              mustdo-relayctl clients list --json
            """
    ) { parser, context in
        try parser.finish()
        try await context.withAdmin { admin in
            let clients = try await admin.clients()
            context.output(
                .array(clients.map { .object(json($0)) }),
                text: clients.isEmpty
                    ? "no clients"
                    : AdminFormat.table(
                        ["ID", "SOURCE", "NAME", "REGISTERED", "LAST USED", "EXPIRES"],
                        clients.map {
                            [
                                $0.id, $0.source, AdminFormat.safe($0.name), AdminFormat.time($0.registeredAt),
                                AdminFormat.time($0.lastUsedAt), AdminFormat.time($0.expiresAt),
                            ]
                        }) + "\n\(clients.count) client(s)")
        }
        return 0
    }

    static let show = AdminCommand(
        "clients", "show", arguments: "ID", summary: "Show one client: redirect URIs, auth method, grants.",
        details: """
            Everything the relay keeps about a client except its secret hash, and how many grants
            it holds. ID is a client ID from `clients list` (a metadata-document client by its URL).

            Example:
              mustdo-relayctl clients show 3q2-7wEjRvq8LPqbTQ8xpg
            """
    ) { parser, context in
        let id = try parser.positional("client ID")
        try await context.withAdmin { admin in
            guard let client = try await admin.client(id) else { throw AdminContext.Failure("no client \(id)") }
            let grants = try await admin.grants().filter { $0.clientID == id }
            var value = json(client)
            value["grants"] = .int(grants.count)
            context.output(
                .object(value),
                text: """
                    client      \(client.id)
                    source      \(client.source == "dcr" ? "dcr (registered)" : "cimd (client ID metadata document)")
                    name        \(AdminFormat.safe(client.name))
                    auth method \(client.authMethod)
                    grant types \(client.grantTypes.joined(separator: ", "))
                    registered  \(AdminFormat.time(client.registeredAt))
                    last used   \(AdminFormat.time(client.lastUsedAt))
                    expires     \(AdminFormat.time(client.expiresAt))
                    grants      \(grants.count)
                    redirect URIs:
                    \(client.redirectURIs.map { "  " + AdminFormat.safe($0) }.joined(separator: "\n"))
                    """)
        }
        return 0
    }

    static let delete = AdminCommand(
        "clients", "delete", arguments: "ID", summary: "Delete a client and revoke every grant it holds.",
        details: """
            Deletes the client (so it cannot start new connections) and revokes each of its grants
            with all their tokens; its users see the connection end and must connect again. A
            metadata-document client comes back the next time it starts a connection, since its
            document is fetched again: block it with RELAY_OAUTH_REGISTRATION=allowlist (when its
            redirect URIs are not on the list) or by turning RELAY_OAUTH_METADATA_DOCUMENTS off. A running relay may accept a token it validated in
            the last RELAY_OAUTH_VALIDATION_CACHE_TTL seconds (5 by default).

            Example:
              mustdo-relayctl clients delete 3q2-7wEjRvq8LPqbTQ8xpg --yes
            """, destructive: true
    ) { parser, context in
        let id = try parser.positional("client ID")
        try await context.withAdmin { admin in
            let client = try await admin.client(id)
            let grants = try await admin.grants().filter { $0.clientID == id }
            guard client != nil || !grants.isEmpty else { throw AdminContext.Failure("no client \(id)") }
            try context.confirm(
                "Delete client \(id) (\(AdminFormat.safe(client?.name))) and revoke its \(grants.count) grant(s)? Their users must connect again."
            )
            let result = try await admin.deleteClient(id)
            context.output(
                [
                    "client": .string(id), "deleted": .bool(result.clientDeleted),
                    "grantsRevoked": .int(result.grantsRevoked),
                ],
                text: "deleted client \(id); revoked \(result.grantsRevoked) grant(s)")
        }
        return 0
    }

    static let purgeUnused = AdminCommand(
        "clients", "purge-unused", arguments: "[--older-than DURATION]",
        summary: "Delete registered clients that never connected anyone.",
        details: """
            Deletes registered (DCR) clients that never completed an authorization-code exchange,
            hold no grant, and registered more than DURATION ago (default 1d; like 3600, 90m,
            12h, 30d), so a client in the middle of connecting someone is left alone. Unused
            clients also expire on their own after RELAY_OAUTH_UNUSED_CLIENT_TTL (30 days).

            Example:
              mustdo-relayctl clients purge-unused --older-than 7d --yes
            """, destructive: true
    ) { parser, context in
        let olderThan = try parser.value(for: "--older-than").map { try ArgumentParser.duration($0) } ?? 86400
        try parser.finish()
        try await context.withAdmin { admin in
            let cutoff = Int(Date().timeIntervalSince1970) - olderThan
            let unused = try await admin.unusedClients(registeredBefore: cutoff)
            var deleted = 0
            if !unused.isEmpty {
                try context.confirm(
                    "Delete \(unused.count) client(s) that never connected anyone, registered before \(AdminFormat.time(cutoff))?"
                )
                deleted = try await admin.purgeUnusedClients(registeredBefore: cutoff)
            }
            context.output(
                ["deleted": .int(deleted), "registeredBefore": .int(cutoff)],
                text: unused.isEmpty
                    ? "no unused clients registered before \(AdminFormat.time(cutoff))"
                    : "deleted \(deleted) unused client(s)")
        }
        return 0
    }

    static func json(_ client: ClientSummary) -> JSONObject {
        var object: JSONObject = [
            "id": .string(client.id), "source": .string(client.source),
            "redirectURIs": .array(client.redirectURIs.map { .string($0) }), "authMethod": .string(client.authMethod),
            "grantTypes": .array(client.grantTypes.map { .string($0) }), "registeredAt": .int(client.registeredAt),
        ]
        object["name"] = client.name.map { .string($0) } ?? .null
        object["lastUsedAt"] = client.lastUsedAt.map { .int($0) } ?? .null
        object["expiresAt"] = client.expiresAt.map { .int($0) } ?? .null
        return object
    }
}

import Foundation
import RelayAWS
import RelayJSON
import RelayOAuth
import RelayService
import RelayStore

/// `mustdo-relayctl store stats|purge-expired|migrate`.
enum StoreCommands {
    static let group = AdminGroup(
        name: "store", summary: "The single-table store: counts, expired items, schema.",
        commands: [stats, purgeExpired, migrate])

    static let stats = AdminCommand(
        "store", "stats", summary: "Count live items per kind; with SQLite, the file sizes.",
        details: """
            Counts live items by key kind: CLIENT (registered clients), AUTHREQ (pending sign-ins),
            CODE (authorization codes, kept a day after use to catch replays), GRANT (connections),
            GRANT_INDEX (a grant's list of its tokens), ACTIVITY (a grant's daily counts of what it
            did), TOKEN (access tokens), REFRESH (refresh
            tokens), USER (a user's list of grants), CIMD (cached client metadata documents) and
            OTHER. It scans the whole store: on DynamoDB that reads (and bills) every item. With
            SQLite it adds the database and WAL file sizes and the rows an expiry purge has not
            removed yet.

            Example:
              mustdo-relayctl store stats --json
            """
    ) { parser, context in
        try parser.finish()
        try await context.withStore { configuration, store in
            let counts = try await OAuthAdmin(store: store).statistics()
            var value: JSONObject = [
                "counts": .object(JSONObject(OAuthAdmin.itemKinds.map { ($0, JSONValue.int(counts[$0] ?? 0)) })),
                "total": .int(counts.values.reduce(0, +)),
            ]
            var text = AdminFormat.table(
                ["KIND", "ITEMS"],
                OAuthAdmin.itemKinds.map { [$0, String(counts[$0] ?? 0)] } + [
                    ["total", String(counts.values.reduce(0, +))]
                ])
            switch configuration.store {
            case .sqlite(let path):
                let database = fileSize(path)
                let wal = fileSize(path + "-wal")
                let rows = try await (store as? SQLiteStore)?.storedItemCount() ?? 0
                value["sqlite"] = [
                    "path": .string(path), "databaseBytes": .int(database), "walBytes": .int(wal),
                    "rowsIncludingExpired": .int(rows),
                ]
                text +=
                    "\n\nSQLite \(path): \(database) bytes, WAL \(wal) bytes, \(rows) rows (expired ones included until purged)"
            case .dynamoDB(let table, _, _):
                value["dynamodb"] = ["table": .string(table)]
                text += "\n\nDynamoDB table \(table) (counted with a Scan of the whole table)"
            case .memory:
                break
            }
            context.output(.object(value), text: text)
        }
        return 0
    }

    static let purgeExpired = AdminCommand(
        "store", "purge-expired", summary: "Delete expired items now (SQLite); DynamoDB relies on TTL.",
        details: """
            Expired items are invisible to the relay already; this removes them from the SQLite
            file now instead of at the relay's next background purge (every minute). With DynamoDB
            there is nothing to do: the table's TTL on expiresAt deletes them (usually within a
            few days) and the relay ignores them meanwhile.

            Example:
              mustdo-relayctl store purge-expired --yes
            """, destructive: true
    ) { parser, context in
        try parser.finish()
        try await context.withStore { configuration, store in
            guard let sqlite = store as? SQLiteStore else {
                context.output(
                    ["purged": .int(0), "note": "DynamoDB deletes expired items itself (TTL on expiresAt)"],
                    text:
                        "nothing to do: DynamoDB deletes expired items itself (TTL on expiresAt, usually within days), and the relay never reads them meanwhile"
                )
                return
            }
            try context.confirm("Delete every expired item from \(sqlitePath(configuration)) now?")
            let purged = try await sqlite.purgeExpired()
            context.output(["purged": .int(purged)], text: "purged \(purged) expired item(s)")
        }
        return 0
    }

    static let migrate = AdminCommand(
        "store", "migrate", summary: "Create the DynamoDB table (with TTL) if missing; SQLite needs nothing.",
        details: """
            DynamoDB: creates RELAY_DYNAMODB_TABLE (on-demand, pk/sk string keys) if it does not
            exist, waits until it is active, and turns on TTL on expiresAt. It needs
            dynamodb:CreateTable, DescribeTable and UpdateTimeToLive, which the relay's own role
            lacks: run it as an administrator (deploy/aws/mustdo-relay.cfn.json does the same).
            SQLite: the relay creates and upgrades its schema when it opens the file; this opens it
            (creating it if missing: run it as the relay's user) and prints the schema version.
            Other commands never create a missing SQLite file.

            Example:
              mustdo-relayctl store migrate
            """
    ) { parser, context in
        try parser.finish()
        let configuration = try context.loadConfiguration()
        switch configuration.store {
        case .memory:
            throw AdminContext.Failure("RELAY_STORE is memory: there is no schema to create")
        case .sqlite(let path):
            let opened = try await context.openStore(configuration, create: true)
            await opened.close()
            context.output(
                ["store": "sqlite", "path": .string(path), "schemaVersion": .int(SQLiteStore.schemaVersion)],
                text:
                    "\(path): schema version \(SQLiteStore.schemaVersion), current (the relay creates and upgrades it when it opens the file)"
            )
        case .dynamoDB(let table, let region, let endpoint):
            let created = try await createTable(table: table, region: region, endpoint: endpoint, configuration)
            context.output(
                ["store": "dynamodb", "table": .string(table), "created": .bool(created)],
                text: created
                    ? "created table \(table) with TTL on expiresAt"
                    : "table \(table) exists; TTL on expiresAt is on")
        }
        return 0
    }

    private static func createTable(table: String, region: String, endpoint: String?, _ configuration: Configuration)
        async throws -> Bool
    {
        let http = try Backends.openHTTPClient(configuration)
        defer { http.shutdown() }
        do {
            let aws = try Backends.awsConfiguration(
                configuration, region: region, endpoint: endpoint, credentials: nil, http: http)
            return try await DynamoDBStore(tableName: table, configuration: aws, httpClient: http).createTable()
        } catch {
            throw AdminContext.Failure("cannot create table \(table): \(error)")
        }
    }

    private static func sqlitePath(_ configuration: Configuration) -> String {
        if case .sqlite(let path) = configuration.store { return path }
        return "the store"
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

import RelayJSON

/// The `items` table (see docs/storage-schema.md) and every statement the store runs against it.
enum ItemTable {
    /// Stored in `PRAGMA user_version`; a file from a newer build is refused rather than misread.
    static let schemaVersion = 1

    static let schema = """
        CREATE TABLE IF NOT EXISTS items (
            pk TEXT NOT NULL,
            sk TEXT NOT NULL,
            attrs TEXT NOT NULL,
            version INTEGER NOT NULL,
            expires_at INTEGER,
            PRIMARY KEY (pk, sk)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS items_expires_at ON items (expires_at) WHERE expires_at IS NOT NULL;
        """

    /// The writer checkpoints by itself only when the WAL passes this many pages (about 40 MB),
    /// i.e. when the background checkpointer has fallen behind.
    static let backstopCheckpointPages = 10_000

    /// Sets up the writer connection: WAL, durability, schema.
    static func prepareWriter(_ connection: SQLiteConnection, synchronous: SQLiteStore.Synchronous) throws(StoreError) {
        guard try connection.scalarText("PRAGMA journal_mode=WAL")?.lowercased() == "wal" else {
            throw .unavailable("the database cannot use write-ahead logging")
        }
        try connection.execute("PRAGMA synchronous=\(synchronous == .full ? "FULL" : "NORMAL")")
        _ = try connection.scalarText("PRAGMA wal_autocheckpoint=\(backstopCheckpointPages)")
        let version = Int(try connection.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard version <= schemaVersion else {
            throw .unavailable("the database has schema version \(version); this build knows \(schemaVersion)")
        }
        try connection.execute("BEGIN IMMEDIATE; \(schema) PRAGMA user_version=\(schemaVersion); COMMIT;")
    }

    /// Sets up the checkpointer connection, with the writer's durability (a checkpoint fsyncs the
    /// database file under FULL).
    static func prepareCheckpointer(_ connection: SQLiteConnection, synchronous: SQLiteStore.Synchronous)
        throws(StoreError)
    {
        try connection.execute("PRAGMA synchronous=\(synchronous == .full ? "FULL" : "NORMAL")")
    }

    /// Sets up a reader connection: reads only.
    static func prepareReader(_ connection: SQLiteConnection) throws(StoreError) {
        try connection.execute("PRAGMA query_only=1")
    }

    static func fetchLive(_ connection: SQLiteConnection, _ key: ItemKey, now: Int) throws(StoreError) -> Item? {
        try withLiveRow(connection, key, now: now) { (bytes, version, expiresAt) throws(StoreError) -> Item in
            Item(pk: key.pk, sk: key.sk, attributes: try attributes(bytes), version: version, expiresAt: expiresAt)
        }
    }

    /// `body` with the live row under `key` as it lies: its attributes' stored bytes (valid only
    /// during the call), version and expiry; nil when there is no live row.
    static func withLiveRow<R>(
        _ connection: SQLiteConnection, _ key: ItemKey, now: Int,
        _ body: (UnsafeBufferPointer<UInt8>, _ version: Int, _ expiresAt: Int?) throws(StoreError) -> R
    ) throws(StoreError) -> R? {
        let statement = try connection.prepared(
            "SELECT attrs, version, expires_at FROM items WHERE pk = ?1 AND sk = ?2 AND (expires_at IS NULL OR expires_at > ?3)"
        )
        defer { statement.reset() }
        statement.bind(1, key.pk)
        statement.bind(2, key.sk)
        statement.bind(3, now)
        guard try statement.step() else { return nil }
        let version = statement.int(1)
        let expiresAt = statement.isNull(2) ? nil : statement.int(2)
        return try statement.withBytes(0) { (bytes) throws(StoreError) -> R in try body(bytes, version, expiresAt) }
    }

    /// Replaces a live row's attributes and version, its expiry as it is.
    static func replaceAttributes(_ connection: SQLiteConnection, _ key: ItemKey, encoded: [UInt8], version: Int)
        throws(StoreError)
    {
        let statement = try connection.prepared("UPDATE items SET attrs = ?3, version = ?4 WHERE pk = ?1 AND sk = ?2")
        statement.bind(1, key.pk)
        statement.bind(2, key.sk)
        statement.bind(3, bytes: encoded)
        statement.bind(4, version)
        try statement.run()
    }

    /// Writes `item`. `replacingExpiry` is the expiry of the live row the write read (nil: no live
    /// row, or an expired one):
    /// a live row is changed with an `UPDATE` that names `expires_at` only when the expiry changes,
    /// because assigning that column, even to its own value, makes SQLite delete and re-insert the
    /// row's entry in `items_expires_at`, one more page in the WAL for every commit (a rotated
    /// token's save changes nothing but `attrs` and `version`).
    static func store(_ connection: SQLiteConnection, _ item: Item, encoded: [UInt8], replacingExpiry: Int??)
        throws(StoreError)
    {
        let statement: SQLiteStatement
        switch replacingExpiry {
        case .some(let expiry) where expiry == item.expiresAt:
            return try replaceAttributes(connection, item.key, encoded: encoded, version: item.version)
        case .some:
            statement = try connection.prepared(
                "UPDATE items SET attrs = ?3, version = ?4, expires_at = ?5 WHERE pk = ?1 AND sk = ?2")
            statement.bind(5, item.expiresAt)
        case .none:
            statement = try connection.prepared(
                """
                INSERT INTO items (pk, sk, attrs, version, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (pk, sk) DO UPDATE SET attrs = excluded.attrs, version = excluded.version,
                    expires_at = excluded.expires_at
                """)
            statement.bind(5, item.expiresAt)
        }
        statement.bind(1, item.pk)
        statement.bind(2, item.sk)
        statement.bind(3, bytes: encoded)
        statement.bind(4, item.version)
        try statement.run()
    }

    static func remove(_ connection: SQLiteConnection, _ key: ItemKey) throws(StoreError) {
        let statement = try connection.prepared("DELETE FROM items WHERE pk = ?1 AND sk = ?2")
        statement.bind(1, key.pk)
        statement.bind(2, key.sk)
        try statement.run()
    }

    static func query(_ connection: SQLiteConnection, _ query: Query, now: Int) throws(StoreError) -> QueryPage {
        let upperBound = prefixUpperBound(query.skPrefix)
        var sql =
            "SELECT sk, attrs, version, expires_at FROM items WHERE pk = ?1 AND (expires_at IS NULL OR expires_at > ?2)"
        if !query.skPrefix.isEmpty { sql += " AND sk >= ?3" }
        if upperBound != nil { sql += " AND sk < ?4" }
        if query.cursor != nil { sql += query.order == .ascending ? " AND sk > ?5" : " AND sk < ?5" }
        sql += query.order == .ascending ? " ORDER BY sk ASC LIMIT ?6" : " ORDER BY sk DESC LIMIT ?6"
        let statement = try connection.prepared(sql)
        defer { statement.reset() }
        statement.bind(1, query.pk)
        statement.bind(2, now)
        if !query.skPrefix.isEmpty { statement.bind(3, query.skPrefix) }
        if let upperBound { statement.bind(4, bytes: upperBound) }
        if let cursor = query.cursor { statement.bind(5, cursor.lastSortKey) }
        statement.bind(6, query.limit + 1)  // one extra row tells whether another page exists
        var items: [Item] = []
        while try statement.step() {
            items.append(
                Item(
                    pk: query.pk, sk: statement.text(0) ?? "", attributes: try attributes(statement, column: 1),
                    version: statement.int(2), expiresAt: statement.isNull(3) ? nil : statement.int(3)))
        }
        guard items.count > query.limit else { return QueryPage(items: items, next: nil) }
        items.removeLast()
        return QueryPage(items: items, next: QueryCursor(lastSortKey: items[items.count - 1].sk))
    }

    /// A range of the primary key: partition keys from `pkPrefix` up to (not including) the
    /// prefix's upper bound, after the cursor, in (pk, sk) order — an index range, never a full
    /// table walk unless the prefix is empty.
    static func scan(_ connection: SQLiteConnection, pkPrefix: String, cursor: ScanCursor?, limit: Int, now: Int)
        throws(StoreError) -> ScanPage
    {
        let upperBound = prefixUpperBound(pkPrefix)
        var sql = "SELECT pk, sk, attrs, version, expires_at FROM items WHERE pk >= ?1"
        if upperBound != nil { sql += " AND pk < ?2" }
        if cursor != nil { sql += " AND (pk, sk) > (?3, ?4)" }
        sql += " AND (expires_at IS NULL OR expires_at > ?5) ORDER BY pk, sk LIMIT ?6"
        let statement = try connection.prepared(sql)
        defer { statement.reset() }
        statement.bind(1, pkPrefix)
        if let upperBound { statement.bind(2, bytes: upperBound) }
        if let cursor {
            statement.bind(3, cursor.lastKey.pk)
            statement.bind(4, cursor.lastKey.sk)
        }
        statement.bind(5, now)
        statement.bind(6, limit + 1)  // one extra row tells whether another page exists
        var items: [Item] = []
        while try statement.step() {
            items.append(
                Item(
                    pk: statement.text(0) ?? "", sk: statement.text(1) ?? "",
                    attributes: try attributes(statement, column: 2), version: statement.int(3),
                    expiresAt: statement.isNull(4) ? nil : statement.int(4)))
        }
        guard items.count > limit else { return ScanPage(items: items, next: nil) }
        items.removeLast()
        return ScanPage(items: items, next: ScanCursor(lastKey: items[items.count - 1].key))
    }

    /// Deletes up to `limit` expired items; returns how many.
    static func purge(_ connection: SQLiteConnection, now: Int, limit: Int) throws(StoreError) -> Int {
        let statement = try connection.prepared(
            "DELETE FROM items WHERE (pk, sk) IN (SELECT pk, sk FROM items WHERE expires_at <= ?1 LIMIT ?2)")
        statement.bind(1, now)
        statement.bind(2, limit)
        try statement.run()
        return connection.changes
    }

    static func count(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        Int(try connection.scalarText("SELECT count(*) FROM items") ?? "0") ?? 0
    }

    /// The smallest byte string greater than every string starting with `prefix`: the prefix with
    /// its last byte incremented (valid UTF-8 has no 0xFF byte, so that always works). The result
    /// need not be valid UTF-8; SQLite compares TEXT with memcmp.
    static func prefixUpperBound(_ prefix: String) -> [UInt8]? {
        var bytes = Array(prefix.utf8)
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    private static func attributes(_ statement: SQLiteStatement, column: Int32) throws(StoreError) -> JSONObject {
        try statement.withBytes(column) { (bytes) throws(StoreError) -> JSONObject in try attributes(bytes) }
    }

    private static func attributes(_ bytes: UnsafeBufferPointer<UInt8>) throws(StoreError) -> JSONObject {
        guard let object = (try? JSONValue(parsing: bytes))?.objectValue else {
            throw .unavailable("a stored item is corrupt (attributes are not a JSON object)")
        }
        return object
    }
}

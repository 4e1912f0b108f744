import RelayJSON

/// The single-table store: items addressed by partition and sort key, conditional writes, and
/// queries over one partition. Every method is atomic on one item, `transact` on several, and
/// every failure is a `StoreError`.
///
/// Expired items (`expiresAt <= now`) behave as absent everywhere: reads skip them and conditions
/// treat them as missing. Backends purge them in the background (SQLite, memory) or leave it to
/// the database's TTL (DynamoDB).
///
/// To consume something exactly once, use `delete(_:condition: .exists)` (the caller that gets the
/// item back won) or `update(_:_:condition: .versionEquals(v))`.
package protocol Store: Sendable {
    /// The live item with this key, or nil.
    func get(_ key: ItemKey) async throws(StoreError) -> Item?

    /// Writes the whole item (replacing any attributes it had) if `condition` holds; returns it
    /// with its new version.
    func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition
    ) async throws(StoreError) -> Item

    /// Changes an existing live item if `condition` holds; returns the new item. A missing or
    /// expired item fails with `conditionFailed` whatever the condition (`update` never creates);
    /// `.absent` is `invalid`.
    func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item

    /// Deletes the item if `condition` holds and returns what was deleted (nil when nothing live
    /// was there and the condition was `.none`). `.absent` is `invalid`.
    func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item?

    /// Makes every write or none, in one atomic and durable step: each write follows the rules of
    /// its single form (`put`, `update`, `delete`; versions count up the same way), and when any
    /// write's condition does not hold, nothing changes and the call fails with `conditionFailed`.
    /// A transaction holds 1...100 writes on distinct keys with at most 3 MB of attributes
    /// together (`StoreLimits`; DynamoDB's `TransactWriteItems` limits), else it is `invalid`.
    /// An OAuth refresh stores its new tokens and rotates the grant this way.
    func transact(_ writes: [StoreWrite]) async throws(StoreError)

    /// One page of live items of a partition.
    func query(_ query: Query) async throws(StoreError) -> QueryPage

    /// One page of live items whose partition key starts with `pkPrefix` (by UTF-8 bytes; empty
    /// means every item), across partitions. **Admin and periodic metrics only**: it is expensive
    /// (SQLite walks a range of the primary key, DynamoDB reads the whole table with a `Scan`) and
    /// must never run on a request path.
    ///
    /// A page holds at most `limit` items (1...1000) and may hold fewer, even none, while `next`
    /// is set: follow `next` until it is nil. Every live item that does not change during the scan
    /// comes back exactly once. The order is the backend's: by partition key then sort key (UTF-8
    /// bytes) for SQLite and memory, the table's hash order for DynamoDB.
    func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage
}

extension Store {
    /// `put` with no expiry and no condition unless given.
    package func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int? = nil, condition: WriteCondition = .none
    ) async throws(StoreError) -> Item {
        try await put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
    }

    /// `update` of an existing item whatever its version.
    package func update(_ key: ItemKey, _ update: ItemUpdate) async throws(StoreError) -> Item {
        try await self.update(key, update, condition: .none)
    }

    /// Unconditional delete.
    package func delete(_ key: ItemKey) async throws(StoreError) -> Item? {
        try await delete(key, condition: .none)
    }

    /// Every live item of a query, following cursors; fails with `invalid` past `maximumItems`
    /// rather than loading an unbounded partition.
    package func queryAll(_ query: Query, maximumItems: Int = 10_000) async throws(StoreError) -> [Item] {
        var query = query
        var items: [Item] = []
        while true {
            let page = try await self.query(query)
            items += page.items
            guard items.count <= maximumItems else { throw .invalid("query returned more than \(maximumItems) items") }
            guard let next = page.next else { return items }
            query.cursor = next
        }
    }
}

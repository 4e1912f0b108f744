import RelayJSON

/// One conditional write, as a value: what `Store.transact` takes, and what every single write of
/// the memory and SQLite stores is. `apply(to:)` holds the rules every backend shares (condition
/// checks, versions, merges, limits), so the memory and SQLite stores cannot drift apart; a
/// backend only fetches the live item and persists the outcome.
package struct StoreWrite: Sendable {
    /// What the write does; the same rules as the `Store` method of that name.
    package enum Change: Sendable {
        case put(attributes: JSONObject, expiresAt: Int?)
        case update(ItemUpdate)
        case delete
    }

    /// What the backend must do.
    enum Outcome: Sendable {
        /// Store this item (insert or replace); `encoded` is its attributes as JSON, encoded once.
        case store(Item, encoded: [UInt8])
        /// Remove the key; `previous` is the live item that was there, if any.
        case remove(previous: Item?)
    }

    /// The item written.
    package let key: ItemKey
    /// The change.
    package let change: Change
    /// What must hold of the item for the write (and, in a transaction, every write) to happen.
    package let condition: WriteCondition

    /// A write from its parts.
    package init(key: ItemKey, change: Change, condition: WriteCondition) {
        self.key = key
        self.change = change
        self.condition = condition
    }

    /// `Store.put` as a value.
    package static func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int? = nil, condition: WriteCondition = .none
    ) -> StoreWrite {
        StoreWrite(key: key, change: .put(attributes: attributes, expiresAt: expiresAt), condition: condition)
    }

    /// `Store.update` as a value.
    package static func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition = .none) -> StoreWrite {
        StoreWrite(key: key, change: .update(update), condition: condition)
    }

    /// `Store.delete` as a value.
    package static func delete(_ key: ItemKey, condition: WriteCondition = .none) -> StoreWrite {
        StoreWrite(key: key, change: .delete, condition: condition)
    }

    /// Checks the request before any I/O.
    func validate() throws(StoreError) {
        try StoreLimits.check(key)
        switch change {
        case .put(_, let expiresAt):
            try StoreLimits.check(expiresAt: expiresAt)
        case .update(let update):
            guard condition != .absent else { throw .invalid("update cannot require an absent item") }
            if case .set(let seconds) = update.expiresAt { try StoreLimits.check(expiresAt: seconds) }
            guard !update.namesOverlap else { throw .invalid("an update names one attribute twice") }
        case .delete:
            guard condition != .absent else { throw .invalid("delete cannot require an absent item") }
        }
    }

    /// Checks a whole transaction before any I/O: 1...`StoreLimits.maximumTransactionWrites` valid
    /// writes on distinct keys (DynamoDB refuses two on one item), carrying at most
    /// `StoreLimits.maximumTransactionBytes` of attributes together.
    package static func validate(transaction writes: [StoreWrite]) throws(StoreError) {
        guard (1...StoreLimits.maximumTransactionWrites).contains(writes.count) else {
            throw .invalid("a transaction holds 1...\(StoreLimits.maximumTransactionWrites) writes")
        }
        var keys = Set<ItemKey>()
        var bytes = 0
        for write in writes {
            try write.validate()
            guard keys.insert(write.key).inserted else { throw .invalid("a transaction writes one item twice") }
            switch write.change {
            case .put(let attributes, _): bytes += try StoreLimits.encode(attributes).count
            case .update(let update): bytes += JSONValue.object(update.set).bytes.count
            case .delete: break
            }
        }
        guard bytes <= StoreLimits.maximumTransactionBytes else {
            throw .invalid("a transaction's attributes exceed \(StoreLimits.maximumTransactionBytes) bytes")
        }
    }

    /// The outcome given the live item stored under `key` now (nil when missing or expired).
    func apply(to current: consuming Item?) throws(StoreError) -> Outcome {
        switch change {
        case .put(let attributes, let expiresAt):
            let encoded = try StoreLimits.encode(attributes)  // an oversized item is invalid whatever is stored
            try requireCondition(current)
            let version = (current?.version ?? 0) + 1
            let item = Item(pk: key.pk, sk: key.sk, attributes: attributes, version: version, expiresAt: expiresAt)
            return .store(item, encoded: encoded)
        case .update(let update):
            try requireCondition(current)
            guard var item = consume current else { throw .conditionFailed }
            for (name, value) in update.set { item.attributes[name] = value }
            for name in update.remove { item.attributes[name] = nil }
            for (name, delta) in update.increment {
                let stored: Int
                switch item.attributes[name] {
                case nil: stored = 0
                case .int(let value)?: stored = value
                default: throw .invalid("only an integer attribute can be incremented")
                }
                let (sum, overflow) = stored.addingReportingOverflow(delta)
                guard !overflow else { throw .invalid("the increment overflows") }
                item.attributes[name] = .int(sum)
            }
            switch update.expiresAt {
            case .unchanged: break
            case .set(let seconds): item.expiresAt = seconds
            case .clear: item.expiresAt = nil
            }
            item.version += 1
            return .store(item, encoded: try StoreLimits.encode(item.attributes))
        case .delete:
            try requireCondition(current)
            return .remove(previous: current)
        }
    }

    private func requireCondition(_ current: Item?) throws(StoreError) {
        guard Self.holds(condition, forVersion: current?.version) else { throw .conditionFailed }
    }

    /// Whether `condition` holds for the live item at `version` (nil: no live item).
    static func holds(_ condition: WriteCondition, forVersion version: Int?) -> Bool {
        switch condition {
        case .none: true
        case .absent: version == nil
        case .exists: version != nil
        case .versionEquals(let expected): version == expected
        }
    }
}

/// Request limits shared by every backend (each checks them before any request, so every store
/// answers a bad request the same way), set to what DynamoDB accepts so a request that works on
/// SQLite also works there.
package enum StoreLimits {
    /// DynamoDB allows 2048 bytes for a partition key and 1024 for a sort key; one limit keeps it simple.
    package static let maximumKeyBytes = 1024
    /// DynamoDB items are at most 400 KB including names and keys; JSON is a little larger than
    /// DynamoDB's own encoding, so this leaves room.
    package static let maximumAttributeBytes = 300_000
    /// DynamoDB's `TransactWriteItems` takes at most 100 actions.
    package static let maximumTransactionWrites = 100
    /// DynamoDB's `TransactWriteItems` takes at most 4 MB; the same margin as for one item.
    package static let maximumTransactionBytes = 3_000_000

    package static func check(_ key: ItemKey) throws(StoreError) {
        guard !key.pk.isEmpty, !key.sk.isEmpty else { throw .invalid("partition and sort keys must not be empty") }
        guard key.pk.utf8.count <= maximumKeyBytes, key.sk.utf8.count <= maximumKeyBytes else {
            throw .invalid("keys are limited to \(maximumKeyBytes) bytes")
        }
    }

    /// The attributes as compact JSON, if within the size limit.
    package static func encode(_ attributes: JSONObject) throws(StoreError) -> [UInt8] {
        // A grant's row (its sealed CloudKit token alone is ~1.4 KB), rewritten on every tool call
        // when CloudKit rotates the token: room for it at once, not growth through 256…2,048 bytes.
        let bytes = JSONValue.object(attributes).bytes(reservingCapacity: 4096)
        try check(encodedAttributes: bytes)
        return bytes
    }

    /// Attributes already encoded must be within the size limit.
    package static func check(encodedAttributes bytes: [UInt8]) throws(StoreError) {
        guard bytes.count <= maximumAttributeBytes else {
            throw .invalid("attributes exceed \(maximumAttributeBytes) bytes")
        }
    }

    package static func check(expiresAt: Int?) throws(StoreError) {
        if let expiresAt, expiresAt < 0 { throw .invalid("expiresAt must not be negative") }
    }

    package static func checkScan(pkPrefix: String, cursor: ScanCursor?, limit: Int) throws(StoreError) {
        guard pkPrefix.utf8.count <= maximumKeyBytes else {
            throw .invalid("partition key prefix is limited to \(maximumKeyBytes) bytes")
        }
        guard (1...Query.maximumLimit).contains(limit) else {
            throw .invalid("scan limit must be 1...\(Query.maximumLimit)")
        }
        if let cursor { try check(cursor.lastKey) }
    }

    package static func check(_ query: Query) throws(StoreError) {
        guard !query.pk.isEmpty, query.pk.utf8.count <= maximumKeyBytes else {
            throw .invalid("partition key must be 1...\(maximumKeyBytes) bytes")
        }
        guard (1...Query.maximumLimit).contains(query.limit) else {
            throw .invalid("query limit must be 1...\(Query.maximumLimit)")
        }
    }
}

/// Sort-key ordering by UTF-8 bytes, as SQLite's BINARY collation and DynamoDB order strings.
enum SortKeyOrder {
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    static func hasPrefix(_ sortKey: String, _ prefix: String) -> Bool {
        sortKey.utf8.starts(with: prefix.utf8)
    }

    /// Whether `lhs` comes before `rhs` by partition key, then sort key (the scan order).
    static func keyPrecedes(_ lhs: ItemKey, _ rhs: ItemKey) -> Bool {
        lhs.pk.utf8.elementsEqual(rhs.pk.utf8) ? precedes(lhs.sk, rhs.sk) : precedes(lhs.pk, rhs.pk)
    }

    /// Whether `sortKey` comes after the cursor in the query's direction.
    static func isAfter(_ sortKey: String, cursor: QueryCursor?, order: QueryOrder) -> Bool {
        guard let cursor else { return true }
        switch order {
        case .ascending: return precedes(cursor.lastSortKey, sortKey)
        case .descending: return precedes(sortKey, cursor.lastSortKey)
        }
    }
}

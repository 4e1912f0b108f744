import RelayJSON
import RelayStore

extension DynamoDBStore {
    /// Items a `Scan` request reads at most (DynamoDB also stops at 1 MB).
    static let scanReadLimit = 1000

    /// `Store.scan` as one DynamoDB `Scan` request: `begins_with(pk, :prefix)` and the expiry check
    /// are a filter, so DynamoDB reads (and bills) every item of the table whatever the prefix. Each
    /// request reads up to `scanReadLimit` items; when more than `limit` of them match, the page
    /// ends at the `limit`-th and the cursor is that item's key (a scan continues after any key),
    /// otherwise the cursor is DynamoDB's `LastEvaluatedKey`, and a page may hold no match at all.
    /// Needs `dynamodb:Scan`, which the relay's own role does not need: only `mustdo-relayctl` and
    /// the optional grants gauge call it.
    package func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try StoreLimits.checkScan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        var parts = ExpressionParts()
        var filter = parts.notExpired(now: clock.epochSeconds())
        if !pkPrefix.isEmpty {
            // An empty prefix would be an empty string value, which older DynamoDB stand-ins refuse.
            filter = "begins_with(pk, \(parts.value(":prefix", ["S": .string(pkPrefix)]))) AND \(filter)"
        }
        var body: JSONObject = [
            "FilterExpression": .string(filter), "Limit": .int(Self.scanReadLimit), "ConsistentRead": true,
        ]
        if let cursor { body["ExclusiveStartKey"] = DynamoDBItem.key(cursor.lastKey) }
        parts.add(to: &body)
        let answer = try await call("Scan", body)
        guard let stored = answer["Items"]?.arrayValue else { throw .unavailable("DynamoDB Scan answer has no Items") }
        var items: [Item] = []
        for value in stored {
            if let item = live(try decodeItem(value)) { items.append(item) }
        }
        if items.count > limit {
            items.removeSubrange(limit...)
            return ScanPage(items: items, next: ScanCursor(lastKey: items[limit - 1].key))
        }
        var next: ScanCursor?
        if let last = answer["LastEvaluatedKey"] {
            guard let pk = last[DynamoDBItem.partitionKey]?["S"]?.stringValue,
                let sk = last[DynamoDBItem.sortKey]?["S"]?.stringValue
            else { throw .unavailable("DynamoDB Scan answer has a malformed LastEvaluatedKey") }
            next = ScanCursor(lastKey: ItemKey(pk: pk, sk: sk))
        }
        return ScanPage(items: items, next: next)
    }
}

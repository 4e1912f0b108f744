import RelayHTTP
import RelayJSON
import RelayStore
import RelaySync

/// The `Store` on one DynamoDB table (hash key `pk`, range key `sk`, TTL on `expiresAt`) through
/// the JSON API over libcurl, signed with SigV4.
///
/// Every conditional write is one request with a `ConditionExpression`, so DynamoDB decides
/// races: a failed condition comes back as `ConditionalCheckFailedException` and becomes
/// `StoreError.conditionFailed`. Expiry is checked against the store's clock in every condition
/// and read, because DynamoDB deletes expired items only eventually. Reads are strongly
/// consistent. Throttling, 5xx and refused connections are retried with jittered backoff up to the
/// configured bound, then fail as `throttled` or `unavailable`.
package final class DynamoDBStore: Store {
    /// The table's name.
    package let tableName: String
    let client: AWSJSONClient
    let clock: any WallClock

    /// A store on `tableName`. Calls go through `httpClient` (shared with other callers); the clock
    /// decides expiry. Fails only for a malformed configuration; nothing is sent until the first
    /// call (see `createTable()` for a new table).
    package init(
        tableName: String, configuration: AWSConfiguration, httpClient: HTTPClient, clock: any WallClock = SystemClock()
    ) throws(AWSError) {
        guard (3...255).contains(tableName.utf8.count),
            tableName.utf8.allSatisfy({ SigV4Encoding.isUnreserved($0) && $0 != UInt8(ascii: "~") })
        else { throw .configuration("the table name must be 3-255 letters, digits, '_', '-' or '.'") }
        self.tableName = tableName
        self.client = try AWSJSONClient(
            service: "dynamodb", http: httpClient, configuration: configuration,
            contentType: "application/x-amz-json-1.0", targetPrefix: "DynamoDB_20120810")
        self.clock = clock
    }

    package func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        try StoreLimits.check(key)
        let answer = try await call("GetItem", ["Key": DynamoDBItem.key(key), "ConsistentRead": true])
        guard let stored = answer["Item"] else { return nil }
        return live(try decodeItem(stored))
    }

    /// One consistent read of a key no relay writes, for start-up checks: proves that the table exists
    /// and the credentials may read it, and reports a failure as the AWS error it was (with its typed
    /// `refusal`), where the `Store` methods give a `StoreError`.
    package func checkAccess() async throws(AWSError) {
        let key = ItemKey(pk: "RELAY#STARTUP", sk: "CHECK")
        _ = try await client.call(
            "GetItem", ["TableName": .string(tableName), "Key": DynamoDBItem.key(key), "ConsistentRead": true])
    }

    package func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition
    ) async throws(StoreError) -> Item {
        try StoreLimits.check(key)
        _ = try StoreLimits.encode(attributes)  // the size check every store makes
        try StoreLimits.check(expiresAt: expiresAt)
        switch condition {
        case .absent:
            return try await create(key, attributes, expiresAt, version: 1, condition: .absent)
        case .versionEquals(let version):
            return try await create(key, attributes, expiresAt, version: version + 1, condition: condition)
        case .exists:
            return try await replace(key, attributes, expiresAt, orCreate: false)
        case .none:
            // One UpdateItem replaces a live item or creates a missing one. Only an expired item
            // DynamoDB has not deleted yet fails it; a PutItem then starts it again at version 1.
            // Both failing means another writer changed the item in between: try again, a bounded
            // number of times.
            for _ in 0..<8 {
                do throws(StoreError) {
                    return try await replace(key, attributes, expiresAt, orCreate: true)
                } catch .conditionFailed {}
                do throws(StoreError) {
                    return try await create(key, attributes, expiresAt, version: 1, condition: .absent)
                } catch .conditionFailed {}
            }
            throw .unavailable("the item kept changing during an unconditional put")
        }
    }

    package func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError)
        -> Item
    {
        try StoreLimits.check(key)
        guard condition != .absent else { throw .invalid("update cannot require an absent item") }
        guard !update.namesOverlap else { throw .invalid("an update names one attribute twice") }
        if case .set(let seconds) = update.expiresAt { try StoreLimits.check(expiresAt: seconds) }
        var body = updateRequest(key, update, condition: condition)
        body["ReturnValues"] = "ALL_NEW"
        return try decodeItem(try await call("UpdateItem", body)["Attributes"])
    }

    /// The `UpdateItem` parameters of `update` (checked by the caller), without `ReturnValues`.
    func updateRequest(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) -> JSONObject {
        var parts = ExpressionParts()
        var set: [String] = []
        var remove: [String] = []
        for (name, value) in update.set {
            let member = parts.member(name, value: value)
            set.append("\(parts.attributes).\(member.name) = \(member.value!)")
        }
        for name in update.remove { remove.append("\(parts.attributes).\(parts.member(name, value: nil).name)") }
        // A missing member counts from 0; DynamoDB refuses to add to a member that is not a number
        // (ValidationException, `invalid`), as the other stores do.
        for (name, delta) in update.increment {
            let member = parts.member(name, value: .int(delta))
            let path = "\(parts.attributes).\(member.name)"
            let zero = parts.value(":zero", DynamoDBItem.number(0))
            set.append("\(path) = if_not_exists(\(path), \(zero)) + \(member.value!)")
        }
        set.append("\(parts.version) = \(parts.version) + \(parts.value(":one", DynamoDBItem.number(1)))")
        switch update.expiresAt {
        case .unchanged: break
        case .set(let seconds): set.append("\(parts.expiresAt) = \(parts.value(":exp", DynamoDBItem.number(seconds)))")
        case .clear: remove.append(parts.expiresAt)
        }
        let condition = parts.condition(condition == .none ? .exists : condition, now: clock.epochSeconds())!
        var body: JSONObject = [
            "Key": DynamoDBItem.key(key),
            "UpdateExpression": .string(Self.updateExpression(set: set, remove: remove)),
            "ConditionExpression": .string(condition),
        ]
        parts.add(to: &body)
        return body
    }

    package func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        try StoreLimits.check(key)
        guard condition != .absent else { throw .invalid("delete cannot require an absent item") }
        var body = deleteRequest(key, condition: condition)
        body["ReturnValues"] = "ALL_OLD"
        guard let old = try await call("DeleteItem", body)["Attributes"] else { return nil }
        return live(try decodeItem(old))
    }

    /// The `DeleteItem` parameters of a delete, without `ReturnValues`.
    func deleteRequest(_ key: ItemKey, condition: WriteCondition) -> JSONObject {
        var parts = ExpressionParts()
        var body: JSONObject = ["Key": DynamoDBItem.key(key)]
        if let expression = parts.condition(condition, now: clock.epochSeconds()) {
            body["ConditionExpression"] = .string(expression)
        }
        parts.add(to: &body)
        return body
    }

    package func query(_ query: Query) async throws(StoreError) -> QueryPage {
        try StoreLimits.check(query)
        var parts = ExpressionParts()
        var keyCondition = "pk = \(parts.value(":pk", ["S": .string(query.pk)]))"
        if !query.skPrefix.isEmpty {
            keyCondition += " AND begins_with(sk, \(parts.value(":prefix", ["S": .string(query.skPrefix)])))"
        }
        var body: JSONObject = [
            "KeyConditionExpression": .string(keyCondition),
            "FilterExpression": .string(parts.notExpired(now: clock.epochSeconds())),
            "ScanIndexForward": .bool(query.order == .ascending), "Limit": .int(query.limit), "ConsistentRead": true,
        ]
        if let cursor = query.cursor {
            body["ExclusiveStartKey"] = DynamoDBItem.key(ItemKey(pk: query.pk, sk: cursor.lastSortKey))
        }
        parts.add(to: &body)
        let answer = try await call("Query", body)
        guard let stored = answer["Items"]?.arrayValue else { throw .unavailable("DynamoDB Query answer has no Items") }
        var items: [Item] = []
        for value in stored {
            if let item = live(try decodeItem(value)) { items.append(item) }
        }
        let next = answer["LastEvaluatedKey"]?[DynamoDBItem.sortKey]?["S"]?.stringValue
        return QueryPage(items: items, next: next.map(QueryCursor.init(lastSortKey:)))
    }

    /// PutItem of a whole new item at `version` if `condition` (`.absent` or `.versionEquals`) holds.
    private func create(
        _ key: ItemKey, _ attributes: JSONObject, _ expiresAt: Int?, version: Int, condition: WriteCondition
    ) async throws(StoreError) -> Item {
        let item = Item(pk: key.pk, sk: key.sk, attributes: attributes, version: version, expiresAt: expiresAt)
        _ = try await call("PutItem", createRequest(item, condition: condition))
        return item
    }

    /// The `PutItem` parameters that write `item` whole if `condition` holds.
    func createRequest(_ item: Item, condition: WriteCondition) -> JSONObject {
        var parts = ExpressionParts()
        var body: JSONObject = ["Item": DynamoDBItem.encode(item)]
        if let expression = parts.condition(condition, now: clock.epochSeconds()) {
            body["ConditionExpression"] = .string(expression)
        }
        parts.add(to: &body)
        return body
    }

    /// UpdateItem replacing every attribute of a live item and counting its version up; with
    /// `orCreate`, a missing item is created at version 1 by the same request.
    private func replace(_ key: ItemKey, _ attributes: JSONObject, _ expiresAt: Int?, orCreate: Bool)
        async throws(StoreError) -> Item
    {
        var body = replaceRequest(key, attributes, expiresAt, orCreate: orCreate)
        body["ReturnValues"] = "ALL_NEW"
        return try decodeItem(try await call("UpdateItem", body)["Attributes"])
    }

    /// The `UpdateItem` parameters of `replace`, without `ReturnValues`.
    func replaceRequest(_ key: ItemKey, _ attributes: JSONObject, _ expiresAt: Int?, orCreate: Bool) -> JSONObject {
        var parts = ExpressionParts()
        let one = parts.value(":one", DynamoDBItem.number(1))
        var version = parts.version
        if orCreate { version = "if_not_exists(\(version), \(parts.value(":zero", DynamoDBItem.number(0))))" }
        var set = [
            "\(parts.attributes) = \(parts.value(":attributes", ["M": .object(AttributeValue.encode(attributes))]))",
            "\(parts.version) = \(version) + \(one)",
        ]
        var remove: [String] = []
        if let expiresAt {
            set.append("\(parts.expiresAt) = \(parts.value(":exp", DynamoDBItem.number(expiresAt)))")
        } else {
            remove.append(parts.expiresAt)
        }
        // A missing item has no expiry, so "not expired" also lets the request create it.
        let condition = orCreate ? parts.notExpired(now: clock.epochSeconds()) : parts.live(now: clock.epochSeconds())
        var body: JSONObject = [
            "Key": DynamoDBItem.key(key), "UpdateExpression": .string(Self.updateExpression(set: set, remove: remove)),
            "ConditionExpression": .string(condition),
        ]
        parts.add(to: &body)
        return body
    }

    private static func updateExpression(set: [String], remove: [String]) -> String {
        "SET " + set.joined(separator: ", ") + (remove.isEmpty ? "" : " REMOVE " + remove.joined(separator: ", "))
    }

    /// One call on this table, its failures as `StoreError`s.
    func call(_ operation: String, _ body: JSONObject) async throws(StoreError) -> JSONValue {
        var body = body
        body["TableName"] = .string(tableName)
        do {
            return try await client.call(operation, body)
        } catch {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: AWSError) -> StoreError {
        switch error {
        case .service(let type, _) where type == "ConditionalCheckFailedException": .conditionFailed
        case .service(let type, _) where type == "ValidationException":
            .invalid("DynamoDB refused the request as invalid (ValidationException)")
        case .service(let type, let status): .unavailable("DynamoDB refused the request: \(type) (HTTP \(status))")
        case .transactionCanceled(let reasons): transactionError(reasons)
        case .throttled: .throttled
        case .unavailable(let reason): .unavailable("DynamoDB: \(reason)")
        case .configuration(let reason): .unavailable("DynamoDB configuration: \(reason)")
        case .credentials(let reason): .unavailable("DynamoDB: no AWS credentials: \(reason)")
        }
    }

    func decodeItem(_ value: JSONValue?) throws(StoreError) -> Item {
        guard let value, let item = DynamoDBItem.decode(value) else {
            throw .unavailable("DynamoDB returned an item this store did not write")
        }
        return item
    }

    func live(_ item: Item) -> Item? {
        item.isLive(at: clock.epochSeconds()) ? item : nil
    }
}

import RelayJSON
import RelayStore

extension DynamoDBStore {
    /// One `TransactWriteItems` request: an action per write, each with its own
    /// `ConditionExpression` (the same expressions as the single writes), which DynamoDB applies all
    /// or none. A cancelled transaction names each action's reason: a `ConditionalCheckFailed`
    /// becomes `conditionFailed`; a `TransactionConflict` (another write on one of the items was in
    /// flight) is tried again after a backoff and is `throttled` past the retry bound. A
    /// `ClientRequestToken` makes the client's own retries of one request (a 5xx, a throttle)
    /// idempotent: a retry of a transaction that landed answers success and writes nothing again.
    /// DynamoDB allows 100 actions and 4 MB per request (`StoreLimits` checks them first) and
    /// bills each action twice.
    package func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        try StoreWrite.validate(transaction: writes)
        // A `.none` put goes as an update that replaces a live item or creates a missing one; only
        // an expired item DynamoDB has not deleted yet fails it, and it then goes as a put at version
        // 1 if absent, as `put` does. Both failing in turn means another writer changed the item.
        var creating = Set<Int>()
        var attempt = 0
        while attempt < 8 {
            attempt += 1
            let actions = writes.indices.map { action(writes[$0], creating: creating.contains($0)) }
            let token =
                String(UInt64.random(in: 0...UInt64.max), radix: 16) + "-"
                + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            do throws(AWSError) {
                _ = try await client.call(
                    "TransactWriteItems", ["TransactItems": .array(actions), "ClientRequestToken": .string(token)])
                return
            } catch .transactionCanceled(let reasons) {
                let failed = reasons.indices.filter { reasons[$0] == "ConditionalCheckFailed" }
                if !failed.isEmpty {
                    guard failed.allSatisfy({ $0 < writes.count && Self.isUnconditionalPut(writes[$0]) }) else {
                        throw .conditionFailed
                    }
                    creating.formSymmetricDifference(failed)
                    continue
                }
                let other = reasons.filter { $0 != "None" && $0 != "TransactionConflict" }
                guard other.isEmpty else { throw Self.transactionError(other) }
                // A conflict only: back off, then the conditions decide again.
                guard attempt < client.configuration.retry.maximumAttempts else { throw .throttled }
                do {
                    try await Task.sleep(for: client.configuration.retry.delay(beforeRetry: attempt - 1))
                } catch {
                    throw .unavailable("cancelled while backing off")
                }
            } catch {
                throw Self.storeError(error)
            }
        }
        throw .unavailable("the items kept changing during a transaction")
    }

    /// The `TransactItems` entry of one write.
    private func action(_ write: StoreWrite, creating: Bool) -> JSONValue {
        let key = write.key
        var kind: String
        var body: JSONObject
        switch (write.change, write.condition) {
        case (.put(let attributes, let expiresAt), .absent), (.put(let attributes, let expiresAt), .versionEquals):
            var version = 1
            if case .versionEquals(let expected) = write.condition { version = expected + 1 }
            let item = Item(pk: key.pk, sk: key.sk, attributes: attributes, version: version, expiresAt: expiresAt)
            (kind, body) = ("Put", createRequest(item, condition: write.condition))
        case (.put(let attributes, let expiresAt), .none) where creating:
            let item = Item(pk: key.pk, sk: key.sk, attributes: attributes, version: 1, expiresAt: expiresAt)
            (kind, body) = ("Put", createRequest(item, condition: .absent))
        case (.put(let attributes, let expiresAt), let condition):
            (kind, body) = ("Update", replaceRequest(key, attributes, expiresAt, orCreate: condition == .none))
        case (.update(let update), let condition):
            (kind, body) = ("Update", updateRequest(key, update, condition: condition))
        case (.delete, let condition):
            (kind, body) = ("Delete", deleteRequest(key, condition: condition))
        }
        body["TableName"] = .string(tableName)
        return [kind: .object(body)]
    }

    private static func isUnconditionalPut(_ write: StoreWrite) -> Bool {
        guard case .put = write.change else { return false }
        return write.condition == .none
    }

    /// A cancelled transaction's reasons other than `None`, `ConditionalCheckFailed` and
    /// `TransactionConflict`, as the error a single write would have had.
    static func transactionError(_ reasons: [String]) -> StoreError {
        if reasons.contains("ConditionalCheckFailed") { return .conditionFailed }
        if reasons.contains(where: { $0 == "ThrottlingError" || $0 == "ProvisionedThroughputExceeded" }) {
            return .throttled
        }
        if reasons.contains("ValidationError") {
            return .invalid("DynamoDB refused the transaction as invalid (ValidationError)")
        }
        return .unavailable("DynamoDB cancelled the transaction: \(reasons.joined(separator: ", "))")
    }
}

import RelayJSON

extension DynamoDBStore {
    /// Creates the table if it does not exist (on-demand billing, `pk`/`sk` string keys), waits
    /// until it is active, and turns on TTL on `expiresAt`. Returns whether it created the table.
    /// For tests, the demo and `relayctl store migrate`; production tables come from
    /// `deploy/aws/mustdo-relay.cfn.json`, which declares the same schema. Needs
    /// `dynamodb:CreateTable`, `DescribeTable` and `UpdateTimeToLive`, which the relay's own role
    /// does not have.
    @discardableResult
    package func createTable(timeout: Duration = .seconds(60)) async throws(AWSError) -> Bool {
        let name = JSONValue.string(tableName)
        var created = true
        do {
            _ = try await client.call(
                "CreateTable",
                [
                    "TableName": name, "BillingMode": "PAY_PER_REQUEST",
                    "AttributeDefinitions": [
                        ["AttributeName": .string(DynamoDBItem.partitionKey), "AttributeType": "S"],
                        ["AttributeName": .string(DynamoDBItem.sortKey), "AttributeType": "S"],
                    ],
                    "KeySchema": [
                        ["AttributeName": .string(DynamoDBItem.partitionKey), "KeyType": "HASH"],
                        ["AttributeName": .string(DynamoDBItem.sortKey), "KeyType": "RANGE"],
                    ],
                ])
        } catch .service(let type, _) where type == "ResourceInUseException" {
            created = false
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let described = try await client.call("DescribeTable", ["TableName": name])
            if described["Table"]?["TableStatus"]?.stringValue == "ACTIVE" { break }
            guard ContinuousClock.now < deadline else { throw .unavailable("the table did not become active in time") }
            do { try await Task.sleep(for: .milliseconds(200)) } catch { throw .unavailable("cancelled") }
        }
        do {
            _ = try await client.call(
                "UpdateTimeToLive",
                [
                    "TableName": name,
                    "TimeToLiveSpecification": ["AttributeName": .string(DynamoDBItem.expiresAt), "Enabled": true],
                ])
        } catch .service(let type, _) where type == "ValidationException" && !created {
            // TTL is already on (DynamoDB refuses to enable it twice).
        }
        return created
    }
}

import Foundation
import RelayAWS
import RelayHTTP
import RelayStore

/// The store, opened on its own with a message that names the setting and says what to fix
/// (`Backends.open` stops at the first failure, `ConfigurationCheck` runs every step).
extension Backends {
    /// Opens the store and proves it answers. `forAdmin` opens SQLite for a short command beside a
    /// running relay: one reader, no background purge. DynamoDB signs with `awsCredentials`, or
    /// with a credential chain of its own when that is nil.
    package static func openStore(
        _ configuration: Configuration, http: HTTPClient, forAdmin: Bool = false,
        awsCredentials: (any AWSCredentialsProvider)? = nil
    ) async throws(Failure) -> any Store {
        switch configuration.store {
        case .memory:
            return MemoryStore()
        case .sqlite(let path):
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
                do {
                    try FileManager.default.createDirectory(
                        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                } catch {
                    throw Failure(
                        description:
                            "RELAY_SQLITE_PATH: cannot create the directory \(directory) (\(Self.reason(error))); create it, writable by the relay's user, or point RELAY_SQLITE_PATH elsewhere"
                    )
                }
            }
            if !forAdmin, let problem = SQLiteServeLock.acquire(for: path) { throw Failure(description: problem) }
            var settings = SQLiteStore.Configuration(path: path)
            if forAdmin {
                settings.readerCount = 1
                settings.purgeInterval = nil
            }
            do {
                let store = try await SQLiteStore.open(settings)
                _ = try await store.get(ItemKey(pk: "RELAY#STARTUP", sk: "CHECK"))
                return store
            } catch {
                throw Failure(
                    description:
                        "RELAY_SQLITE_PATH: cannot open \(path): \(error); the file and \(directory) must be readable and writable by the relay's user"
                )
            }
        case .dynamoDB(let table, let region, let endpoint):
            let aws: AWSConfiguration
            do {
                aws = try awsConfiguration(
                    configuration, region: region, endpoint: endpoint, credentials: awsCredentials, http: http)
            } catch {
                throw Failure(description: "RELAY_STORE=dynamodb: \(error)")
            }
            let store: DynamoDBStore
            do {
                store = try DynamoDBStore(tableName: table, configuration: aws, httpClient: http)
            } catch {
                throw Failure(description: "RELAY_DYNAMODB_TABLE: \(error)")
            }
            do {
                // One read proves the table answers and the credentials work.
                try await store.checkAccess()
                return store
            } catch {
                throw Failure(description: dynamoDBFailure(error, table: table, region: region, endpoint: endpoint))
            }
        }
    }

    /// What to do about a DynamoDB table that did not answer, decided by the error's kind.
    static func dynamoDBFailure(_ error: AWSError, table: String, region: String, endpoint: String?) -> String {
        let place = endpoint ?? "https://dynamodb.\(region).amazonaws.com"
        if case .credentials = error {
            return "RELAY_DYNAMODB_TABLE: cannot read table \(table): \(error)"
        }
        switch error.refusal {
        case .resourceNotFound:
            return
                "RELAY_DYNAMODB_TABLE: the table \(table) does not exist at \(place); create it (deploy/aws/mustdo-relay.cfn.json, or `mustdo-relayctl store migrate`)"
        case .credentialsRejected, .accessDenied:
            return
                "RELAY_DYNAMODB_TABLE: DynamoDB refused the credentials for table \(table) (\(error)); check where the credentials come from (the aws.credentials log line, docs/operations.md \"AWS credentials\") and the role's permissions"
        case nil:
            return
                "RELAY_DYNAMODB_TABLE: cannot reach table \(table) at \(place): \(error); check RELAY_DYNAMODB_ENDPOINT, RELAY_AWS_REGION and the network"
        }
    }

    /// A file-system error without Foundation's long domain text.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

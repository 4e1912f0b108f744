import Foundation
import RelayAWS
import RelayCloudKit
import RelayCrypto
import RelayHTTP
import RelayOAuth
import RelayStore
import RelayVault

/// The relay's I/O backends, opened from the configuration: store, key service, vault, the shared
/// outbound HTTP client and the CloudKit client. Opening checks what can be checked at start-up
/// (secret files, key file mode, store reachable) and fails with a message that says what to fix.
public struct Backends: Sendable {
    /// The single-table store.
    public let store: any Store
    /// Wraps per-grant data keys.
    public let keyService: any KeyService
    /// Seals CloudKit tokens, bound to OAuth tokens.
    public let vault: Vault
    /// Outbound HTTP (CloudKit, AWS, client metadata documents).
    public let http: HTTPClient
    /// CloudKit Web Services.
    public let cloudKit: CloudKitClient
    /// Token-hash peppers, newest last.
    public let peppers: [(version: Int, key: SymmetricKey)]
    /// The key of the HMAC user ID.
    public let userIDKey: SymmetricKey

    /// The authorization server's secrets: the newest pepper hashes, the one before it is still tried.
    public var oauthSecrets: OAuthSecrets {
        let current = peppers[peppers.count - 1]
        let previous = peppers.count > 1 ? peppers[peppers.count - 2] : nil
        return OAuthSecrets(
            currentPepper: .init(version: current.version, key: current.key),
            previousPepper: previous.map { .init(version: $0.version, key: $0.key) }, userIDKey: userIDKey)
    }

    /// A start-up failure, phrased as what to fix.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens everything `configuration` names.
    public static func open(_ configuration: Configuration) async throws(Failure) -> Backends {
        let peppers: [(version: Int, key: SymmetricKey)]
        let userIDKey: SymmetricKey
        let bindingSecret: SymmetricKey
        let apiToken: String
        do {
            peppers = try SecretFiles.readVersionedKeys(configuration.secrets.pepperFile)
            userIDKey = try SecretFiles.readKey(configuration.secrets.userIDKeyFile)
            bindingSecret = try SecretFiles.readKey(configuration.secrets.bindingSecretFile)
            apiToken = try SecretFiles.readText(configuration.secrets.cloudKitAPITokenFile)
        } catch {
            throw Failure(description: error.description)
        }
        let http: HTTPClient
        do {
            http = try HTTPClient(
                configuration: HTTPClientConfiguration(
                    connectTimeout: .milliseconds(Int(configuration.cloudKit.connectTimeoutSeconds * 1000)),
                    timeout: .milliseconds(Int(configuration.cloudKit.timeoutSeconds * 1000)),
                    caFile: configuration.cloudKit.caFile))
        } catch {
            throw Failure(description: "cannot start the HTTP client: \(error)")
        }
        let store = try await openStore(configuration, http: http)
        let keyService = try openKeyService(configuration, http: http)
        var vaultConfiguration = Vault.Configuration()
        vaultConfiguration.cacheTTL = .seconds(configuration.vaultCacheTTL)
        vaultConfiguration.cacheCapacity = configuration.vaultCacheSize
        let vault = Vault(keyService: keyService, bindingSecret: bindingSecret, configuration: vaultConfiguration)
        let cloudKit = CloudKitClient(
            configuration: CloudKitConfiguration(
                baseURL: configuration.cloudKit.baseURL,
                container: configuration.cloudKit.container,
                environment: CloudKitEnvironment(rawValue: configuration.cloudKit.environment) ?? .production,
                apiToken: CloudKitAPIToken(apiToken),
                zoneName: configuration.cloudKit.zone,
                connectTimeout: .milliseconds(Int(configuration.cloudKit.connectTimeoutSeconds * 1000)),
                timeout: .milliseconds(Int(configuration.cloudKit.timeoutSeconds * 1000))),
            http: http)
        return Backends(
            store: store, keyService: keyService, vault: vault, http: http, cloudKit: cloudKit, peppers: peppers,
            userIDKey: userIDKey)
    }

    private static func openStore(_ configuration: Configuration, http: HTTPClient) async throws(Failure) -> any Store {
        switch configuration.store {
        case .memory:
            return MemoryStore()
        case .sqlite(let path):
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            do {
                return try await SQLiteStore.open(path: path)
            } catch {
                throw Failure(description: "RELAY_SQLITE_PATH: cannot open \(path): \(error)")
            }
        case .dynamoDB(let table, let region, let endpoint):
            do {
                let aws = AWSConfiguration(
                    region: region, credentials: try AWSCredentials.fromEnvironment(), endpoint: endpoint)
                let store = try DynamoDBStore(tableName: table, configuration: aws, httpClient: http)
                // One read proves the table answers and the credentials work.
                _ = try await store.get(ItemKey(pk: "RELAY#STARTUP", sk: "CHECK"))
                return store
            } catch let error as AWSError {
                throw Failure(description: "RELAY_DYNAMODB_TABLE: \(error)")
            } catch {
                throw Failure(description: "RELAY_DYNAMODB_TABLE: the table \(table) did not answer: \(error)")
            }
        }
    }

    private static func openKeyService(_ configuration: Configuration, http: HTTPClient) throws(Failure)
        -> any KeyService
    {
        switch configuration.keyService {
        case .local(let keyFile):
            do {
                return try LocalKeyService(keyFile: keyFile)
            } catch {
                throw Failure(description: "RELAY_LOCAL_KEY_FILE: \(error)")
            }
        case .awsKMS(let keyID, let region, let endpoint):
            do {
                let aws = AWSConfiguration(
                    region: region, credentials: try AWSCredentials.fromEnvironment(), endpoint: endpoint)
                return try KMSKeyService(keyID: keyID, configuration: aws, httpClient: http)
            } catch {
                throw Failure(description: "RELAY_KMS_KEY_ID: \(error)")
            }
        }
    }
}

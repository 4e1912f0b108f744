import Foundation
import RelayCloudKit
import RelayCrypto
import RelayHTTP
import RelayOAuth
import RelayStore
import RelayVault

/// The relay's I/O backends, opened from the configuration: store, key service, vault, the shared
/// outbound HTTP client and the CloudKit client. Opening checks what can be checked at start-up
/// (secret files, key file mode, store reachable) and fails with a message that says what to fix.
/// The store and the key service are wrapped in timing decorators that feed `metrics`.
package struct Backends: Sendable {
    /// The single-table store (timed).
    package let store: any Store
    /// Wraps per-grant data keys (timed).
    package let keyService: any KeyService
    /// Seals CloudKit tokens, bound to OAuth tokens.
    package let vault: Vault
    /// Outbound HTTP (CloudKit, AWS, client metadata documents).
    package let http: HTTPClient
    /// CloudKit Web Services.
    package let cloudKit: CloudKitClient
    /// Token-hash peppers, newest last.
    package let peppers: [(version: Int, key: SymmetricKey)]
    /// The key of the HMAC user ID.
    package let userIDKey: SymmetricKey
    /// The process's metrics; `buildApplication` adds its own to them.
    package let metrics: Metrics

    /// Closes the store once nothing uses it any more (after the drain): a SQLite store finishes
    /// its queued writes and checkpoints its WAL into the database file, so a stopped relay leaves
    /// one self-contained file behind (a copy or backup of it alone then has every save). Other
    /// stores hold nothing to flush.
    package func close() async {
        let base = (store as? TimedStore)?.base ?? store
        await (base as? SQLiteStore)?.close()
    }

    /// The authorization server's secrets: the newest pepper hashes, the one before it is still tried.
    package var oauthSecrets: OAuthSecrets { Self.oauthSecrets(peppers: peppers, userIDKey: userIDKey) }

    /// A start-up failure, phrased as what to fix.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Opens everything `configuration` names, stopping at the first problem (`ConfigurationCheck`
    /// collects them all).
    /// `logger` receives the AWS credential events (which source, refreshes, failed refreshes).
    package static func open(
        _ configuration: Configuration, metrics: Metrics = Metrics(), logger: Logger? = nil
    ) async throws(Failure) -> Backends {
        let peppers = try readPeppers(configuration)
        let userIDKey = try readUserIDKey(configuration)
        let bindingSecret = try readBindingSecret(configuration)
        let apiToken = try readAPIToken(configuration)
        let http = try openHTTPClient(configuration)
        let aws = try openAWSCredentials(configuration, http: http, logger: logger, metrics: metrics)
        let store = TimedStore(try await openStore(configuration, http: http, awsCredentials: aws), metrics: metrics)
        let keyService = TimedKeyService(
            try openKeyService(configuration, http: http, awsCredentials: aws), metrics: metrics)
        let vault = Vault(keyService: keyService, bindingSecret: bindingSecret, configuration: configuration.vault)
        let cloudKit = cloudKitClient(configuration, apiToken: apiToken, http: http)
        return Backends(
            store: store, keyService: keyService, vault: vault, http: http, cloudKit: cloudKit, peppers: peppers,
            userIDKey: userIDKey, metrics: metrics)
    }

    /// The CloudKit client the settings describe (`serve` and `mustdo-relayctl cloudkit check` use the same one).
    package static func openHTTPClient(_ configuration: Configuration) throws(Failure) -> HTTPClient {
        do {
            return try HTTPClient(
                configuration: HTTPClientConfiguration(
                    connectTimeout: configuration.cloudKit.connectTimeout,
                    timeout: configuration.cloudKit.timeout,
                    caFile: configuration.cloudKit.caFile))
        } catch {
            throw Failure(description: "cannot start the HTTP client: \(error) (check RELAY_CLOUDKIT_CA_FILE)")
        }
    }

    package static func cloudKitClient(_ configuration: Configuration, apiToken: String, http: HTTPClient)
        -> CloudKitClient
    {
        CloudKitClient(
            configuration: CloudKitConfiguration(
                baseURL: configuration.cloudKit.baseURL,
                container: configuration.cloudKit.container,
                environment: configuration.cloudKit.environment,
                apiToken: CloudKitAPIToken(apiToken),
                zoneName: configuration.cloudKit.zone,
                connectTimeout: configuration.cloudKit.connectTimeout,
                timeout: configuration.cloudKit.timeout,
                lateAnswerWait: lateAnswerWait),
            http: http)
    }

    /// How long a CloudKit call past `RELAY_CLOUDKIT_TIMEOUT` keeps listening for a late answer whose
    /// rotated token must be saved (`LateAnswer`; docs/operations.md, "A grant ends only when its
    /// newest token is dead"). Shorter than the default `RELAY_CLOUDKIT_SESSION_END_GRACE` (30 s with
    /// DynamoDB), so another instance waiting for that token sees it saved before the grant may end.
    static let lateAnswerWait = Duration.seconds(25)

    static func oauthSecrets(peppers: [(version: Int, key: SymmetricKey)], userIDKey: SymmetricKey) -> OAuthSecrets {
        let current = peppers[peppers.count - 1]
        let previous = peppers.count > 1 ? peppers[peppers.count - 2] : nil
        return OAuthSecrets(
            currentPepper: .init(version: current.version, key: current.key),
            previousPepper: previous.map { .init(version: $0.version, key: $0.key) }, userIDKey: userIDKey)
    }
}

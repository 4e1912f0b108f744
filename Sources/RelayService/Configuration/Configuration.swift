import Foundation
import RelayCloudKit
import RelayHTTP
import RelayOAuth
import RelayVault

/// Every setting of the relay, read from `RELAY_*` variables (env file first, then the process
/// environment, which wins). `config/relay.env.example` documents each one with its default.
package struct Configuration: Sendable {
    /// `RELAY_ISSUER`: the public base URL (`https://relay.example.com`). Every published URL
    /// starts with it. Plain http is accepted only for a loopback host.
    package var issuer = ""
    /// The HTTP server: where it listens (`RELAY_HOST`, `RELAY_PORT`, behind nginx or Caddy) and
    /// its `RELAY_HTTP_*` settings.
    package var server = ServerConfiguration()
    /// Whether `RELAY_HTTP_MAX_CONNECTIONS` was set: then a value the descriptor limit cannot hold
    /// stops the start; left to its default, it is lowered to fit (`ConnectionBudget`).
    package var maxConnectionsIsExplicit = false
    /// `RELAY_HOST_ALIASES`: Host header values `/mcp` accepts besides the issuer's host (others → 421).
    package var hostAliases: [String] = []
    /// `RELAY_ALLOWED_ORIGINS`: browser origins allowed to call `/mcp` (absent Origin is always allowed).
    package var allowedOrigins: [String] = []
    /// `RELAY_METRICS_HOST` / `RELAY_METRICS_PORT` (`off` disables): the separate `/metrics` listener.
    package var metricsHost = "127.0.0.1"
    package var metricsPort: Int? = 9464
    /// `RELAY_LOG_LEVEL`: debug, info, warning or error.
    package var logLevel: LogEvent.Level = .info
    /// `RELAY_DATA_DIRECTORY`: where the SQLite file and (by default) the secrets live.
    package var dataDirectory = "/var/lib/mustdo-relay"
    /// `RELAY_STORE`: memory, sqlite or dynamodb.
    package var store = StoreSettings.sqlite(path: "/var/lib/mustdo-relay/relay.sqlite")
    /// `RELAY_KEY_SERVICE`: local or aws-kms.
    package var keyService = KeyServiceSettings.local(keyFile: "/var/lib/mustdo-relay/secrets/master-keys")
    /// Secret files (`RELAY_SECRETS_DIRECTORY` and the `RELAY_*_FILE` variables).
    package var secrets = SecretSettings(directory: "/var/lib/mustdo-relay/secrets")
    /// `RELAY_CLOUDKIT_*`.
    package var cloudKit = CloudKitSettings()
    /// `RELAY_OAUTH_*`.
    package var oauth = OAuthSettings()
    /// The data-key vault: `RELAY_VAULT_CACHE_TTL` seconds (0 disables) as `cacheTTL` and
    /// `RELAY_VAULT_CACHE_SIZE` as `cacheCapacity`.
    package var vault = Vault.Configuration()
    /// `RELAY_METRICS_GRANTS_INTERVAL`: the time between counts of active grants for the
    /// `relay_oauth_active_grants` gauge (0 disables; default 60 s, or 0 with DynamoDB).
    package var grantsGaugeInterval: Duration = .seconds(60)
    /// `RELAY_LOCAL_BOUNCE_PORTS`: the ports `/local/callback/<port>` may send a browser on to (on
    /// `http://localhost`), for `mustdo-relay local`'s sign-in; empty (the default) turns the bounce off.
    package var localBouncePorts: [ClosedRange<Int>] = []
    /// `RELAY_MCP_TOOL_CALLS_PER_MINUTE`: tool calls one connection (grant) may make per minute,
    /// each call of a batch counted on its own (0 disables the limit).
    package var toolCallsPerMinute = 300
    /// The `AWS_*` variables (file, then environment): the AWS credential chain reads them.
    package var awsVariables: [String: String] = [:]
    /// `RELAY_HTTP_CLIENT` was set. It chose between libcurl and the relay's own client until
    /// libcurl became the one upstream client; an env file that still sets it starts as before,
    /// with a warning at start-up (`config.relay_http_client_ignored`) instead of the refusal an unknown name gets.
    package var retiredHTTPClientSettingSet = false

    /// Defaults (not a usable service: `issuer` and the CloudKit container must be set).
    package init() {}

    /// A problem with one setting, phrased as what to fix.
    package struct Problem: Error, CustomStringConvertible, Equatable {
        package let setting: String
        package let message: String
        package var description: String { "\(setting): \(message)" }
    }

    /// Reads the settings from `variables`, collecting every problem rather than stopping at the
    /// first; a `RELAY_*` variable that is not a setting is a problem too (a typo would otherwise
    /// fall back to a default silently). File-level checks (secrets present, modes, the store) are
    /// `ConfigurationCheck`'s.
    package static func load(from variables: [String: String]) throws(ConfigurationErrors) -> Configuration {
        var reader = SettingsReader(variables)
        var configuration = read(&reader)
        configuration.awsVariables = variables.filter { $0.key.hasPrefix("AWS_") }
        reader.refuseUnknownNames()
        if !reader.problems.isEmpty { throw ConfigurationErrors(problems: reader.problems) }
        return configuration
    }

    /// What an operator gets with no setting at all: every default exactly as reading the `RELAY_*`
    /// variables applies it, the one place the defaults are written. The demo starts from it, so
    /// what a newcomer measures (connection caps, deadlines, budgets) is what production does.
    package static var defaults: Configuration {
        var reader = SettingsReader([:])
        return read(&reader)
    }

    /// Every variable the configuration reads (the `RELAY_*` settings and the AWS region
    /// variables), sorted: what `config/relay.env.example` must list.
    package static let settingNames: [String] = {
        var reader = SettingsReader([:])
        _ = read(&reader)
        return reader.names.sorted()
    }()

    private static func read(_ reader: inout SettingsReader) -> Configuration {
        var configuration = Configuration()
        configuration.readListener(&reader)
        configuration.readStorage(&reader)
        configuration.readCloudKit(&reader)
        configuration.readOAuth(&reader)
        configuration.toolCallsPerMinute = reader.integer(
            "RELAY_MCP_TOOL_CALLS_PER_MINUTE", default: 300, range: 0...1_000_000)
        return configuration
    }

    /// Reads `--config FILE` (if given) and the process environment; the environment wins. AWS
    /// keys in the file are refused (`awsSecretsInFile`).
    package static func load(configFile: String?, environment: [String: String]) throws -> Configuration {
        let file = try configFile.map(EnvFile.load) ?? [:]
        var variables = file
        for (key, value) in environment
        where key.hasPrefix("RELAY_") || key.hasPrefix("AWS_") || key == "CREDENTIALS_DIRECTORY" {
            variables[key] = value
        }
        let refused = awsSecretsInFile(file)
        let configuration: Configuration
        do throws(ConfigurationErrors) {
            configuration = try load(from: variables)
        } catch {
            throw ConfigurationErrors(problems: refused + error.problems)
        }
        if !refused.isEmpty { throw ConfigurationErrors(problems: refused) }
        return configuration
    }

    /// AWS secrets are never values in the config file, like every other secret of the relay (the
    /// file is group-readable, copied around and shown in reviews). The other `AWS_*` variables
    /// (region, role ARN, token file, profile, endpoints) work from the file.
    static func awsSecretsInFile(_ file: [String: String]) -> [Problem] {
        let secrets = [
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        ]
        return secrets.filter { !(file[$0] ?? "").isEmpty }.map {
            Problem(
                setting: $0,
                message:
                    "AWS credentials are not read from the config file; give the relay a role (EC2 instance profile, ECS task role, EKS service account) or put the keys in a credentials file (AWS_SHARED_CREDENTIALS_FILE, mode 0600); docs/operations.md, \"AWS credentials\""
            )
        }
    }

    private mutating func readListener(_ reader: inout SettingsReader) {
        issuer = reader.string("RELAY_ISSUER", default: "")
        var server = ServerConfiguration(
            host: reader.string("RELAY_HOST", default: "127.0.0.1"),
            port: reader.integer("RELAY_PORT", default: 8080, range: 0...65535))
        server.eventLoops = reader.integer("RELAY_HTTP_EVENT_LOOPS", default: server.eventLoops, range: 1...256)
        server.limits.maxRequestLineBytes = reader.integer(
            "RELAY_HTTP_MAX_REQUEST_LINE_BYTES", default: 8192, range: 256...1_048_576)
        server.limits.maxHeaderBytes = reader.integer(
            "RELAY_HTTP_MAX_HEADER_BYTES", default: 16384, range: 1024...1_048_576)
        server.limits.maxHeaderCount = reader.integer("RELAY_HTTP_MAX_HEADER_COUNT", default: 100, range: 8...10_000)
        server.limits.maxBodyBytes = reader.integer(
            "RELAY_HTTP_MAX_BODY_BYTES", default: 1_048_576, range: 1024...67_108_864)
        server.headerReadTimeout = reader.duration("RELAY_HTTP_HEADER_TIMEOUT", default: .seconds(10))
        server.bodyIdleTimeout = reader.duration("RELAY_HTTP_BODY_IDLE_TIMEOUT", default: .seconds(10))
        server.bodyTimeout = reader.duration("RELAY_HTTP_BODY_TIMEOUT", default: .seconds(120))
        server.bodyMinimumBytesPerSecond = reader.integer("RELAY_HTTP_BODY_MIN_RATE", default: 500, range: 0...1 << 30)
        server.keepAliveTimeout = reader.duration("RELAY_HTTP_KEEPALIVE_TIMEOUT", default: .seconds(60))
        server.writeTimeout = reader.duration("RELAY_HTTP_WRITE_TIMEOUT", default: .seconds(30))
        server.drainTimeout = reader.duration("RELAY_HTTP_DRAIN_TIMEOUT", default: .seconds(30))
        maxConnectionsIsExplicit = reader.raw("RELAY_HTTP_MAX_CONNECTIONS") != nil
        server.maxConnections = reader.integer("RELAY_HTTP_MAX_CONNECTIONS", default: 20_000, range: 1...1_000_000)
        server.maxConnectionsPerAddress = reader.integer(
            "RELAY_HTTP_MAX_CONNECTIONS_PER_ADDRESS", default: 256, range: 0...1_000_000)
        server.trustedProxies = TrustedProxies(reader.addressRanges("RELAY_TRUSTED_PROXIES"))
        self.server = server
        hostAliases = reader.list("RELAY_HOST_ALIASES")
        allowedOrigins = reader.list("RELAY_ALLOWED_ORIGINS")
        metricsHost = reader.string("RELAY_METRICS_HOST", default: "127.0.0.1")
        metricsPort =
            reader.raw("RELAY_METRICS_PORT") == "off"
            ? nil : reader.integer("RELAY_METRICS_PORT", default: 9464, range: 0...65535)
        logLevel = reader.choice(
            "RELAY_LOG_LEVEL", default: .info,
            choices: ["debug": .debug, "info": .info, "warning": .warning, "error": .error])
        if let ports = LocalBounce.parsePorts(reader.list("RELAY_LOCAL_BOUNCE_PORTS")) {
            localBouncePorts = ports
        } else {
            reader.problem(
                "RELAY_LOCAL_BOUNCE_PORTS",
                "must be ports or low-high ranges within 1024-65535, comma-separated (e.g. 51234), or empty for off")
        }
    }

    private mutating func readStorage(_ reader: inout SettingsReader) {
        dataDirectory = reader.string("RELAY_DATA_DIRECTORY", default: "/var/lib/mustdo-relay")
        // Under systemd with LoadCredential= (deploy/systemd), the secrets are the unit's credentials.
        let credentials = reader.raw("CREDENTIALS_DIRECTORY")
        let secretsDirectory = reader.string(
            "RELAY_SECRETS_DIRECTORY", default: credentials ?? dataDirectory + "/secrets")
        let defaults = SecretSettings(directory: secretsDirectory)
        secrets.pepperFile = reader.string("RELAY_PEPPER_FILE", default: defaults.pepperFile)
        secrets.userIDKeyFile = reader.string("RELAY_USER_ID_KEY_FILE", default: defaults.userIDKeyFile)
        secrets.bindingSecretFile = reader.string("RELAY_BINDING_SECRET_FILE", default: defaults.bindingSecretFile)
        secrets.cloudKitAPITokenFile = reader.string(
            "RELAY_CLOUDKIT_API_TOKEN_FILE", default: defaults.cloudKitAPITokenFile)

        // Every name is read whatever the backends, so `settingNames` is complete.
        let regions = [reader.raw("RELAY_AWS_REGION"), reader.raw("AWS_REGION"), reader.raw("AWS_DEFAULT_REGION")]
        let region = regions.compactMap { $0 }.first
        let sqlitePath = reader.string("RELAY_SQLITE_PATH", default: dataDirectory + "/relay.sqlite")
        let table = reader.raw("RELAY_DYNAMODB_TABLE")
        let dynamoDBEndpoint = reader.url("RELAY_DYNAMODB_ENDPOINT")
        let keyFile = reader.string("RELAY_LOCAL_KEY_FILE", default: secretsDirectory + "/master-keys")
        let kmsKeyID = reader.raw("RELAY_KMS_KEY_ID")
        let kmsEndpoint = reader.url("RELAY_KMS_ENDPOINT")
        switch reader.choice(
            "RELAY_STORE", default: "sqlite", choices: ["sqlite": "sqlite", "dynamodb": "dynamodb", "memory": "memory"])
        {
        case "memory":
            store = .memory
        case "dynamodb":
            let table = table ?? reader.missing("RELAY_DYNAMODB_TABLE", because: "RELAY_STORE is dynamodb")
            let storeRegion = region ?? reader.missing("RELAY_AWS_REGION", because: "RELAY_STORE is dynamodb")
            store = .dynamoDB(table: table, region: storeRegion, endpoint: dynamoDBEndpoint)
        default:
            store = .sqlite(path: sqlitePath)
        }
        switch reader.choice("RELAY_KEY_SERVICE", default: "local", choices: ["local": "local", "aws-kms": "aws-kms"]) {
        case "aws-kms":
            let keyID = kmsKeyID ?? reader.missing("RELAY_KMS_KEY_ID", because: "RELAY_KEY_SERVICE is aws-kms")
            let kmsRegion = region ?? reader.missing("RELAY_AWS_REGION", because: "RELAY_KEY_SERVICE is aws-kms")
            keyService = .awsKMS(keyID: keyID, region: kmsRegion, endpoint: kmsEndpoint)
        default:
            keyService = .local(keyFile: keyFile)
        }
        vault.cacheTTL = reader.seconds("RELAY_VAULT_CACHE_TTL", default: .seconds(300), range: 0...300)
        vault.cacheCapacity = reader.integer("RELAY_VAULT_CACHE_SIZE", default: 10_000, range: 0...1_000_000)
        // Counting grants scans the store: cheap for SQLite, a whole-table Scan on DynamoDB (off there
        // unless asked for).
        let isDynamoDB: Bool = if case .dynamoDB = store { true } else { false }
        grantsGaugeInterval = reader.seconds(
            "RELAY_METRICS_GRANTS_INTERVAL", default: .seconds(isDynamoDB ? 0 : 60), range: 0...86_400)
        // Instances sharing a table may hold a newer CloudKit token than the store (an outage, a
        // partition): a refused stored token ends its grant only after this grace. One SQLite file
        // has one process (`SQLiteStore`'s lock), which holds every token itself: no grace needed.
        cloudKit.sessionEndGrace = reader.seconds(
            "RELAY_CLOUDKIT_SESSION_END_GRACE", default: .seconds(isDynamoDB ? 30 : 0), range: 0...3600)
    }

    private mutating func readCloudKit(_ reader: inout SettingsReader) {
        cloudKit.baseURL = reader.url("RELAY_CLOUDKIT_BASE_URL") ?? cloudKit.baseURL
        cloudKit.container = reader.string("RELAY_CLOUDKIT_CONTAINER", default: "")
        // An unknown name is a problem, never production by default: a relay pointed at the wrong
        // environment answers every person with records it cannot find.
        cloudKit.environment = reader.choice(
            "RELAY_CLOUDKIT_ENVIRONMENT", default: .production,
            choices: ["production": CloudKitEnvironment.production, "development": .development])
        cloudKit.zone = reader.string("RELAY_CLOUDKIT_ZONE", default: "MustDo")
        cloudKit.caFile = reader.raw("RELAY_CLOUDKIT_CA_FILE")
        cloudKit.connectTimeout = reader.duration("RELAY_CLOUDKIT_CONNECT_TIMEOUT", default: .seconds(5))
        cloudKit.timeout = reader.duration("RELAY_CLOUDKIT_TIMEOUT", default: .seconds(15))
        retiredHTTPClientSettingSet = reader.raw("RELAY_HTTP_CLIENT") != nil
    }

    /// The OAuth settings; every default comes from `OAuthSettings()` (and through it from RelayOAuth).
    private mutating func readOAuth(_ reader: inout SettingsReader) {
        let defaults = OAuthSettings()
        let list = reader.list("RELAY_OAUTH_REDIRECT_ALLOWLIST")
        oauth.redirectAllowlist = list.isEmpty ? nil : list
        if reader.raw("RELAY_OAUTH_REGISTRATION").map({ !$0.isEmpty }) == true {
            oauth.registrationMode = reader.choice(
                "RELAY_OAUTH_REGISTRATION", default: RegistrationMode.open,
                choices: ["open": RegistrationMode.open, "allowlist": .allowlist])
        }
        oauth.lifetimes.accessToken = reader.seconds(
            "RELAY_OAUTH_ACCESS_TOKEN_TTL", default: defaults.lifetimes.accessToken, range: 60...86400)
        oauth.lifetimes.refreshToken = reader.seconds(
            "RELAY_OAUTH_REFRESH_TOKEN_TTL", default: defaults.lifetimes.refreshToken, range: 300...365 * 86400)
        oauth.lifetimes.grant = reader.seconds(
            "RELAY_OAUTH_GRANT_LIFETIME", default: defaults.lifetimes.grant, range: 300...730 * 86400)
        oauth.lifetimes.code = reader.seconds("RELAY_OAUTH_CODE_TTL", default: defaults.lifetimes.code, range: 10...600)
        oauth.lifetimes.pendingRequest = reader.seconds(
            "RELAY_OAUTH_PENDING_TTL", default: defaults.lifetimes.pendingRequest, range: 30...3600)
        oauth.lifetimes.consentWindow = reader.seconds(
            "RELAY_OAUTH_CONSENT_WINDOW", default: defaults.lifetimes.consentWindow, range: 1...3600)
        oauth.lifetimes.refreshGrace = reader.seconds(
            "RELAY_OAUTH_REFRESH_GRACE", default: defaults.lifetimes.refreshGrace, range: 0...600)
        oauth.lifetimes.unusedClient = reader.seconds(
            "RELAY_OAUTH_UNUSED_CLIENT_TTL", default: defaults.lifetimes.unusedClient, range: 3600...365 * 86400)
        oauth.registrationsPerHour = reader.integer(
            "RELAY_OAUTH_REGISTRATIONS_PER_HOUR", default: defaults.registrationsPerHour, range: 1...100_000)
        oauth.maximumUnusedClients = reader.integer(
            "RELAY_OAUTH_MAX_UNUSED_CLIENTS", default: defaults.maximumUnusedClients, range: 100...100_000_000)
        oauth.tokenFailuresPerMinute = reader.integer(
            "RELAY_OAUTH_TOKEN_FAILURES_PER_MINUTE", default: defaults.tokenFailuresPerMinute, range: 0...1_000_000)
        oauth.lifetimes.metadataDocumentStaleIfError = reader.seconds(
            "RELAY_OAUTH_METADATA_STALE_IF_ERROR", default: defaults.lifetimes.metadataDocumentStaleIfError,
            range: 0...7 * 86400)
        oauth.validationCacheTTL = reader.seconds(
            "RELAY_OAUTH_VALIDATION_CACHE_TTL", default: defaults.validationCacheTTL, range: 0...60)
        oauth.metadataDocuments = reader.boolean("RELAY_OAUTH_METADATA_DOCUMENTS", default: defaults.metadataDocuments)
        oauth.allowLoopbackMetadataDocuments = reader.boolean(
            "RELAY_OAUTH_ALLOW_LOOPBACK_METADATA_DOCUMENTS", default: defaults.allowLoopbackMetadataDocuments)
    }
}

/// Every problem found in one configuration.
package struct ConfigurationErrors: Error, CustomStringConvertible {
    package let problems: [Configuration.Problem]
    package var description: String { problems.map { "  - \($0)" }.joined(separator: "\n") }
}

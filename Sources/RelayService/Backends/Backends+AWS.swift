import Foundation
import RelayAWS
import RelayHTTP

/// The AWS credentials of the relay's AWS backends: one credential chain per process, shared by
/// the DynamoDB store and the KMS key service, so temporary credentials are fetched and renewed
/// once for both. The chain reads the `AWS_*` variables of the configuration (config file, then
/// environment).
extension Backends {
    /// The region of whichever backend is on AWS, nil when neither is.
    static func awsRegion(_ configuration: Configuration) -> String? {
        if case .dynamoDB(_, let region, _) = configuration.store { return region }
        if case .awsKMS(_, let region, _) = configuration.keyService { return region }
        return nil
    }

    /// The credential chain for `configuration`, or nil when no backend is on AWS. `logger` and
    /// `metrics` receive refreshes and failed refreshes (a long-running relay); short commands
    /// pass neither.
    static func openAWSCredentials(
        _ configuration: Configuration, http: HTTPClient, logger: Logger? = nil, metrics: Metrics? = nil
    ) throws(Failure) -> (any AWSCredentialsProvider)? {
        guard let region = awsRegion(configuration) else { return nil }
        if let metrics { _ = refreshes(metrics) }
        let options = AWSCredentialChain.Options(region: region) { event in
            Self.record(event, logger: logger, metrics: metrics)
        }
        let resolved: (source: AWSCredentialSourceKind, provider: any AWSCredentialsProvider)
        do {
            resolved = try AWSCredentialChain.resolve(
                environment: configuration.awsVariables, http: http, options: options)
        } catch {
            throw Failure(description: "\(error); docs/operations.md, \"AWS credentials\", lists the sources")
        }
        if let refreshing = resolved.provider as? RefreshingCredentialsProvider {
            metrics?.declareGauge(
                "relay_aws_credentials_expiry_seconds",
                help: "Seconds until the current temporary AWS credentials expire (renewed 15 minutes ahead)."
            ) {
                refreshing.expiration.map { $0 - Date().timeIntervalSince1970 } ?? 0
            }
        }
        var event = LogEvent(.info, "aws.credentials")
        event.outcome = StaticOrRoute(name: resolved.source.rawValue)
        logger?.log(event)
        return resolved.provider
    }

    /// Fetches of temporary credentials, by source and outcome.
    static func refreshes(_ metrics: Metrics) -> Metrics.Counter {
        metrics.declareCounter(
            "relay_aws_credential_refreshes_total",
            help: "Fetches of temporary AWS credentials by source and outcome (ok, failed).",
            labels: ["source", "outcome"])
    }

    /// One log line and one counter per refresh: info when it worked, a warning when it failed
    /// while the current credentials still work, an error when nothing usable is left.
    static func record(_ event: AWSCredentialEvent, logger: Logger?, metrics: Metrics?) {
        switch event {
        case .refreshed(let source, let expiresIn):
            metrics.map(refreshes)?.increment(source.rawValue, "ok")
            var line = LogEvent(.info, "aws.credentials_refreshed")
            line.outcome = StaticOrRoute(name: source.rawValue)
            line.count = expiresIn
            logger?.log(line)
        case .refreshFailed(let source, let error, let validFor, _):
            metrics.map(refreshes)?.increment(source.rawValue, "failed")
            var line = LogEvent(validFor == nil ? .error : .warning, "aws.credentials_refresh_failed")
            line.outcome = StaticOrRoute(name: source.rawValue)
            line.count = validFor ?? 0
            line.reason = LogReason(error)
            logger?.log(line)
        }
    }

    /// The configuration for one AWS service: the shared credentials, the region, the endpoint.
    package static func awsConfiguration(
        _ configuration: Configuration, region: String, endpoint: String?, credentials: (any AWSCredentialsProvider)?,
        http: HTTPClient
    ) throws(Failure) -> AWSConfiguration {
        var provider = credentials
        if provider == nil { provider = try openAWSCredentials(configuration, http: http) }
        guard let provider else { throw Failure(description: "RELAY_AWS_REGION: no AWS backend is configured") }
        return AWSConfiguration(region: region, credentials: provider, endpoint: endpoint)
    }
}

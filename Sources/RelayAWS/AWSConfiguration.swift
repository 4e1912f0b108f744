import Foundation
import RelayHTTP

/// Where and how to reach an AWS service: region, credentials, an optional endpoint override
/// (moto, DynamoDB Local, a VPC endpoint), timeouts and retries.
package struct AWSConfiguration: Sendable {
    /// The region, e.g. `eu-west-1`; it names the default endpoint and the signing scope.
    package var region: String
    /// Where each request's signing credentials come from.
    package var credentials: any AWSCredentialsProvider
    /// `scheme://host[:port]` to use instead of `https://<service>.<region>.amazonaws.com`.
    package var endpoint: String?
    /// Longest time to connect (TLS included) for one attempt.
    package var connectTimeout: Duration
    /// Longest time for one attempt; a call that times out is not retried (its outcome is unknown).
    package var requestTimeout: Duration
    /// Retries of throttled, 5xx and refused-connection attempts.
    package var retry: RetryPolicy

    /// The attempt timeout the relay runs with: the longest any of its store or key-service calls
    /// waits for an answer (`/readyz` gives its checks as long, no less).
    package static let defaultRequestTimeout: Duration = .seconds(3)

    /// A configuration; defaults suit a relay in the same region as its table and key (connect
    /// 1 s, attempt 3 s, 4 attempts).
    package init(
        region: String, credentials: any AWSCredentialsProvider, endpoint: String? = nil,
        connectTimeout: Duration = .seconds(1), requestTimeout: Duration = defaultRequestTimeout,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.region = region
        self.credentials = credentials
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.retry = retry
    }

    /// A configuration that signs with fixed `credentials`.
    package init(
        region: String, credentials: AWSCredentials, endpoint: String? = nil, connectTimeout: Duration = .seconds(1),
        requestTimeout: Duration = defaultRequestTimeout, retry: RetryPolicy = RetryPolicy()
    ) {
        self.init(
            region: region, credentials: StaticCredentialsProvider(credentials), endpoint: endpoint,
            connectTimeout: connectTimeout, requestTimeout: requestTimeout, retry: retry)
    }
}

/// Bounded retries with "full jitter" exponential backoff: attempt n waits a random time in
/// `0...min(maximumDelay, baseDelay × 2ⁿ)`, so many clients throttled together spread out.
package struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (1 disables retries).
    package var maximumAttempts: Int
    /// The backoff ceiling before the first retry.
    package var baseDelay: Duration
    /// The largest backoff ceiling.
    package var maximumDelay: Duration

    /// A policy; the default makes 4 attempts with ceilings of 50, 100 and 200 ms.
    package init(
        maximumAttempts: Int = 4, baseDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(1)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before retry number `retry` (0 for the first retry).
    func delay(beforeRetry retry: Int) -> Duration {
        let ceiling = min(maximumDelay, baseDelay * (1 << min(retry, 20)))
        let nanoseconds = ceiling.components.seconds * 1_000_000_000 + ceiling.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(0, nanoseconds)))
    }
}

/// An endpoint URL split into what the request and the signature need.
struct AWSEndpoint: Sendable {
    /// `scheme://host[:port]`, without a trailing slash.
    let base: String
    /// The `Host` field as libcurl sends it: the port only when it is not the scheme's default.
    let host: String

    init(_ url: String) throws(AWSError) {
        var rest = Substring(url)
        let scheme: String
        if rest.hasPrefix("https://") {
            scheme = "https"
        } else if rest.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw .configuration("the endpoint must start with http:// or https://")
        }
        rest = rest.dropFirst(scheme.count + 3)
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#")
        else { throw .configuration("the endpoint must be scheme://host[:port] with no path") }
        var host = String(rest).lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if host.hasSuffix(defaultPort) { host = String(host.dropLast(defaultPort.count)) }
        self.base = "\(scheme)://\(rest)"
        self.host = host
    }

    /// The public endpoint of `service` in `region`.
    static func standard(service: String, region: String) throws(AWSError) -> AWSEndpoint {
        guard !region.isEmpty, region.utf8.allSatisfy({ SigV4Encoding.isUnreserved($0) }) else {
            throw .configuration("the region must be a name such as eu-west-1")
        }
        return try AWSEndpoint("https://\(service).\(region).amazonaws.com")
    }
}

import RelayHTTP
import RelayStore
import RelaySync

/// The EC2 instance profile's credentials from the instance metadata service, IMDSv2 only: a
/// session token from `PUT /latest/api/token` (`X-aws-ec2-metadata-token-ttl-seconds: 21600`),
/// kept until shortly before its TTL ends, then with `X-aws-ec2-metadata-token` the role name from
/// `GET /latest/meta-data/iam/security-credentials/` and its credentials from
/// `…/security-credentials/<role>`. A 401 means the session token expired: one new token, one
/// more try. IMDSv1 (no token) is never used: AWS recommends requiring IMDSv2 on every instance.
///
/// The endpoint is `http://169.254.169.254`, `http://[fd00:ec2::254]` with
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6`, or `AWS_EC2_METADATA_SERVICE_ENDPOINT`.
final class InstanceMetadataCredentialSource: AWSCredentialSource {
    let endpoint: AWSEndpoint
    let http: HTTPClient
    let clock: any WallClock
    var kind: AWSCredentialSourceKind { .instanceMetadata }
    private let session = Locked<(token: String, until: Double)?>(nil)

    /// How long a session token lives (the SDKs' value, the largest IMDS allows).
    static let tokenTTL: Duration = .seconds(21_600)
    static let credentialsPath = "/latest/meta-data/iam/security-credentials/"

    init(endpoint: AWSEndpoint, http: HTTPClient, clock: any WallClock) {
        self.endpoint = endpoint
        self.http = http
        self.clock = clock
    }

    var origin: String { "the instance metadata service at \(endpoint.base)" }

    /// Added to every failure: IMDS is what the chain falls back to when nothing else is set, so
    /// its failure off EC2 usually means a missing setting rather than an IMDS problem.
    static let hint =
        "the instance metadata service is the last source of the chain, used because none of "
        + "AWS_ACCESS_KEY_ID, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_PROFILE or AWS_CONTAINER_CREDENTIALS_* is set"

    func fetch() async throws(AWSError) -> AWSCredentials {
        do {
            return try await fetchFromIMDS()
        } catch {
            throw .credentials("\(error.reason) (\(Self.hint))")
        }
    }

    private func fetchFromIMDS() async throws(AWSError) -> AWSCredentials {
        var token = try await sessionToken(renew: false)
        var renewed = false
        while true {
            let body: [UInt8]
            do throws(FetchError) {
                let role = try await roleName(token: token)
                body = try await get(Self.credentialsPath + role, token: token)
            } catch {
                switch error {
                case .aws(let failure):
                    throw failure
                case .expired:
                    guard !renewed else {
                        throw .credentials("\(origin) refused its own new session token (HTTP 401)")
                    }
                    renewed = true
                    token = try await sessionToken(renew: true)
                    continue
                }
            }
            return try CredentialDocument.parse(body, origin: origin)
        }
    }

    private func roleName(token: String) async throws(FetchError) -> String {
        let body = try await get(Self.credentialsPath, token: token)
        let role =
            String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !role.isEmpty, role.utf8.allSatisfy({ SigV4Encoding.isUnreserved($0) || "+=,@".utf8.contains($0) })
        else {
            throw .aws(.credentials("\(origin) names no IAM role: attach an instance profile to this instance"))
        }
        return role
    }

    /// Either a credentials problem or an expired session token (retried once).
    private enum FetchError: Error {
        case aws(AWSError)
        case expired
    }

    private func get(_ path: String, token: String) async throws(FetchError) -> [UInt8] {
        let request = ClientRequest(
            url: endpoint.base + path, headers: ["X-aws-ec2-metadata-token": token], connectTimeout: .seconds(1),
            timeout: .seconds(2))
        let response: ClientResponse
        do {
            response = try await CredentialHTTP.send(http, request, origin: origin)
        } catch {
            throw .aws(error)
        }
        switch response.status {
        case 200:
            return response.body
        case 401:
            throw .expired
        case 404:
            throw .aws(.credentials("\(origin) has no IAM role credentials (HTTP 404): attach an instance profile"))
        default:
            throw .aws(.credentials("\(origin) answered HTTP \(response.status)"))
        }
    }

    private func sessionToken(renew: Bool) async throws(AWSError) -> String {
        let now = clock.now()
        if !renew, let cached = session.withLock({ $0 }), now < cached.until { return cached.token }
        let request = ClientRequest(
            method: .put, url: endpoint.base + "/latest/api/token",
            headers: ["X-aws-ec2-metadata-token-ttl-seconds": String(Self.tokenTTL.wholeSeconds)],
            connectTimeout: .seconds(1),
            timeout: .seconds(2))
        let response: ClientResponse
        do {
            response = try await CredentialHTTP.send(http, request, origin: origin)
        } catch {
            throw .credentials(
                "\(error.reason): not on EC2, or in a container on EC2 with the metadata hop limit at 1 "
                    + "(raise it to 2, or give the container a task role)")
        }
        switch response.status {
        case 200:
            break
        case 403:
            throw .credentials("\(origin) is turned off for this instance (HTTP 403)")
        default:
            throw .credentials("\(origin) refused a session token (HTTP \(response.status))")
        }
        let token = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains("\r"), !token.contains("\n") else {
            throw .credentials("\(origin) answered with an unusable session token")
        }
        // Renewed a minute early so that a token never expires between two calls of one fetch.
        session.withLock { $0 = (token, now + Self.tokenTTL.seconds - 60) }
        return token
    }
}

extension AWSError {
    /// The message without the "AWS …:" prefix, to build on.
    var reason: String {
        switch self {
        case .configuration(let reason), .unavailable(let reason), .credentials(let reason): reason
        case .service(let type, let status): "\(type) (HTTP \(status))"
        case .transactionCanceled(let reasons): "TransactionCanceledException (\(reasons.joined(separator: ", ")))"
        case .throttled(let type): type
        }
    }
}

import Foundation
import RelayHTTP
import RelayJSON

/// Calls one AWS service over its JSON protocol (DynamoDB `x-amz-json-1.0`, KMS
/// `x-amz-json-1.1`): a POST to `/` with `X-Amz-Target: <prefix>.<Operation>`, signed with SigV4,
/// retried on throttling, 5xx and refused connections with jittered backoff up to the bound.
struct AWSJSONClient: Sendable {
    let http: HTTPClient
    let endpoint: AWSEndpoint
    let service: String
    let configuration: AWSConfiguration
    let contentType: String
    let targetPrefix: String

    /// Error types the AWS SDKs treat as throttling.
    static let throttlingTypes: Set<String> = [
        "ThrottlingException", "Throttling", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
        "LimitExceededException", "RequestThrottled", "SlowDown", "TransactionInProgressException",
    ]

    init(
        service: String, http: HTTPClient, configuration: AWSConfiguration, contentType: String, targetPrefix: String
    ) throws(AWSError) {
        self.http = http
        if let url = configuration.endpoint {
            self.endpoint = try AWSEndpoint(url)
        } else {
            self.endpoint = try AWSEndpoint.standard(service: service, region: configuration.region)
        }
        self.service = service
        self.configuration = configuration
        self.contentType = contentType
        self.targetPrefix = targetPrefix
    }

    /// Calls `operation` with `body` and returns the parsed answer.
    func call(_ operation: String, _ body: JSONObject) async throws(AWSError) -> JSONValue {
        let payload = JSONValue.object(body).bytes
        var attempt = 0
        while true {
            let outcome = await attemptOnce(operation, payload)
            attempt += 1
            switch outcome {
            case .success(let value):
                return value
            case .failure(let failure):
                guard failure.retryable, attempt < configuration.retry.maximumAttempts else { throw failure.error }
                do {
                    try await Task.sleep(for: configuration.retry.delay(beforeRetry: attempt - 1))
                } catch {
                    throw .unavailable("cancelled while backing off")
                }
            }
        }
    }

    struct Failure: Error {
        let error: AWSError
        let retryable: Bool
    }

    /// The signer of one attempt: credentials are fetched per attempt, so a retry after a refresh
    /// signs with the new ones.
    func signer(_ credentials: AWSCredentials) -> SigV4Signer {
        SigV4Signer(credentials: credentials, region: configuration.region, service: service)
    }

    /// The HTTP request for one attempt of `operation`, signed with `credentials` as of `epochSeconds`.
    func signedRequest(
        _ operation: String, _ payload: [UInt8], epochSeconds: Int, credentials: AWSCredentials
    ) -> ClientRequest {
        let headers: [(name: String, value: String)] = [
            ("Host", endpoint.host), ("Content-Type", contentType), ("X-Amz-Target", "\(targetPrefix).\(operation)"),
        ]
        let signature = signer(credentials).sign(
            SigV4Request(method: "POST", headers: headers, body: payload), epochSeconds: epochSeconds)
        // libcurl writes Host itself, from the same URL, so only the other fields are passed on.
        var fields = HTTPHeaders(headers.dropFirst().map { ($0.name, $0.value) })
        for field in signature.headers { fields.add(field.name, field.value) }
        return ClientRequest(
            method: .post, url: endpoint.base + "/", headers: fields, body: payload,
            connectTimeout: configuration.connectTimeout, timeout: configuration.requestTimeout)
    }

    private func attemptOnce(_ operation: String, _ payload: [UInt8]) async -> Result<JSONValue, Failure> {
        let credentials: AWSCredentials
        do {
            credentials = try await configuration.credentials.credentials()
        } catch {
            // The provider has its own backoff; retrying here would only wait on it again.
            return .failure(Failure(error: error, retryable: false))
        }
        let request = signedRequest(
            operation, payload, epochSeconds: Int(Date().timeIntervalSince1970), credentials: credentials)
        let response: ClientResponse
        do {
            response = try await http.send(request)
        } catch {
            return .failure(Self.failure(for: error))
        }
        if response.status == 200 {
            guard let value = try? JSONValue(parsing: response.body) else {
                return .failure(
                    Failure(
                        error: .unavailable("\(operation) answered 200 with a body that is not JSON"), retryable: false)
                )
            }
            return .success(value)
        }
        let type = Self.errorType(response)
        if type == "TransactionCanceledException" {
            let reasons = (try? JSONValue(parsing: response.body))?["CancellationReasons"]?.arrayValue ?? []
            let codes = reasons.map { $0["Code"]?.stringValue ?? "None" }
            return .failure(Failure(error: .transactionCanceled(reasons: codes), retryable: false))
        }
        if Self.throttlingTypes.contains(type) {
            return .failure(Failure(error: .throttled(type: type), retryable: true))
        }
        if response.status >= 500 {
            return .failure(Failure(error: .unavailable("\(type) (HTTP \(response.status))"), retryable: true))
        }
        return .failure(Failure(error: .service(type: type, status: response.status), retryable: false))
    }

    private static func failure(for error: ClientError) -> Failure {
        switch error {
        case .connectFailed:
            // Nothing was sent, so another attempt cannot apply a write twice.
            Failure(error: .unavailable("cannot connect to the endpoint"), retryable: true)
        case .timedOut:
            Failure(error: .unavailable("no answer in time; a write's outcome is unknown"), retryable: false)
        case .cancelled:
            Failure(error: .unavailable("cancelled"), retryable: false)
        default:
            Failure(error: .unavailable("transport failure (\(error)); a write's outcome is unknown"), retryable: false)
        }
    }

    /// The short error type: `__type` after its last `#`, else `X-Amzn-ErrorType` before its `:`.
    static func errorType(_ response: ClientResponse) -> String {
        if let value = try? JSONValue(parsing: response.body), let type = value["__type"]?.stringValue {
            return String(type.split(separator: "#").last ?? Substring(type))
        }
        if let header = response.headers["x-amzn-errortype"], let type = header.split(separator: ":").first {
            return String(type)
        }
        return "HTTP \(response.status)"
    }
}

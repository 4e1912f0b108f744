import RelayHTTP
import RelayJSON

/// A successful reply: the body as it came and the rotated token. The body is decoded by the
/// operation that asked for it: as a `JSONValue` tree, or (the records operations, on every tool
/// call) straight from the bytes by `RecordsBody`.
struct CloudKitReply: Sendable {
    var status: Int
    var body: [UInt8]
    var rotatedToken: CloudKitWebAuthToken?

    /// The body as a tree, decoded by `decode`; a body that is not JSON is `.invalidResponse`.
    func decode<Value: Sendable>(
        _ decode: (JSONValue) throws(CloudKitError) -> Value
    ) throws(CloudKitError) -> CloudKitResponse<Value> {
        try finish { () throws(CloudKitError) in
            guard let json = try? JSONValue(parsing: body) else { throw notJSON }
            return try decode(json)
        }
    }

    /// The body of a records operation (`records`, `continuationMarker`), decoded without a tree.
    func decodeRecords<Value: Sendable>(
        _ decode: (RecordsBody) -> Value
    ) throws(CloudKitError) -> CloudKitResponse<Value> {
        try finish { () throws(CloudKitError) in
            guard let decoded = RecordsBody.decode(body) else { throw notJSON }
            return decode(try decoded.get())
        }
    }

    /// The body of a `changes/zone` call (its first zone), decoded without a tree.
    func decodeZoneChanges() throws(CloudKitError) -> CloudKitResponse<ZoneChanges> {
        try finish { () throws(CloudKitError) in
            guard let decoded = ZoneChangesBody.decode(body) else { throw notJSON }
            return try decoded.get()
        }
    }

    private var notJSON: CloudKitError { CloudKitError(.invalidResponse, status: status, reason: "not JSON") }

    private func finish<Value: Sendable>(
        _ value: () throws(CloudKitError) -> Value
    ) throws(CloudKitError) -> CloudKitResponse<Value> {
        do {
            return CloudKitResponse(value: try value(), rotatedToken: rotatedToken)
        } catch {
            var error = error
            error.rotatedToken = rotatedToken
            throw error
        }
    }
}

extension CloudKitClient {
    /// Sends one operation, retrying reads; every attempt uses the newest token seen. `Attempts`
    /// decides what each answer means, so this loop only sends and waits.
    func call(
        _ method: HTTPMethod,
        _ operation: String,
        database: CloudKitDatabase? = nil,
        token: CloudKitWebAuthToken?,
        body: JSONValue? = nil,
        idempotent: Bool
    ) async throws(CloudKitError) -> CloudKitReply {
        var attempts = Attempts(token: token)
        while true {
            let url = attempts.url(configuration, database ?? configuration.database, operation)
            let sent: Result<ClientResponse, ClientError>
            if attempts.current != nil {
                switch await sendKeepingTransfer(request(method, url: url, body: body)) {
                case .finished(let result):
                    sent = result
                case .late(let late):
                    // CloudKit may still carry this call out: no retry with a token it may be
                    // replacing; the late answer's token is the caller's to save.
                    var error = CloudKitError(.unavailable, reason: "CloudKit did not answer in time")
                    error.rotatedToken = attempts.rotated
                    error.lateAnswer = late
                    throw error
                case .cancelled(let late):
                    throw Self.cancelled(late, rotated: attempts.rotated)
                }
            } else {
                do throws(ClientError) {
                    sent = .success(try await http.send(request(method, url: url, body: body)))
                } catch {
                    sent = .failure(error)
                }
            }
            switch try attempts.settle(sent, idempotent: idempotent, retry: configuration.retry) {
            case .reply(let reply): return reply
            case .retry(let delay): try await Self.pause(delay, rotated: attempts.rotated)
            }
        }
    }

    private enum Listened {
        case finished(Result<ClientResponse, ClientError>)
        case late(LateAnswer)
        /// The caller was cancelled; the transfer goes on (`cancelled(_:rotated:)`).
        case cancelled(LateAnswer)
    }

    /// The error of a call whose caller was cancelled (a stdio client's `notifications/cancelled`) while its
    /// request, which carries a web auth token, may already be at CloudKit: the call fails at once, but the
    /// transfer is not aborted. CloudKit may carry the call out and name the only live token (strict rotation
    /// kills the old one at once), so its answer is the caller's to await and save, as past the timeout.
    private static func cancelled(_ late: LateAnswer, rotated: CloudKitWebAuthToken?) -> CloudKitError {
        var error = CloudKitError(.cancelled, reason: "the call was cancelled while CloudKit may carry it out")
        error.rotatedToken = rotated
        error.lateAnswer = late
        return error
    }

    /// Sends a request that carries a web auth token in a transfer of its own, which neither the caller's
    /// cancellation (`cancelled(_:rotated:)`) nor the configured `timeout` aborts. With a `lateAnswerWait`,
    /// the transfer's own limit is raised by it and the caller waits only `timeout`; past that the
    /// transfer goes on in the background (`LateAnswer`). Without one, the transfer's limit is the
    /// caller's and only a cancellation ends the wait early.
    private func sendKeepingTransfer(_ request: ClientRequest) async -> Listened {
        let lateWait = configuration.lateAnswerWait
        var sending = request
        if lateWait > .zero { sending.timeout = (request.timeout ?? configuration.timeout) + lateWait }
        let first = FirstOutcome()
        let http = self.http
        let transfer = Task { () -> Result<ClientResponse, ClientError> in
            let result: Result<ClientResponse, ClientError>
            do throws(ClientError) {
                result = .success(try await http.send(sending))
            } catch {
                result = .failure(error)
            }
            first.settle(.finished(result))
            return result
        }
        let timeout = configuration.timeout
        let timer =
            lateWait > .zero
            ? Task {
                try? await Task.sleep(for: timeout)
                first.settle(.timedOut)
            } : nil
        let outcome = await withTaskCancellationHandler {
            await first.wait()
        } onCancel: {
            first.settle(.cancelled)
        }
        timer?.cancel()
        switch outcome {
        case .finished(let result): return .finished(result)
        case .timedOut: return .late(LateAnswer(transfer))
        case .cancelled: return .cancelled(LateAnswer(transfer))
        }
    }

    /// The token a response names (`X-Apple-CloudKit-Web-Auth-Token`, or the older session header).
    static func rotatedToken(of response: ClientResponse) -> CloudKitWebAuthToken? {
        outcome(of: response).rotatedToken
    }

    /// The token each attempt uses and what the attempts so far decided.
    struct Attempts {
        var current: CloudKitWebAuthToken?
        var rotated: CloudKitWebAuthToken?
        var count = 0

        init(token: CloudKitWebAuthToken?) { current = token }

        enum Step {
            case reply(CloudKitReply)
            case retry(Duration)
        }

        mutating func url(
            _ configuration: CloudKitConfiguration, _ database: CloudKitDatabase, _ operation: String
        ) -> String {
            count += 1
            return CloudKitURL.make(configuration, database, operation, current)
        }

        /// The reply, a retry after a delay, or the error that ends the call.
        mutating func settle(
            _ sent: Result<ClientResponse, ClientError>, idempotent: Bool, retry: CloudKitRetryPolicy
        ) throws(CloudKitError) -> Step {
            let outcome: Outcome
            switch sent {
            case .success(let response): outcome = CloudKitClient.outcome(of: response)
            case .failure(let error): outcome = Outcome(result: .failure(CloudKitClient.transportError(error)))
            }
            if let next = outcome.rotatedToken {
                current = next
                rotated = next
            }
            switch outcome.result {
            case .success(let response):
                return .reply(CloudKitReply(status: response.status, body: response.body, rotatedToken: rotated))
            case .failure(var error):
                error.rotatedToken = rotated
                guard idempotent, error.isRetryable, let delay = retry.delay(after: count, retryAfter: error.retryAfter)
                else { throw error }
                return .retry(delay)
            }
        }
    }

    /// The wait before a retry; a cancelled wait ends the call, keeping the token it rotated to.
    private static func pause(_ delay: Duration, rotated: CloudKitWebAuthToken?) async throws(CloudKitError) {
        do {
            try await Task.sleep(for: delay)
        } catch {
            throw CloudKitError(.cancelled, rotatedToken: rotated)
        }
    }

    fileprivate struct Outcome {
        var result: Result<ClientResponse, CloudKitError>
        var rotatedToken: CloudKitWebAuthToken?
    }

    /// One attempt's request: JSON in and out, the configured timeouts and size limit.
    private func request(_ method: HTTPMethod, url: String, body: JSONValue?) -> ClientRequest {
        var request = ClientRequest(
            method: method, url: url, headers: ["Accept": "application/json"],
            connectTimeout: configuration.connectTimeout, timeout: configuration.timeout,
            maxResponseBytes: configuration.maxResponseBytes)
        if let body {
            request.headers.add("Content-Type", "application/json")
            request.body = body.bytes
        }
        return request
    }

    fileprivate static func outcome(of response: ClientResponse) -> Outcome {
        let header =
            response.headers["x-apple-cloudkit-web-auth-token"] ?? response.headers["x-apple-cloudkit-session"]
        let rotated = header.flatMap { $0.isEmpty ? nil : CloudKitWebAuthToken($0) }
        guard (200..<300).contains(response.status) else {
            let json = try? JSONValue(parsing: response.body)
            return Outcome(result: .failure(Self.requestError(response, json)), rotatedToken: rotated)
        }
        // Decoded (and refused when it is not JSON) by the operation: `CloudKitReply`.
        return Outcome(result: .success(response), rotatedToken: rotated)
    }

    /// A whole-request failure from its status and (possibly non-JSON) body.
    static func requestError(_ response: ClientResponse, _ json: JSONValue?) -> CloudKitError {
        let code = json?["serverErrorCode"]?.stringValue
        var retryAfter = RetryAfter.duration(json?["retryAfter"])
        // The HTTP header's unit is documented (RFC 9110: seconds).
        if retryAfter == nil, let header = response.headers["retry-after"], let seconds = Int(header), seconds > 0 {
            retryAfter = .seconds(seconds)
        }
        return CloudKitError(
            .forRequest(status: response.status, serverErrorCode: code),
            status: response.status,
            serverErrorCode: code,
            reason: json?["reason"]?.stringValue,
            retryAfter: retryAfter,
            redirectURL: json?["redirectURL"]?.stringValue ?? json?["redirectUrl"]?.stringValue
        )
    }

    static func transportError(_ error: ClientError) -> CloudKitError {
        switch error {
        case .cancelled: CloudKitError(.cancelled)
        case .responseTooLarge: CloudKitError(.invalidResponse, reason: error.description)
        default: CloudKitError(.unavailable, reason: error.description)
        }
    }
}

/// Builds operation URLs. The tokens are percent-encoded by hand: `URLComponents` leaves `+` and
/// `/` raw, and a server that reads `+` as a space would receive a corrupted token.
package enum CloudKitURL {
    /// `{base}/database/1/{container}/{environment}/{database}/{operation}?ckAPIToken=…&ckWebAuthToken=…`
    package static func make(
        _ configuration: CloudKitConfiguration,
        _ database: CloudKitDatabase,
        _ operation: String,
        _ token: CloudKitWebAuthToken?
    ) -> String {
        let escaped =
            configuration.container.utf8.count + configuration.apiToken.rawValue.utf8.count
            + (token?.rawValue.utf8.count ?? 0)
        var url: [UInt8] = []
        url.reserveCapacity(configuration.baseURL.utf8.count + operation.utf8.count + 96 + escaped * 3 / 2)
        url.append(contentsOf: configuration.baseURL.utf8)
        url.append(contentsOf: "/database/1/".utf8)
        appendEncoded(configuration.container, to: &url)
        url.append(UInt8(ascii: "/"))
        url.append(contentsOf: configuration.environment.rawValue.utf8)
        url.append(UInt8(ascii: "/"))
        url.append(contentsOf: database.rawValue.utf8)
        url.append(UInt8(ascii: "/"))
        url.append(contentsOf: operation.utf8)
        url.append(contentsOf: "?ckAPIToken=".utf8)
        appendEncoded(configuration.apiToken.rawValue, to: &url)
        if let token {
            url.append(contentsOf: "&ckWebAuthToken=".utf8)
            appendEncoded(token.rawValue, to: &url)
        }
        return String(decoding: url, as: UTF8.self)
    }

    private static func appendEncoded(_ text: String, to output: inout [UInt8]) {
        PercentEncoding.append(text, to: &output)
    }
}

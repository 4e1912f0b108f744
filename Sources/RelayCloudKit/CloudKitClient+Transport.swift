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
    @inline(never)
    func decodeRecords<Value: Sendable>(
        _ decode: (RecordsBody) -> Value
    ) throws(CloudKitError) -> CloudKitResponse<Value> {
        try finish { () throws(CloudKitError) in
            guard let decoded = RecordsBody.decode(body) else { throw notJSON }
            return decode(try decoded.get())
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
    /// Sends one operation, retrying reads; every attempt uses the newest token seen.
    func call(
        _ method: HTTPMethod,
        _ operation: String,
        database: CloudKitDatabase? = nil,
        token: CloudKitWebAuthToken?,
        body: JSONValue? = nil,
        idempotent: Bool
    ) async throws(CloudKitError) -> CloudKitReply {
        var current = token
        var rotated: CloudKitWebAuthToken?
        var attempt = 0
        while true {
            attempt += 1
            let url = CloudKitURL.make(configuration, database ?? configuration.database, operation, current)
            let outcome = await attemptOnce(method, url: url, body: body)
            if let next = outcome.rotatedToken {
                current = next
                rotated = next
            }
            switch outcome.result {
            case .success(let response):
                return CloudKitReply(status: response.status, body: response.body, rotatedToken: rotated)
            case .failure(var error):
                error.rotatedToken = rotated
                guard idempotent, error.isRetryable,
                    let delay = configuration.retry.delay(after: attempt, retryAfter: error.retryAfter)
                else { throw error }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw CloudKitError(.cancelled, rotatedToken: rotated)
                }
            }
        }
    }

    private struct Outcome {
        var result: Result<ClientResponse, CloudKitError>
        var rotatedToken: CloudKitWebAuthToken?
    }

    private func attemptOnce(_ method: HTTPMethod, url: String, body: JSONValue?) async -> Outcome {
        let response: ClientResponse
        do {
            response = try await http.send(request(method, url: url, body: body))
        } catch {
            return Outcome(result: .failure(Self.transportError(error)))
        }
        return Self.outcome(of: response)
    }

    /// Built outside `attemptOnce`'s async frame (see `lookupBody`).
    @inline(never)
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

    @inline(never)
    private static func outcome(of response: ClientResponse) -> Outcome {
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
    ///
    /// Written into one buffer: joined with `+`, the dozen parts (and a 1 KB token) cost a String
    /// each on every call.
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

    /// Percent-encodes everything but RFC 3986 unreserved characters (`+` → `%2B`, `/` → `%2F`,
    /// `=` → `%3D`). Works on bytes: a 1 KB token is encoded on every call.
    package static func encode(_ text: String) -> String { PercentEncoding.encode(text) }

    private static func appendEncoded(_ text: String, to output: inout [UInt8]) {
        PercentEncoding.append(text, to: &output)
    }
}

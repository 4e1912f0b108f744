import RelayHTTP

/// The HTTP calls of the credential sources, through the relay's one `HTTPClient`: small answers,
/// short timeouts, a couple of attempts. The refreshing provider retries the whole fetch later
/// with its own backoff, so a source gives up quickly.
enum CredentialHTTP {
    /// Largest answer a credential source may send (an STS answer is about 2 KB).
    static let maximumResponseBytes = 64 * 1024

    /// Sends `request` up to `attempts` times: again after a refused connection or a 5xx answer,
    /// not after a timeout (the source is there but slow; the next refresh will try again).
    /// `origin` names the source in errors.
    static func send(
        _ http: HTTPClient, _ request: ClientRequest, attempts: Int = 2, origin: String
    ) async throws(AWSError) -> ClientResponse {
        var request = request
        request.maxResponseBytes = maximumResponseBytes
        request.addressPolicy = .any
        var attempt = 0
        while true {
            attempt += 1
            let response: ClientResponse
            do {
                response = try await http.send(request)
            } catch {
                switch error {
                case .connectFailed where attempt < attempts:
                    try await pause(attempt)
                    continue
                case .connectFailed:
                    throw .credentials("cannot connect to \(origin)")
                case .timedOut:
                    throw .credentials("\(origin) did not answer in time")
                default:
                    throw .credentials("\(origin): \(error)")
                }
            }
            if response.status >= 500, attempt < attempts {
                try await pause(attempt)
                continue
            }
            return response
        }
    }

    private static func pause(_ attempt: Int) async throws(AWSError) {
        do {
            try await Task.sleep(for: .milliseconds(100 * attempt))
        } catch {
            throw .credentials("cancelled")
        }
    }
}

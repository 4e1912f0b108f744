/// One open stream's response as it arrives: the head's fields built straight into `HTTPHeaders`,
/// the body appended into one array.
final class H2Stream {
    let limit: Int
    /// The request body and how much of it nghttp2 has taken (its DATA source reads from here).
    let requestBody: [UInt8]
    var requestOffset = 0
    var status = 0
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    /// Header and body bytes received so far, counted against `limit`.
    var receivedBytes = 0
    /// The final (non-1xx) head has arrived; a later header block is trailers.
    var hasFinalHead = false
    /// The caller has had its one ending event (or cancelled): nothing more is reported.
    var finished = false

    init(limit: Int, requestBody: [UInt8]) {
        self.limit = limit
        self.requestBody = requestBody
        headers.reserveCapacity(16)  // a typical response's fields without regrowing
    }
}

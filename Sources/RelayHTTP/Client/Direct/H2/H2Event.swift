/// What happened on an `H2Session` during `receive` (or `takeOutput`), in order, taken with
/// `takeEvents(into:)`. Each stream the caller submitted ends with exactly one of `complete`,
/// `reset` or `failed`, unless the caller cancelled it or the whole session died (then `receive`
/// threw, and every stream still open failed with it).
package enum H2Event: Sendable {
    /// The final response head arrived (1xx interim heads are skipped). The same status and
    /// fields come again in `complete`; this is for a caller that wants them early.
    case head(stream: Int32, status: Int, headers: HTTPHeaders)
    /// The response is complete: `httpVersion` is `"2"`, the body is every DATA byte, trailers
    /// are not kept.
    case complete(stream: Int32, response: ClientResponse)
    /// The stream was closed by RST_STREAM, by a GOAWAY that did not cover it, or by the library
    /// (a malformed response: PROTOCOL_ERROR). `retryable`: the server did no work on it
    /// (REFUSED_STREAM, RFC 9113 §8.7), so the request may go again on another connection.
    case reset(stream: Int32, errorCode: UInt32, retryable: Bool)
    /// The stream failed on this side (`.responseTooLarge`); it was reset with CANCEL and the
    /// connection lives on.
    case failed(stream: Int32, error: ClientError)
    /// The peer sent GOAWAY: no new stream on this session. Streams above `lastStreamID` were
    /// never processed and come as `reset(…, retryable: true)` right after (RFC 9113 §6.8).
    case goAway(lastStreamID: Int32, errorCode: UInt32)
}

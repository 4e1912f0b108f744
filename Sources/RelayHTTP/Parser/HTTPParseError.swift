/// Why a request was refused before it reached a handler. Each case maps to the status the server
/// answers with; the connection is always closed afterwards.
package enum HTTPParseError: Error, Equatable, Sendable {
    case requestLineTooLong
    case headersTooLarge
    case tooManyHeaders
    case bodyTooLarge
    case malformedRequestLine
    case unsupportedVersion
    case bareCarriageReturn
    case bareLineFeed
    case obsoleteLineFolding
    case invalidHeaderName
    case invalidHeaderValue
    case missingHost
    case repeatedHost
    case contentLengthWithTransferEncoding
    case invalidContentLength
    case repeatedContentLength
    case repeatedTransferEncoding
    case unsupportedTransferEncoding
    case transferEncodingOnHTTP10
    case invalidChunkSize
    case invalidChunkTerminator
    /// A chunked trailer field that must not come after the content (`ChunkedDecoder.forbiddenTrailers`).
    case forbiddenTrailerField
    case unsupportedExpectation

    /// The status the server answers with.
    package var status: HTTPStatus {
        switch self {
        case .requestLineTooLong: .uriTooLong
        case .headersTooLarge, .tooManyHeaders: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedTransferEncoding: .notImplemented
        case .unsupportedExpectation: .expectationFailed
        default: .badRequest
        }
    }
}

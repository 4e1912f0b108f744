import CNghttp2

// nghttp2 callbacks: plain C functions that find their `H2Session` through the session's user
// data (set once in `init`, unretained: the session owns the nghttp2 session and outlives it).
// They return 0 to go on; per-stream trouble is handled here (RST_STREAM), never by failing the
// callback, which would kill the whole connection.

extension H2Session {
    static func install(_ callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2BeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2Header)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2DataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2FrameReceived)
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks, h2InvalidFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2StreamClosed)
    }

    /// Counts `count` more response bytes on `stream`; past its limit, fails it. Returns whether
    /// the bytes may be kept.
    func admit(_ count: Int, on stream: H2Stream, id: Int32) -> Bool {
        stream.receivedBytes += count
        guard stream.receivedBytes <= stream.limit else {
            fail(stream, id: id)
            return false
        }
        return true
    }
}

private func owner(_ userData: UnsafeMutableRawPointer?) -> H2Session {
    Unmanaged<H2Session>.fromOpaque(userData!).takeUnretainedValue()
}

/// A header block starts: a 1xx head, the final head, or trailers (after the final head).
private let h2BeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame, let stream = owner(userData).streams[frame.pointee.hd.stream_id], !stream.hasFinalHead else {
        return 0
    }
    stream.status = 0  // a 1xx head's fields were never kept; the next head starts afresh
    return 0
}

/// One field, decoded (Huffman, dynamic table) and validated by nghttp2 (RFC 9113 §8.2,
/// RFC 7541). Counted like an HTTP/1.1 header line (`name: value\r\n`) against the limit.
private let h2Header: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    let session = owner(userData)
    guard let frame, let name, let value else { return 0 }
    let id = frame.pointee.hd.stream_id
    guard let stream = session.streams[id], !stream.finished else { return 0 }
    guard session.admit(nameLength + valueLength + 4, on: stream, id: id), !stream.hasFinalHead else { return 0 }
    let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
    let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
    if nameBytes.first == UInt8(ascii: ":") {
        // nghttp2 lets only `:status` (three digits) through in a response.
        if nameLength == 7 { stream.status = valueBytes.reduce(0) { $0 * 10 + Int($1 &- 48) } }
    } else if stream.status >= 200 {
        // Room for a typical head at once, not growth at 1, 2, 4 and 8 fields (as the HTTP/1.1 parser).
        if stream.headers.count == 0 { stream.headers.reserveCapacity(16) }
        let fieldName = h2FieldName(nameBytes)
        stream.headers.add(fieldName, h2FieldValue(valueBytes, named: fieldName, in: session))
        if nameLength == 14, valueLength <= 12, FieldLiterals.same("content-length", UnsafeRawBufferPointer(nameBytes))
        {
            // nghttp2 checked the digits and holds the DATA to them: the body grows once, not
            // log2(size) times with a copy each (only up to the limit, which fails the stream).
            let length = valueBytes.reduce(0) { $0 * 10 + Int($1 &- 48) }
            stream.body.reserveCapacity(min(length, stream.limit))
        }
    }
    return 0
}

/// Response field names longer than a small string (15 bytes) that CloudKit sends on every
/// answer: the literal, not a new heap string per response. HTTP/2 names arrive lower-cased.
private let h2KnownLongNames: [String] = [
    "access-control-expose-headers", "x-apple-cloudkit-version", "x-apple-cloudkit-web-auth-token",
    "x-apple-request-uuid", "x-responding-instance", "strict-transport-security", "x-apple-cloudkit-session",
    "access-control-allow-origin", "x-content-type-options",
]

private func h2FieldName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    FieldLiterals.match(UnsafeRawBufferPointer(bytes), in: h2KnownLongNames) ?? String(decoding: bytes, as: UTF8.self)
}

private func h2FieldValue(_ bytes: UnsafeBufferPointer<UInt8>, named name: String, in session: H2Session) -> String {
    guard bytes.count > 15, let index = H2Session.repeatingValueNames.firstIndex(of: name) else {
        return String(decoding: bytes, as: UTF8.self)
    }
    if let last = session.lastRepeatingValues[index], FieldLiterals.same(last, UnsafeRawBufferPointer(bytes)) {
        return last
    }
    let value = String(decoding: bytes, as: UTF8.self)
    session.lastRepeatingValues[index] = value
    return value
}

private let h2DataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, id, data, length, userData in
    let session = owner(userData)
    guard let data, let stream = session.streams[id], !stream.finished,
        session.admit(length, on: stream, id: id)
    else { return 0 }
    stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

/// A whole frame arrived (a header block with its CONTINUATIONs counts as one).
private let h2FrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
    let session = owner(userData)
    guard let frame else { return 0 }
    let header = frame.pointee.hd
    switch UInt32(header.type) {
    case NGHTTP2_GOAWAY.rawValue:
        session.noteGoAway(
            lastStreamID: frame.pointee.goaway.last_stream_id, errorCode: frame.pointee.goaway.error_code)
        return 0
    case NGHTTP2_HEADERS.rawValue, NGHTTP2_DATA.rawValue:
        break
    default:
        return 0
    }
    guard let stream = session.streams[header.stream_id], !stream.finished else { return 0 }
    if UInt32(header.type) == NGHTTP2_HEADERS.rawValue, !stream.hasFinalHead, stream.status >= 200 {
        stream.hasFinalHead = true
        session.events.append(.head(stream: header.stream_id, status: stream.status, headers: stream.headers))
    }
    if header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, stream.hasFinalHead {
        stream.finished = true
        var body: [UInt8] = []
        swap(&body, &stream.body)  // the array moves into the response, not copied
        let response = ClientResponse(status: stream.status, headers: stream.headers, body: body, httpVersion: "2")
        session.events.append(.complete(stream: header.stream_id, response: response))
    }
    return 0
}

private let h2InvalidFrame: nghttp2_on_invalid_frame_recv_callback = { _, _, errorCode, userData in
    owner(userData).invalidFrameError = errorCode
    return 0
}

/// The stream is gone from nghttp2 (both sides done, reset either way, or refused by GOAWAY).
private let h2StreamClosed: nghttp2_on_stream_close_callback = { _, id, errorCode, userData in
    let session = owner(userData)
    guard let stream = session.streams.removeValue(forKey: id), !stream.finished else { return 0 }
    stream.finished = true
    session.events.append(
        .reset(stream: id, errorCode: errorCode, retryable: errorCode == NGHTTP2_REFUSED_STREAM.rawValue))
    return 0
}

/// The request body's DATA source: copies what fits from the stream's body, EOF at the end.
let h2ReadRequestBody: nghttp2_data_source_read_callback = { _, id, buffer, length, flags, _, userData in
    guard let buffer, let flags, let stream = owner(userData).streams[id] else {
        return ssize_t(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
    }
    let count = min(length, stream.requestBody.count - stream.requestOffset)
    stream.requestBody.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(
            from: bytes.baseAddress! + stream.requestOffset, byteCount: count)
    }
    stream.requestOffset += count
    if stream.requestOffset == stream.requestBody.count { flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue) }
    return count
}

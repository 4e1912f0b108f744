import CNghttp2
import RelayHTTP

/// An HTTP/2 server in memory for `H2Session`'s tests: an nghttp2 server session (its own HPACK
/// encoder, so responses come Huffman-coded and dynamic-table-indexed as real servers send them)
/// driven by hand. Requests are collected; the test answers, resets, pings or sends GOAWAY.
final class FakeH2Server {
    struct Request {
        var fields: [(name: String, value: String)] = []
        /// The fields that came as never-indexed literals (RFC 7541 §6.2.3), by name.
        var neverIndexed: Set<String> = []
        var body: [UInt8] = []
        var complete = false
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    let session: OpaquePointer
    var requests: [Int32: Request] = [:]
    /// Streams the client reset, with the error code.
    var resets: [Int32: UInt32] = [:]
    var pingAcks = 0
    /// Called when a request is complete; the default answers nothing.
    var onRequest: (FakeH2Server, Int32, Request) -> Void = { _, _, _ in }
    fileprivate var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]

    /// `settings`: the server's SETTINGS (MAX_CONCURRENT_STREAMS…), sent first.
    init(settings: [(nghttp2_settings_id, UInt32)] = []) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, serverHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, serverData)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, serverFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, serverClose)
        var created: OpaquePointer?
        nghttp2_session_server_new(&created, callbacks, nil)
        session = created!
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        let entries = settings.map { nghttp2_settings_entry(settings_id: Int32($0.0.rawValue), value: $0.1) }
        nghttp2_submit_settings(session, 0, entries, entries.count)
    }

    deinit { nghttp2_session_del(session) }

    /// Feeds client bytes; nghttp2's return value (negative: the server gave up).
    @discardableResult func receive(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }

    func takeOutput() -> [UInt8] {
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { return output }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// Answers `stream`: `status`, `fields`, and `body` (none: HEADERS with END_STREAM).
    func respond(_ stream: Int32, status: Int = 200, fields: [(String, String)] = [], body: [UInt8] = []) {
        var all = [(":status", String(status))] + fields
        if !body.isEmpty { all.append(("content-length", String(body.count))) }
        submitHeaders(all) { vectors in
            if body.isEmpty { return nghttp2_submit_response(session, stream, vectors.baseAddress, vectors.count, nil) }
            bodies[stream] = (body, 0)
            var provider = nghttp2_data_provider()
            provider.read_callback = serverReadBody
            return nghttp2_submit_response(session, stream, vectors.baseAddress, vectors.count, &provider)
        }
    }

    /// An interim head (1xx) before the response.
    func informational(_ stream: Int32, status: Int, fields: [(String, String)] = []) {
        submitHeaders([(":status", String(status))] + fields) { vectors in
            nghttp2_submit_headers(session, 0, stream, nil, vectors.baseAddress, vectors.count, nil)
        }
    }

    func reset(_ stream: Int32, code: nghttp2_error_code) {
        nghttp2_submit_rst_stream(session, 0, stream, code.rawValue)
    }

    func goAway(lastStreamID: Int32, code: nghttp2_error_code = NGHTTP2_NO_ERROR) {
        nghttp2_submit_goaway(session, 0, lastStreamID, code.rawValue, nil, 0)
    }

    func ping() { nghttp2_submit_ping(session, 0, nil) }

    private func submitHeaders(_ fields: [(String, String)], _ submit: (UnsafeBufferPointer<nghttp2_nv>) -> Int32) {
        let total = fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(total, 1))
        defer { storage.deallocate() }  // nghttp2 copies the fields
        var offset = 0
        var vectors: [nghttp2_nv] = []
        for (name, value) in fields {
            let start = offset
            for byte in Array(name.utf8) + Array(value.utf8) {
                storage[offset] = byte
                offset += 1
            }
            vectors.append(
                nghttp2_nv(
                    name: storage + start, value: storage + start + name.utf8.count, namelen: name.utf8.count,
                    valuelen: value.utf8.count, flags: 0))
        }
        let result = vectors.withUnsafeBufferPointer { submit($0) }
        precondition(result >= 0, "nghttp2 refused the test server's headers: \(result)")
    }
}

private func server(_ userData: UnsafeMutableRawPointer?) -> FakeH2Server {
    Unmanaged<FakeH2Server>.fromOpaque(userData!).takeUnretainedValue()
}

private let serverHeader: nghttp2_on_header_callback = {
    _, frame, name, nameLength, value, valueLength, flags, userData in
    let id = frame!.pointee.hd.stream_id
    let name = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    server(userData).requests[id, default: .init()].fields.append(
        (name, String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
    if flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0 {
        server(userData).requests[id, default: .init()].neverIndexed.insert(name)
    }
    return 0
}

private let serverData: nghttp2_on_data_chunk_recv_callback = { _, _, id, data, length, userData in
    server(userData).requests[id, default: .init()].body.append(
        contentsOf: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let serverFrame: nghttp2_on_frame_recv_callback = { _, frame, userData in
    let owner = server(userData)
    let header = frame!.pointee.hd
    if UInt32(header.type) == NGHTTP2_PING.rawValue, header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
        owner.pingAcks += 1
    }
    let isRequestFrame = UInt32(header.type) == NGHTTP2_HEADERS.rawValue || UInt32(header.type) == NGHTTP2_DATA.rawValue
    if isRequestFrame, header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        owner.requests[header.stream_id, default: .init()].complete = true
        owner.onRequest(owner, header.stream_id, owner.requests[header.stream_id]!)
    }
    return 0
}

private let serverClose: nghttp2_on_stream_close_callback = { _, id, code, userData in
    if code != NGHTTP2_NO_ERROR.rawValue { server(userData).resets[id] = code }
    return 0
}

private let serverReadBody: nghttp2_data_source_read_callback = { _, id, buffer, length, flags, _, userData in
    let owner = server(userData)
    guard let body = owner.bodies[id] else { return ssize_t(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
    let count = min(length, body.bytes.count - body.offset)
    body.bytes.withUnsafeBytes {
        UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress! + body.offset, byteCount: count)
    }
    owner.bodies[id]!.offset += count
    if body.offset + count == body.bytes.count {
        flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
        owner.bodies[id] = nil
    }
    return count
}

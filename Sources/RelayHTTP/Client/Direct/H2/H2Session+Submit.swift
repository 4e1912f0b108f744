import CNghttp2

extension H2Session {
    /// Opens a stream for `request` and queues its HEADERS (and DATA); returns the stream id.
    /// Throws `.transport` when no stream can be opened here (the peer's limit reached, a GOAWAY,
    /// the session closed: open another connection), `.invalidRequest` for a field HTTP/2 cannot
    /// carry. Connection-specific fields (RFC 9113 §8.2.2: `connection`, `keep-alive`,
    /// `proxy-connection`, `transfer-encoding`, `upgrade`, and `te` but `trailers`) and `host`
    /// (`:authority` replaces it, §8.3.1) are dropped, as libcurl does for HTTP/2, so a request
    /// written for HTTP/1.1 goes as it is; `content-length` is the body's own.
    package func submit(_ request: H2Request) throws(ClientError) -> Int32 {
        guard !dead else { throw .transport("HTTP/2: the session is closed") }
        guard availableStreams > 0 else { throw .transport("HTTP/2: no stream available on this connection") }
        try encodeFields(request)
        let stream = H2Stream(
            limit: request.maxResponseBytes ?? configuration.maxResponseBytes, requestBody: request.body)
        var provider = nghttp2_data_provider()
        provider.read_callback = h2ReadRequestBody
        let id = fieldBytes.withUnsafeMutableBufferPointer { bytes in
            fieldVectors.removeAll(keepingCapacity: true)
            let base = bytes.baseAddress!
            for index in stride(from: 0, to: fieldOffsets.count, by: 5) {
                fieldVectors.append(
                    nghttp2_nv(
                        name: base + fieldOffsets[index], value: base + fieldOffsets[index + 2],
                        namelen: fieldOffsets[index + 1], valuelen: fieldOffsets[index + 3],
                        flags: UInt8(truncatingIfNeeded: fieldOffsets[index + 4])))
            }
            return fieldVectors.withUnsafeBufferPointer { vectors in
                withUnsafePointer(to: &provider) { provider in
                    // nghttp2 copies the fields; the body is read later through the provider.
                    nghttp2_submit_request(
                        session, nil, vectors.baseAddress, vectors.count, request.body.isEmpty ? nil : provider, nil)
                }
            }
        }
        guard id > 0 else { throw .transport("HTTP/2: \(String(cString: nghttp2_strerror(id)))") }
        streams[id] = stream
        return id
    }

    /// Fills `fieldBytes` and `fieldOffsets` (name start, name length, value start, value length,
    /// nghttp2 flags) with the pseudo-header fields, the request's fields lower-cased and filtered,
    /// and `content-length`. Fields that carry secrets (a path with a query: CloudKit's tokens ride
    /// there; credentials and cookies) are never indexed (RFC 7541 §7.1.3): they stay out of both
    /// sides' HPACK tables, so no later request's compressed size can reveal them, and a 1 KB
    /// token that changes on every call does not evict the fields that do repeat. The buffers are worked on as locals (swapped out and back: no copy), and
    /// every field is checked and copied in one pass over its bytes: the path carries the web auth
    /// token, and per-byte appends to a stored property paid an exclusivity check each.
    private func encodeFields(_ request: H2Request) throws(ClientError) {
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        swap(&bytes, &fieldBytes)
        swap(&offsets, &fieldOffsets)
        defer {
            swap(&bytes, &fieldBytes)
            swap(&offsets, &fieldOffsets)
        }
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        guard Self.append(":method", request.method, .token, &bytes, &offsets), !request.method.isEmpty else {
            throw .invalidRequest("the method is not an RFC 9110 token")
        }
        // A path from the root, or `*`.
        guard Self.append(":scheme", request.scheme, .token, &bytes, &offsets), !request.scheme.isEmpty,
            Self.append(":authority", request.authority, .target, &bytes, &offsets), !request.authority.isEmpty,
            Self.append(
                ":path", request.path, .target, &bytes, &offsets,
                neverIndexed: request.path.utf8.contains(UInt8(ascii: "?"))),
            request.path.utf8.first == UInt8(ascii: "/") || request.path == "*"
        else { throw .invalidRequest("the scheme, authority or path cannot be sent") }
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy({ ByteClass.token[Int($0)] }) else {
                throw .invalidRequest("a header name is not an RFC 9110 token")
            }
            if Self.isDropped(name, value) {
                guard value.utf8.allSatisfy({ ByteClass.fieldValue[Int($0)] }) else {
                    throw .invalidRequest("a header value has a control character")
                }
                continue
            }
            guard Self.append(name, value, .fieldValue, &bytes, &offsets, neverIndexed: Self.isSensitive(name)) else {
                throw .invalidRequest("a header value has a control character")
            }
        }
        if !request.body.isEmpty || Self.hasBodySemantics(request.method) {
            _ = Self.append("content-length", String(request.body.count), .fieldValue, &bytes, &offsets)
        }
    }

    /// Which bytes a value may hold.
    private enum ValueBytes {
        /// RFC 9110 token characters (method, scheme).
        case token
        /// Visible ASCII (`:authority`, `:path`).
        case target
        /// A field value: no control byte but HTAB.
        case fieldValue
    }

    /// Appends `name` lower-cased and `value`, and their offsets; false (with the field half
    /// written, which the caller then throws away) when `value` has a byte `allowed` refuses.
    private static func append(
        _ name: String, _ value: String, _ allowed: ValueBytes, _ bytes: inout [UInt8], _ offsets: inout [Int],
        neverIndexed: Bool = false
    ) -> Bool {
        offsets.append(bytes.count)
        offsets.append(name.utf8.count)
        for byte in name.utf8 { bytes.append(ByteClass.lowercased(byte)) }
        offsets.append(bytes.count)
        offsets.append(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
        offsets.append(Int(neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
        let start = bytes.count - value.utf8.count
        return bytes.withUnsafeBufferPointer { all in
            let written = UnsafeBufferPointer(rebasing: all[start...])
            switch allowed {
            case .target:
                return !written.contains { $0 <= 0x20 || $0 >= 0x7F }
            case .token:
                return ByteClass.token.withUnsafeBufferPointer { table in written.allSatisfy { table[Int($0)] } }
            case .fieldValue:
                return ByteClass.fieldValue.withUnsafeBufferPointer { table in written.allSatisfy { table[Int($0)] } }
            }
        }
    }

    /// Credentials and cookies (RFC 7541 §7.1.3 names them): sent as never-indexed literals.
    private static func isSensitive(_ name: String) -> Bool {
        let same = HTTPHeaders.equalsIgnoringCase
        switch name.utf8.count {
        case 6: return same(name, "cookie")
        case 13: return same(name, "authorization")
        case 19: return same(name, "proxy-authorization")
        default: return false
        }
    }

    /// By length first: most fields are compared with nothing.
    private static func isDropped(_ name: String, _ value: String) -> Bool {
        let same = HTTPHeaders.equalsIgnoringCase
        switch name.utf8.count {
        case 2: return same(name, "te") && !same(value, "trailers")
        case 4: return same(name, "host")
        case 7: return same(name, "upgrade")
        case 10: return same(name, "connection") || same(name, "keep-alive")
        case 14: return same(name, "content-length")
        case 16: return same(name, "proxy-connection")
        case 17: return same(name, "transfer-encoding")
        default: return false
        }
    }

    private static func hasBodySemantics(_ method: String) -> Bool {
        method == "POST" || method == "PUT" || method == "PATCH"
    }
}

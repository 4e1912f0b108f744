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
            for index in stride(from: 0, to: fieldOffsets.count, by: 4) {
                fieldVectors.append(
                    nghttp2_nv(
                        name: base + fieldOffsets[index], value: base + fieldOffsets[index + 2],
                        namelen: fieldOffsets[index + 1], valuelen: fieldOffsets[index + 3],
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
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

    /// Fills `fieldBytes` and `fieldOffsets` (name start, name length, value start, value length)
    /// with the pseudo-header fields, the request's fields lower-cased and filtered, and
    /// `content-length`.
    private func encodeFields(_ request: H2Request) throws(ClientError) {
        fieldBytes.removeAll(keepingCapacity: true)
        fieldOffsets.removeAll(keepingCapacity: true)
        guard !request.method.isEmpty, request.method.utf8.allSatisfy({ ByteClass.token[Int($0)] }) else {
            throw .invalidRequest("the method is not an RFC 9110 token")
        }
        guard request.path.utf8.first == UInt8(ascii: "/") || request.path == "*",
            request.path.utf8.allSatisfy(ByteClass.isTargetByte),
            !request.authority.isEmpty, request.authority.utf8.allSatisfy(ByteClass.isTargetByte),
            !request.scheme.isEmpty, request.scheme.utf8.allSatisfy({ ByteClass.token[Int($0)] })
        else { throw .invalidRequest("the scheme, authority or path cannot be sent") }
        append(":method", request.method)
        append(":scheme", request.scheme)
        append(":authority", request.authority)
        append(":path", request.path)
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy({ ByteClass.token[Int($0)] }) else {
                throw .invalidRequest("a header name is not an RFC 9110 token")
            }
            guard value.utf8.allSatisfy({ ByteClass.fieldValue[Int($0)] }) else {
                throw .invalidRequest("a header value has a control character")
            }
            if Self.isDropped(name, value) { continue }
            append(name, value)
        }
        if !request.body.isEmpty || Self.hasBodySemantics(request.method) {
            append("content-length", String(request.body.count))
        }
    }

    private func append(_ name: String, _ value: String) {
        fieldOffsets.append(fieldBytes.count)
        fieldOffsets.append(name.utf8.count)
        for byte in name.utf8 { fieldBytes.append(ByteClass.lowercased(byte)) }
        fieldOffsets.append(fieldBytes.count)
        fieldOffsets.append(value.utf8.count)
        fieldBytes.append(contentsOf: value.utf8)
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

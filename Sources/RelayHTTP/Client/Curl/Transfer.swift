import CCurl
import RelaySync
import Synchronization

/// One exchange in flight: the easy handle, its option lists, and the response as it arrives.
///
/// `@unchecked Sendable`: built on the caller's thread, then handed to the loop thread through its
/// locked inbox; from then on only the loop thread (and libcurl callbacks it runs) touch the
/// mutable fields. `cancelled` is atomic because the cancelling task sets it from elsewhere.
final class Transfer: @unchecked Sendable {
    typealias Completion = CheckedContinuation<Result<ClientResponse, ClientError>, Never>

    let easy: CurlEasy
    let maxBytes: Int
    let policy: AddressPolicy
    let cancelled = Atomic<Bool>(false)
    var continuation: Completion?
    /// `https://host:port` when the exchange may use a pooled connection and so goes where
    /// `OriginRouter` says; nil for plain `http`, pinned and policy-checked exchanges (always
    /// the parallel lane, fresh connection or not).
    private(set) var origin: String?
    /// When the whole exchange must be over (ms on the monotonic clock): the loop fails it at
    /// that point even while it waits for a connection, where libcurl's own timeout does not run.
    let deadline: Int64
    /// The lane whose multi handle runs it; nil while held back or not started.
    var lane: ClientLane.Kind?
    /// The first exchange with an origin not known yet (see `OriginRouter`).
    var isProbe = false

    private var lists: [CurlList] = []
    private(set) var body: [UInt8] = []
    private(set) var headers = HTTPHeaders()
    private var receivedBytes = 0
    private(set) var exceededLimit = false
    private(set) var refusedAddress = false
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(_ request: ClientRequest, _ configuration: HTTPClientConfiguration, easy: CurlEasy?) throws(ClientError) {
        guard let easy = easy ?? CurlEasy() else { throw .transport("libcurl could not create a handle") }
        self.easy = easy
        maxBytes = request.maxResponseBytes ?? configuration.maxResponseBytes
        policy = request.addressPolicy ?? configuration.addressPolicy
        deadline =
            ClientLoop.monotonicMilliseconds() + Int64((request.timeout ?? configuration.timeout).roundedUpMilliseconds)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure(request, configuration)
    }

    deinit { errorBuffer.deallocate() }

    /// The error libcurl wrote for the last failure, without the URL's query (libcurl never
    /// includes it, but the text is cut at `?` to be certain).
    var errorMessage: String {
        let text = String(cString: errorBuffer)
        return String(text.prefix { $0 != "?" })
    }

    private func configure(_ request: ClientRequest, _ configuration: HTTPClientConfiguration) throws(ClientError) {
        let lower = request.url.lowercased()
        let isHTTPS = lower.hasPrefix("https://")
        guard isHTTPS || lower.hasPrefix("http://") else { throw .invalidRequest("only http and https URLs") }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw .invalidRequest("the URL must be percent-encoded ASCII")
        }
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        guard easy.set(CURLOPT_URL, request.url) else { throw .invalidRequest("malformed URL") }
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_FOLLOWLOCATION, 0)
        easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        // TLS 1.2 at least, whatever the system OpenSSL's default security level allows.
        easy.set(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2))
        if let caFile = configuration.caFile { easy.set(CURLOPT_CAINFO, caFile) }
        easy.set(CURLOPT_PROXY, configuration.proxy ?? "")
        // HTTP/2 when the server's ALPN offers it, HTTP/1.1 otherwise; plain http stays HTTP/1.1.
        easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        easy.set(CURLOPT_ACCEPT_ENCODING, "")
        easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        easy.set(
            CURLOPT_CONNECTTIMEOUT_MS, (request.connectTimeout ?? configuration.connectTimeout).roundedUpMilliseconds)
        easy.set(CURLOPT_TIMEOUT_MS, (request.timeout ?? configuration.timeout).roundedUpMilliseconds)
        _ = relay_curl_setopt_off(easy.handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes))
        configureMethod(request)
        for (name, _) in request.headers where name.isEmpty || !name.utf8.allSatisfy(Self.isTokenByte) {
            throw .invalidRequest("a header name is not an RFC 9110 token")
        }
        configureHeaders(request)
        try configureAddress(request)
        if isHTTPS && request.pinnedAddress == nil && policy == .any { origin = Self.origin(lower) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = relay_curl_setopt_write(easy.handle, CURLOPT_WRITEFUNCTION, transferWriteBody)
        easy.set(CURLOPT_WRITEDATA, pointer: context)
        _ = relay_curl_setopt_write(easy.handle, CURLOPT_HEADERFUNCTION, transferWriteHeader)
        easy.set(CURLOPT_HEADERDATA, pointer: context)
        _ = relay_curl_setopt_opensocket(easy.handle, transferOpenSocket)
        easy.set(CURLOPT_OPENSOCKETDATA, pointer: context)
    }

    private func configureMethod(_ request: ClientRequest) {
        switch request.method {
        case .get: easy.set(CURLOPT_HTTPGET, 1)
        case .head: easy.set(CURLOPT_NOBODY, 1)
        default:
            easy.set(CURLOPT_POST, 1)
            _ = relay_curl_setopt_off(easy.handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            request.body.withUnsafeBytes { bytes in
                // COPYPOSTFIELDS copies now, so the array need not outlive this call.
                let pointer = bytes.baseAddress ?? UnsafeRawPointer(errorBuffer)
                easy.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: pointer))
            }
            if request.method != .post { easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) }
        }
    }

    private func configureHeaders(_ request: ClientRequest) {
        let list = CurlList([])
        // An empty `Expect:` stops libcurl waiting for `100 Continue` before larger bodies.
        list.append("Expect:")
        // libcurl labels every POST body as a form unless told otherwise; send no type instead.
        if request.headers["content-type"] == nil { list.append("Content-Type:") }
        // Each line is written into one reused C-string buffer; libcurl copies it.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        for (name, value) in request.headers {
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: name.utf8)
            // Bytes, not Characters: "\r\n" is one Character and would slip through a Character filter.
            let kept = value.utf8.lazy.filter { $0 != 0x0D && $0 != 0x0A && $0 != 0 }
            if kept.isEmpty {
                line.append(UInt8(ascii: ";"))  // libcurl's spelling of a header with an empty value
            } else {
                line.append(contentsOf: ": ".utf8)
                line.append(contentsOf: kept)
            }
            line.append(0)
            line.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { list.append($0.baseAddress!) }
            }
        }
        lists.append(list)
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list.head))
    }

    private func configureAddress(_ request: ClientRequest) throws(ClientError) {
        guard request.pinnedAddress != nil || policy != .any else { return }
        // A pinned or policy-checked exchange never reuses a pooled connection, whose address was
        // checked under other rules, and never leaves its connection behind for others.
        easy.set(CURLOPT_FRESH_CONNECT, 1)
        easy.set(CURLOPT_FORBID_REUSE, 1)
        guard let address = request.pinnedAddress else { return }
        let literal = address.isIPv4 ? address.unredacted : "[\(address.unredacted)]"
        // CONNECT_TO (not RESOLVE) so the pin does not enter the shared DNS cache.
        let list = CurlList(["::\(literal):"])
        lists.append(list)
        easy.set(CURLOPT_CONNECT_TO, pointer: UnsafeMutableRawPointer(list.head))
    }

    // MARK: Callbacks (called by libcurl on the loop thread)

    func appendBody(_ pointer: UnsafeRawPointer, _ count: Int) -> Bool {
        receivedBytes += count
        guard receivedBytes <= maxBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        return true
    }

    func appendHeaderLine(_ pointer: UnsafeRawPointer, _ count: Int) -> Bool {
        receivedBytes += count
        guard receivedBytes <= maxBytes else {
            exceededLimit = true
            return false
        }
        let line = UnsafeRawBufferPointer(start: pointer, count: count)
        if line.starts(with: "HTTP/".utf8) {
            headers = HTTPHeaders()  // a new status line: an interim 1xx response came before
            headers.reserveCapacity(16)  // room for a typical response's fields without regrowing
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
        var start = colon + 1
        var end = line.endIndex
        while start < end, Self.isWhitespace(line[start]) { start += 1 }
        while end > start, Self.isWhitespace(line[end - 1]) { end -= 1 }
        headers.add(
            String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self),
            String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
        return true
    }

    /// `scheme://authority` of a lowercased absolute URL: the key `OriginRouter` learns by.
    private static func origin(_ url: String) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[colon...].starts(with: "://".utf8)
        else { return url }
        let authority = bytes.index(colon, offsetBy: 3)
        let end =
            bytes[authority...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? bytes.endIndex
        return String(url[..<end])
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }

    func allow(_ address: IPAddress?) -> Bool {
        guard policy == .publicOnly else { return true }
        guard let address, address.isPublic else {
            refusedAddress = true
            return false
        }
        return true
    }
}

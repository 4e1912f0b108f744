import Dispatch
import Foundation
import RelayHTTP
import RelayOAuth
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A response as the tests read it.
struct TestResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `Location` header parsed as a URL's query items (percent-decoded).
    var locationQuery: [String: [String]] {
        guard let location = header("location"), let mark = location.firstIndex(of: "?") else { return [:] }
        var result: [String: [String]] = [:]
        for pair in FormDecoding.pairs(location[location.index(after: mark)...]) ?? [] {
            result[pair.name, default: []].append(pair.value)
        }
        return result
    }
}

/// A minimal HTTP/1.1 client for tests: one connection per request (`Connection: close`), run
/// on a thread of its own so the blocking socket calls never sit on the cooperative pool. Redirects
/// are not followed.
struct TestHTTPClient: Sendable {
    let port: Int
    /// The loopback address to connect from (another 127.x address stands for another client).
    var source: String? = nil

    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> TestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        let port = self.port
        let source = self.source
        return try await withCheckedThrowingContinuation { continuation in
            // A thread of its own, not Dispatch's global queue: on Linux the Swift cooperative pool
            // runs on that queue's threads, and a blocked receive there starves the server's tasks
            // (work that leaves the event loop waited up to a second for Dispatch to add a thread).
            let thread = Thread {
                continuation.resume(with: Result { try Self.exchange(request, port: port, source: source) })
            }
            thread.start()
        }
    }

    func get(_ target: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send("GET", target, headers: headers)
    }

    func postForm(_ target: String, _ pairs: [(String, String)], headers: [(String, String)] = []) async throws
        -> TestResponse
    {
        try await send(
            "POST", target, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            body: Array(FormDecoding.encode(pairs).utf8))
    }

    func postJSON(_ target: String, _ json: String, headers: [(String, String)] = []) async throws -> TestResponse {
        try await send(
            "POST", target, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }

    struct Failure: Error { let message: String }

    private static func exchange(_ request: [UInt8], port: Int, source: String?) throws -> TestResponse {
        let connection = try LoopbackConnection(port: port, source: source, receiveTimeout: 10)
        try connection.send(request)
        let data = try connection.receiveToEnd()
        guard let end = data.firstRange(of: [13, 10, 13, 10]) else { throw Failure(message: "no response head") }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let headers = lines.dropFirst().map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        return TestResponse(status: status, headers: headers, body: Array(data[end.upperBound...]))
    }
}

/// A browser for the page flows: a cookie jar (Set-Cookie honoured, Max-Age=0 deletes), one tab's
/// `sessionStorage` as `TabBinding`'s scripts use it (a page's `data-tab` kept, the callback page's
/// POST made with it), and helpers that read the hidden fields of a page's form. The scripts
/// themselves run in Chromium (`BrowserTests`); this plays what they do.
final class TestBrowser: @unchecked Sendable {
    // Unchecked: each test drives its browser from one task at a time; the lock makes the jar
    // safe when a test fires parallel requests from copies of it.
    private let lock = NSLock()
    private var jar: [String: String] = [:]
    private var storedTab: String?
    let client: TestHTTPClient
    var acceptLanguage = "en"

    init(client: TestHTTPClient) { self.client = client }

    var cookies: [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return jar
    }

    func setCookie(_ name: String, _ value: String?) {
        lock.lock()
        jar[name] = value
        lock.unlock()
    }

    private var cookieHeader: [(String, String)] {
        let cookies = self.cookies
        guard !cookies.isEmpty else { return [] }
        return [("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))]
    }

    /// This tab's `sessionStorage` entry (`TabBinding.storageKey`).
    var tab: String? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return storedTab
        }
        set {
            lock.lock()
            storedTab = newValue
            lock.unlock()
        }
    }

    /// A GET in this tab. A page whose form carries `data-tab` leaves its nonce in the tab; the
    /// callback page is followed by its POST (query and the tab's nonce, read once), whose answer
    /// is returned.
    func get(_ target: String) async throws -> TestResponse {
        let response = try await client.get(target, headers: cookieHeader + [("Accept-Language", acceptLanguage)])
        absorb(response)
        if response.status == 200, let nonce = Self.attribute("data-tab", in: response.text) { tab = nonce }
        if response.status == 200, response.text.contains("<form id=\(TabBinding.formID) ") {
            let path = String(target.prefix { $0 != "?" })
            let query = target.contains("?") ? String(target.drop { $0 != "?" }.dropFirst()) : ""
            let nonce = tab ?? ""
            tab = nil
            return try await post(
                path, [(TabBinding.queryField, query), (TabBinding.nonceField, nonce)],
                headers: [("Sec-Fetch-Site", "same-origin")])
        }
        return response
    }

    func post(_ target: String, _ pairs: [(String, String)], headers: [(String, String)] = []) async throws
        -> TestResponse
    {
        let response = try await client.postForm(
            target, pairs, headers: cookieHeader + [("Accept-Language", acceptLanguage)] + headers)
        absorb(response)
        return response
    }

    private func absorb(_ response: TestResponse) {
        for header in response.headers("set-cookie") {
            let first = header.split(separator: ";")[0]
            let parts = first.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let deleted = header.contains("Max-Age=0")
            setCookie(String(parts[0]), deleted ? nil : String(parts.count > 1 ? parts[1] : ""))
        }
    }

    /// The value of the first quoted attribute `name` in a page.
    static func attribute(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: "\(name)=\"") else { return nil }
        let rest = page[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The value of the hidden input `name` in a page.
    static func hidden(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: "name=\(name) value=\"") else { return nil }
        let rest = page[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}

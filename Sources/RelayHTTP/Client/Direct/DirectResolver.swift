import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Resolves host names for the direct loop on a thread of its own (`relay-resolve`), because
/// `getaddrinfo` blocks; the loop never does. Answers go back through `deliver`, which the loop
/// sets to post them into its inbox. The cache lives in the loop (`DirectDNSCache`).
///
/// `@unchecked Sendable`: `queue` and `stopping` are only touched under `condition`'s lock; the
/// thread is started once.
final class DirectResolver: @unchecked Sendable {
    /// A lookup's answer: the addresses in `getaddrinfo`'s order, or why there are none.
    typealias Answer = Result<[DirectAddress], ClientError>

    private let condition = NSCondition()
    private var queue: [(host: String, port: Int, key: String)] = []
    private var stopping = false
    private var started = false
    private let deliver: @Sendable (String, Answer) -> Void

    init(deliver: @escaping @Sendable (String, Answer) -> Void) { self.deliver = deliver }

    /// Asks for `host`'s addresses (with `port` filled in); the answer comes through `deliver`
    /// with `key`.
    func resolve(_ host: String, port: Int, key: String) {
        condition.lock()
        queue.append((host, port, key))
        let start = !started
        started = true
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "relay-resolve"
            thread.stackSize = 512 << 10
            thread.start()
        }
    }

    /// Ends the thread after the lookup it is in, if any.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let (host, port, key) = queue.removeFirst()
            condition.unlock()
            deliver(key, Self.lookUp(host, port: port))
        }
    }

    static func lookUp(_ host: String, port: Int) -> Answer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0, let list else {
            return .failure(.connectFailed("could not resolve host \(host): \(String(cString: gai_strerror(code)))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [DirectAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            let family = current.pointee.ai_family
            if let address = current.pointee.ai_addr, family == AF_INET || family == AF_INET6 {
                addresses.append(DirectAddress(address, length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(.connectFailed("could not resolve host \(host)")) }
        return .success(addresses)
    }
}

/// Resolved addresses per host and port, for 60 s (libcurl's default DNS cache lifetime), at most 256 hosts.
struct DirectDNSCache {
    static let lifetimeMilliseconds: Int64 = 60_000
    static let capacity = 256
    private var entries: [String: (addresses: [DirectAddress], expires: Int64)] = [:]

    func addresses(_ host: String, now: Int64) -> [DirectAddress]? {
        guard let entry = entries[host], entry.expires > now else { return nil }
        return entry.addresses
    }

    mutating func store(_ host: String, _ addresses: [DirectAddress], now: Int64) {
        if entries.count >= Self.capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= Self.capacity { entries.removeAll() }
        }
        entries[host] = (addresses, now + Self.lifetimeMilliseconds)
    }
}

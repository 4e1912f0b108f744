import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's descriptor limit (`RLIMIT_NOFILE`). Every connection is a descriptor, so the
/// server's `maxConnections` means something only below it: past the limit `accept` fails and the
/// promised 503 cannot be sent.
package struct DescriptorLimit: Sendable, Equatable, CustomStringConvertible {
    /// What the process may open now.
    package let soft: Int
    /// What the soft limit may be raised to without privileges.
    package let hard: Int

    /// A limit with these values.
    package init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    package var description: String { "\(soft) (hard \(hard))" }

    /// The limit in force.
    package static func current() -> DescriptorLimit {
        var limit = rlimit()
        getrlimit(RLIMIT_NOFILE_VALUE, &limit)
        return DescriptorLimit(soft: clamp(limit.rlim_cur), hard: clamp(limit.rlim_max))
    }

    /// The highest soft limit `raiseSoftLimit()` can set: the hard limit, or the kernel's
    /// per-process ceiling (`fs.nr_open`) when the hard limit is unlimited.
    package static func attainable() -> Int {
        let hard = current().hard
        return hard == Int.max ? kernelCeiling() : hard
    }

    /// Raises the soft limit to `attainable()` (a no-op when it is there already). Throws when
    /// the system refuses, e.g. under a system-call filter that forbids `setrlimit` (the systemd
    /// unit sets `LimitNOFILE=` itself); the limit is then what it was.
    @discardableResult
    package static func raiseSoftLimit() throws(SocketError) -> DescriptorLimit {
        var limit = rlimit()
        getrlimit(RLIMIT_NOFILE_VALUE, &limit)
        let target = rlim_t(attainable())
        guard limit.rlim_cur < target else { return current() }
        limit.rlim_cur = target
        guard setrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { throw SocketError("setrlimit(RLIMIT_NOFILE)") }
        return current()
    }

    // Glibc imports RLIMIT_NOFILE as an enum case of __rlimit_resource; the functions take its raw value.
    private static let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    private static func clamp(_ value: rlim_t) -> Int {
        // RLIM_INFINITY is all ones (Glibc imports it as a macro Swift cannot evaluate).
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }

    private static func kernelCeiling() -> Int {
        let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)
        return text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1 << 20
    }
}

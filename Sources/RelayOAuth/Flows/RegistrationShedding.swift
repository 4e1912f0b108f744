import RelayHTTP
import RelaySync

/// Client addresses whose registrations are refused from the request's head alone: no body
/// parsed, nothing hashed, no store operation, no task (`AuthorizationServer.shedsRegistration`).
///
/// An address that has spent its budget of new clients (`registrationRateLimit`) and has then been
/// refused as many times again in the same window is flooding: until that window ends, every
/// `POST /register` from it is answered 429 at once, and the server serves those requests after
/// everyone else's (`ServerConfiguration.lowPriority`). Before that, an address over its budget is
/// still answered through the whole registration path, so a platform that merely reached its
/// budget keeps having its known metadata answered (reusing a stored record never counts).
///
/// Per instance and in memory, keyed by the client's `AddressBlock` (an IPv4 address, an IPv6
/// /64: the key every per-address limit counts); never stored or
/// logged. At most `capacity` addresses: past it, ended windows go, and
/// if that is not enough the table starts afresh (each address then costs `threshold` full
/// refusals again before it is shed).
final class RegistrationShedding: Sendable {
    private struct Entry {
        /// When the address's window ends.
        var end: Int
        /// Refusals of new metadata seen in that window.
        var refusals: Int
    }

    /// Refusals in one window after which an address is shed.
    let threshold: Int
    private let capacity: Int
    private let entries = Locked<[AddressBlock: Entry]>([:])

    init(threshold: Int, capacity: Int = 100_000) {
        self.threshold = max(1, threshold)
        self.capacity = max(10, capacity)
    }

    /// Notes one refusal of new metadata from `address`, whose window ends in `wait` seconds.
    func refused(_ address: AddressBlock, wait: Int, now: Int) {
        entries.withLock { entries in
            if entries[address] == nil && entries.count >= capacity {
                entries = entries.filter { $0.value.end > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            var entry = entries[address] ?? Entry(end: now + wait, refusals: 0)
            if entry.end <= now { entry = Entry(end: now + wait, refusals: 0) }
            entry.refusals += 1
            entries[address] = entry
        }
    }

    /// Seconds until `address` may register again, when it is shed now; nil otherwise.
    func wait(_ address: AddressBlock, now: Int) -> Int? {
        entries.withLock { entries in
            guard let entry = entries[address] else { return nil }
            if entry.end <= now {
                entries[address] = nil
                return nil
            }
            return entry.refusals >= threshold ? entry.end - now : nil
        }
    }

    /// Addresses remembered (for tests).
    var count: Int { entries.withLock { $0.count } }
}

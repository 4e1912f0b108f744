import Foundation

/// A value behind a pthread mutex (`NSLock`). Used instead of `Synchronization.Mutex` for the
/// state shared with the client thread because ThreadSanitizer understands pthread locks but not
/// `Mutex`'s futex, and reported every `Mutex`-guarded access here as a race.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, under `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

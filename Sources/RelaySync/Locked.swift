import Foundation

/// A value behind a lock.
///
/// Used instead of `Synchronization.Mutex` because on Linux ThreadSanitizer cannot see `Mutex`'s
/// futex-based locking and reports every guarded access as a race, which would bury real races in
/// `--sanitize=thread` runs; `NSLock` is a pthread mutex, which it understands.
///
package final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `@unchecked Sendable`: `value` is only touched inside `withLock`, while `lock` is held.
extension Locked: @unchecked Sendable where Value: Sendable {}

import RelayCloudKit
import RelaySync
import RelayTodo

/// A session that lets a test act between a tool's CloudKit calls (the app writing meanwhile): `before` runs
/// with the 1-based number of each call before it is sent through the real session.
final class FakeInterposingSession: CloudKitSession {
    let inner: any CloudKitSession
    let before: @Sendable (Int) -> Void
    private let calls = Locked(0)

    init(_ inner: any CloudKitSession, before: @escaping @Sendable (Int) -> Void) {
        self.inner = inner
        self.before = before
    }

    func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        let number = calls.withLock { count -> Int in
            count += 1
            return count
        }
        before(number)
        return try await inner.perform(call)
    }
}

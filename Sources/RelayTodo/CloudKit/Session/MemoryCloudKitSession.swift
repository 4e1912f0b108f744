import Foundation
import RelayCloudKit
import RelaySync

/// A `CloudKitSession` whose token lives in memory: for tests and for the demo when no store is configured.
/// Calls go through a `GrantSerializer`, so it keeps the same discipline as a stored grant: one call in flight,
/// the rotated token in place before the next call starts.
package final class MemoryCloudKitSession: CloudKitSession {
    /// The key this session's calls are serialized under.
    package let grantID: String
    private let serializer: GrantSerializer
    private let state: Locked<(token: CloudKitWebAuthToken, rotations: Int)>

    /// A session starting from `token`. Sessions that share `serializer` and `grantID` take turns.
    package init(
        token: CloudKitWebAuthToken, grantID: String = UUID().uuidString,
        serializer: GrantSerializer = GrantSerializer()
    ) {
        self.grantID = grantID
        self.serializer = serializer
        state = Locked((token, 0))
    }

    /// The token the next call will use.
    package var token: CloudKitWebAuthToken { state.withLock { $0.token } }

    /// How many times CloudKit rotated the token so far.
    package var rotations: Int { state.withLock { $0.rotations } }

    /// Runs `call` with the current token under the grant's turn, and keeps the token it rotated to.
    package func perform<Value: Sendable>(
        _ call: (CloudKitWebAuthToken) async throws(CloudKitError) -> CloudKitResponse<Value>
    ) async throws(CloudKitError) -> Value {
        try await serializer.run(grant: grantID) { () async throws(CloudKitError) -> Value in
            do throws(CloudKitError) {
                let response = try await call(token)
                store(response.rotatedToken)
                return response.value
            } catch {
                store(error.rotatedToken)
                throw error
            }
        }
    }

    private func store(_ rotated: CloudKitWebAuthToken?) {
        guard let rotated else { return }
        state.withLock { state in
            state.token = rotated
            state.rotations += 1
        }
    }
}

import RelayCloudKit
import RelaySync
import RelayTodo

/// Writes the CloudKit tokens a store outage left in memory (`GrantStates`, unsaved) the moment the
/// store answers again, not at the grant's next call: until then another instance reads the
/// grant's older token from the store, and when old tokens die at once that token is dead. Each
/// write runs in the grant's turn (`GrantSerializer`), so it never races a call of the same grant.
final class UnsavedRotations: Sendable {
    private let states: GrantStates
    private let serializer: GrantSerializer
    private let writer: RotationWriter
    private let interval: Duration
    private let task = Locked<Task<Void, Never>?>(nil)

    init(
        states: GrantStates, serializer: GrantSerializer, writer: RotationWriter,
        interval: Duration = .milliseconds(500)
    ) {
        self.states = states
        self.serializer = serializer
        self.writer = writer
        self.interval = interval
    }

    func start() {
        let started = Task { [self] in
            while !Task.isCancelled {
                await writeAll()
                try? await Task.sleep(for: interval)
            }
        }
        task.withLock { $0 = started }
    }

    func stop() { task.withLock { $0?.cancel() } }

    /// One pass over every unsaved token; returns how many are still unsaved afterwards.
    @discardableResult
    func writeAll() async -> Int {
        for (grantID, _) in states.unsaved() {
            _ = try? await serializer.run(grant: grantID) { () async throws(CloudKitError) in
                // A call of the grant may have saved (or replaced) it while this waited its turn.
                guard let state = states.unsavedState(grantID), let owner = state.owner else { return }
                await writer.write(state.sealed, replacing: state, grant: owner)
            }
        }
        return states.unsavedCount
    }
}

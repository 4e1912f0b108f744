import RelayCloudKit
import RelaySync
import RelayTodo
import Testing

/// The per-grant serializer on its own: order, bound, cancellation, independence of grants.
@Suite struct GrantSerializerTests {
    /// Holds `grant` until `release` is called; returns once it holds it.
    func hold(_ serializer: GrantSerializer, _ grant: String) async -> (task: Task<Void, any Error>, release: Gate) {
        let started = Gate()
        let release = Gate()
        let task = Task {
            try await serializer.run(grant: grant) { () async throws(CloudKitError) in
                started.open()
                await release.wait()
            }
        }
        await started.wait()
        return (task, release)
    }

    /// Waits until `count` calls of `grant` are queued.
    func queued(_ serializer: GrantSerializer, _ grant: String, _ count: Int) async {
        while serializer.waiting(for: grant) < count { await Task.yield() }
    }

    @Test func waitersRunOneAtATimeInArrivalOrder() async throws {
        let serializer = GrantSerializer()
        let (holder, release) = await hold(serializer, "g")
        let order = Shared<[Int]>([])
        var tasks: [Task<Void, any Error>] = []
        for index in 1...5 {
            tasks.append(
                Task {
                    try await serializer.run(grant: "g") { () async throws(CloudKitError) in
                        order.withLock { $0.append(index) }
                        await Task.yield()
                    }
                })
            await queued(serializer, "g", index)
        }
        #expect(order.withLock { $0 }.isEmpty)
        release.open()
        try await holder.value
        for task in tasks { try await task.value }
        #expect(order.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(serializer.activeGrants == 0)
    }

    @Test func neverTwoCallsOfOneGrantAtOnce() async throws {
        let serializer = GrantSerializer(maxWaiting: 200)
        let inside = Shared((now: 0, most: 0, done: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await serializer.run(grant: "g") { () async throws(CloudKitError) in
                        inside.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        try? await Task.sleep(for: .microseconds(100))
                        inside.withLock {
                            $0.now -= 1
                            $0.done += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
        #expect(inside.withLock { $0.done } == 100)
        #expect(serializer.activeGrants == 0)
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let serializer = GrantSerializer(maxWaiting: 2)
        let (holder, release) = await hold(serializer, "g")
        let waiters = (0..<2).map { _ in Task { try await serializer.run(grant: "g") { () throws(CloudKitError) in } } }
        await queued(serializer, "g", 2)
        do {
            try await serializer.run(grant: "g") { () throws(CloudKitError) in Issue.record("ran past a full queue") }
            Issue.record("a full queue admitted another call")
        } catch {
            #expect(error.kind == .throttled)
            #expect(error.status == nil)
            #expect(error.retryAfter == .seconds(1))
        }
        // Other grants are not held up.
        try await serializer.run(grant: "other") { () throws(CloudKitError) in }
        release.open()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(serializer.activeGrants == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let serializer = GrantSerializer()
        let (holder, release) = await hold(serializer, "g")
        let ran = Shared<[String]>([])
        let cancelled = Task {
            try await serializer.run(grant: "g") { () throws(CloudKitError) in ran.withLock { $0.append("cancelled") } }
        }
        await queued(serializer, "g", 1)
        let kept = Task {
            try await serializer.run(grant: "g") { () throws(CloudKitError) in ran.withLock { $0.append("kept") } }
        }
        await queued(serializer, "g", 2)
        cancelled.cancel()
        await #expect(throws: CloudKitError(.cancelled)) { try await cancelled.value }
        #expect(serializer.waiting(for: "g") == 1)
        release.open()
        try await holder.value
        try await kept.value
        #expect(ran.withLock { $0 } == ["kept"])
        #expect(serializer.activeGrants == 0)
    }

    @Test func aCallThatThrowsReleasesTheGrant() async throws {
        let serializer = GrantSerializer()
        await #expect(throws: CloudKitError(.unavailable)) {
            try await serializer.run(grant: "g") { () throws(CloudKitError) in throw CloudKitError(.unavailable) }
        }
        #expect(serializer.activeGrants == 0)
        try await serializer.run(grant: "g") { () throws(CloudKitError) in }
    }
}

/// A value shared between tasks.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Locked<Value>
    init(_ value: Value) { mutex = Locked(value) }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// A one-shot signal: `wait` returns once `open` was called (before or after).
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

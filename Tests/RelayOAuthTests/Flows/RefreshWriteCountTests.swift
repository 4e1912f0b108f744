import RelayJSON
import RelayStore
import RelaySync
import Testing

@testable import RelayOAuth

/// A refresh rotation is one store write: the new tokens and the grant's compare-and-swap in one
/// `transact`. A lost race writes nothing to undo; a transaction whose answer was lost is found
/// landed and answered.
struct RefreshWriteCountTests {
    /// Records every write on its way to the real store; `onTransact` may step in before one.
    final class RecordingStore: Store {
        enum Write: Equatable {
            case put, update, delete
            case transact(writes: Int)
        }

        let base: any Store
        let writes = Locked<[Write]>([])
        /// Runs before each transaction with its number (from 0); returns what to do with it.
        let onTransact = Locked<(@Sendable (Int, any Store) async -> TransactPlan)?>(nil)

        enum TransactPlan {
            /// Pass it on.
            case pass
            /// Make it, then answer `conditionFailed` as a retry of a landed request would.
            case loseAnswer
        }

        init(_ base: any Store) { self.base = base }

        func get(_ key: ItemKey) async throws(StoreError) -> Item? { try await base.get(key) }

        func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
            async throws(StoreError) -> Item
        {
            writes.withLock { $0.append(.put) }
            return try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
        }

        func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
            writes.withLock { $0.append(.update) }
            return try await base.update(key, update, condition: condition)
        }

        func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
            writes.withLock { $0.append(.delete) }
            return try await base.delete(key, condition: condition)
        }

        func transact(_ writes: [StoreWrite]) async throws(StoreError) {
            let number = self.writes.withLock { recorded in
                recorded.append(.transact(writes: writes.count))
                return recorded.count(where: { if case .transact = $0 { true } else { false } }) - 1
            }
            let plan = await onTransact.withLock { $0 }?(number, base) ?? .pass
            try await base.transact(writes)
            if plan == .loseAnswer { throw .conditionFailed }
        }

        func query(_ query: Query) async throws(StoreError) -> QueryPage { try await base.query(query) }

        func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
            try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        }

        /// What was written since `start` (an index into `writes`).
        func written(since start: Int) -> [Write] { writes.withLock { Array($0[start...]) } }
    }

    /// Runs `body` with a harness over a recording store, and always stops it.
    static func withRecording(_ body: (OAuthHarness, RecordingStore) async throws -> Void) async throws {
        let recorder = Locked<RecordingStore?>(nil)
        let h = try await OAuthHarness.start(wrap: { base in
            let store = RecordingStore(base)
            recorder.withLock { $0 = store }
            return store
        })
        let store = try #require(recorder.withLock { $0 })
        do {
            try await body(h, store)
        } catch {
            await h.stop()
            if let sqlite = store.base as? SQLiteStore { await sqlite.close() }
            throw error
        }
        await h.stop()
        if let sqlite = store.base as? SQLiteStore { await sqlite.close() }
    }

    /// The grant's token index entries of one kind (`TOKEN#` or `REFRESH#`).
    static func indexed(_ h: OAuthHarness, _ accessToken: String, _ prefix: String) async throws -> Int {
        let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(accessToken))
        return try await h.store.queryAll(Query(pk: "GRANT#" + grant.grantID, skPrefix: prefix)).count
    }

    @Test func oneRefreshIsOneStoreWrite() async throws {
        try await Self.withRecording { h, store in
            let first = try await h.connect()
            let start = store.writes.withLock { $0.count }
            let response = try await h.refresh(try #require(first.refreshToken), clientID: first.clientID)
            #expect(response.status == 200)
            // Two token items, their two index entries and the grant: one transaction.
            #expect(store.written(since: start) == [.transact(writes: 5)])
            let second = try Tokens(response, clientID: first.clientID)
            #expect(try await h.mcp(second.accessToken).status == 200)
            #expect(try await h.refresh(try #require(second.refreshToken), clientID: first.clientID).status == 200)
        }
    }

    /// Another write of the grant lands between the refresh's read and its transaction: the
    /// transaction writes nothing, the refresh reads again and its second transaction wins; no
    /// token is left behind and nothing is deleted.
    @Test func aLostRaceLeavesNothingToUndo() async throws {
        try await Self.withRecording { h, store in
            let first = try await h.connect()
            let grantID = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(first.accessToken)).grantID
            store.onTransact.withLock {
                $0 = { number, base in
                    if number == 1 {  // the code exchange was number 0
                        _ = try? await base.update(ItemKey(pk: "GRANT#" + grantID, sk: "META"), ItemUpdate())
                    }
                    return .pass
                }
            }
            let start = store.writes.withLock { $0.count }
            let response = try await h.refresh(try #require(first.refreshToken), clientID: first.clientID)
            #expect(response.status == 200)
            #expect(store.written(since: start) == [.transact(writes: 5), .transact(writes: 5)])
            let second = try Tokens(response, clientID: first.clientID)
            #expect(try await Self.indexed(h, second.accessToken, "REFRESH#") == 2, "the original and one successor")
            #expect(try await Self.indexed(h, second.accessToken, "TOKEN#") == 2)
            #expect(try await h.refresh(try #require(second.refreshToken), clientID: first.clientID).status == 200)
        }
    }

    /// The transaction landed but its answer was lost (the client's retry then failed the
    /// condition): the refresh finds its rotation in the grant and answers with its tokens.
    @Test func aLandedTransactionWhoseAnswerWasLostIsAnswered() async throws {
        try await Self.withRecording { h, store in
            let first = try await h.connect()
            store.onTransact.withLock { $0 = { number, _ in number == 1 ? .loseAnswer : .pass } }
            let start = store.writes.withLock { $0.count }
            let response = try await h.refresh(try #require(first.refreshToken), clientID: first.clientID)
            #expect(response.status == 200)
            #expect(store.written(since: start) == [.transact(writes: 5)])
            let second = try Tokens(response, clientID: first.clientID)
            #expect(try await h.mcp(second.accessToken).status == 200)
            #expect(h.recordedEvents.contains { if case .refreshRotated = $0 { true } else { false } })
            #expect(try await h.refresh(try #require(second.refreshToken), clientID: first.clientID).status == 200)
        }
    }
}

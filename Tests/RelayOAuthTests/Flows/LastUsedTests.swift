import RelayJSON
import RelayStore
import RelaySync
import Testing

@testable import RelayOAuth

/// "Last used" costs at most one store write per grant and day, and no read of its own: the day
/// the grant's record says arrives with the validation that already read it.
struct LastUsedTests {
    /// Counts what reaches the store: every read, and the writes of `used_day`.
    final class CountingStore: Store {
        let base: any Store
        let reads = Locked(0)
        let usageWrites = Locked(0)

        init(_ base: any Store) { self.base = base }

        func get(_ key: ItemKey) async throws(StoreError) -> Item? {
            reads.withLock { $0 += 1 }
            return try await base.get(key)
        }

        func put(_ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition)
            async throws(StoreError) -> Item
        {
            try await base.put(key, attributes: attributes, expiresAt: expiresAt, condition: condition)
        }

        func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError) -> Item {
            if update.set["used_day"] != nil { usageWrites.withLock { $0 += 1 } }
            return try await base.update(key, update, condition: condition)
        }

        func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
            try await base.delete(key, condition: condition)
        }

        func transact(_ writes: [StoreWrite]) async throws(StoreError) {
            try await base.transact(writes)
        }

        func query(_ query: Query) async throws(StoreError) -> QueryPage {
            reads.withLock { $0 += 1 }
            return try await base.query(query)
        }

        func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
            try await base.scan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        }
    }

    /// Runs `body` with a harness over a counting store, and always stops it.
    static func withCounting(_ body: (OAuthHarness, CountingStore) async throws -> Void) async throws {
        let counter = Locked<CountingStore?>(nil)
        let h = try await OAuthHarness.start(wrap: { base in
            let store = CountingStore(base)
            counter.withLock { $0 = store }
            return store
        })
        do {
            try await body(h, try #require(counter.withLock { $0 }))
        } catch {
            await h.stop()
            throw error
        }
        await h.stop()
    }

    @Test func manyCallsOnOneDayMakeOneWriteAndNoRead() async throws {
        try await Self.withCounting { h, store in
            let tokens = try await h.connect()
            var writesBefore = store.usageWrites.withLock { $0 }
            #expect(writesBefore == 0)
            for call in 0..<25 {
                let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
                #expect(grant.lastUsedDay == (call == 0 ? nil : UsageRecorder.day(h.oauth.context.now)))
                let reads = store.reads.withLock { $0 }
                await h.oauth.recordUse(grant)
                #expect(store.reads.withLock { $0 } == reads, "recording use read the store")
                h.clock.advance(by: 60)
            }
            #expect(store.usageWrites.withLock { $0 } == 1)
            let id = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken)).grantID
            #expect(try await h.oauth.grants.load(id)?.lastUsedDay == UsageRecorder.day(h.oauth.context.now))

            // Another instance (a recorder of its own) sees today's day in the record and writes nothing.
            let other = UsageRecorder(context: h.oauth.context)
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            #expect(other.claim(grant) == nil)

            // The next day: one more write, however many calls race for it.
            h.clock.advance(by: 86400)
            let fresh = try Tokens(
                try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID),
                clientID: tokens.clientID)
            writesBefore = store.usageWrites.withLock { $0 }
            let validated = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(fresh.accessToken))
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 { group.addTask { await h.oauth.recordUse(validated) } }
            }
            #expect(store.usageWrites.withLock { $0 } == writesBefore + 1)
            #expect(try await h.oauth.grants.load(id)?.lastUsedDay == UsageRecorder.day(h.oauth.context.now))
        }
    }

    /// When the grant changed between the validation and the write (a refresh rotated it), one read
    /// decides and the day is still written, without undoing the rotation.
    @Test func aGrantChangedSinceValidationIsReadOnceAndStillMarked() async throws {
        try await Self.withCounting { h, store in
            let tokens = try await h.connect()
            let grant = try await h.oauth.validateBearer(OAuthHarness.bearerRequest(tokens.accessToken))
            let refreshed = try await h.refresh(try #require(tokens.refreshToken), clientID: tokens.clientID)
            #expect(refreshed.status == 200)
            let reads = store.reads.withLock { $0 }
            await h.oauth.recordUse(grant)
            #expect(store.reads.withLock { $0 } == reads + 1)
            #expect(store.usageWrites.withLock { $0 } == 2)
            let stored = try #require(try await h.oauth.grants.load(grant.grantID))
            #expect(stored.lastUsedDay == UsageRecorder.day(h.oauth.context.now))
            #expect(stored.refreshGeneration == 1, "the rotation stays")
            let fresh = try Tokens(refreshed, clientID: tokens.clientID)
            #expect(try await h.mcp(fresh.accessToken).status == 200)
        }
    }
}

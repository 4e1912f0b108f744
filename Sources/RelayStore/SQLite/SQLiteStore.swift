import Foundation
import RelayJSON
import RelaySync

/// The embedded `Store`: one SQLite file in WAL mode with one table (docs/storage-schema.md).
///
/// Writes go to one writer thread that commits whatever is queued in one transaction (group
/// commit) and answers each caller only after its commit; reads go to a few reader connections,
/// which WAL lets run beside the writer. Every call suspends its task on a continuation, so SQLite
/// never blocks the cooperative pool or an event loop; a call that is not answered within
/// `operationTimeout` fails with `unavailable`, and a full queue fails with `throttled`.
///
/// With `synchronous = FULL` (the default) an acknowledged write survives a crash of the process
/// (`kill -9`) and of the machine; `NORMAL` survives the process only.
package final class SQLiteStore: Store {
    /// SQLite's `PRAGMA synchronous` in WAL mode.
    package enum Synchronous: Sendable, Hashable {
        /// fsync the WAL on every commit: durable across power loss.
        case full
        /// fsync only at checkpoints: durable across process crashes.
        case normal
    }

    /// The schema version this build writes (`PRAGMA user_version`): the table is created, or
    /// upgraded, when a store opens the file; a file from a newer build is refused.
    package static var schemaVersion: Int { ItemTable.schemaVersion }

    /// Settings of a store; only `path` is required.
    package struct Configuration: Sendable {
        /// The database file; created if missing (its directory must exist).
        package var path: String
        /// Reader connections (and threads).
        package var readerCount = 2
        /// How long a connection waits for a lock held by another process.
        package var busyTimeout: Duration = .seconds(2)
        /// How long a caller waits for any operation before getting `unavailable`.
        package var operationTimeout: Duration = .seconds(5)
        /// Queued operations per queue (reads, writes) before new ones get `throttled`.
        package var maxPendingOperations = 10_000
        /// Writes committed together in one transaction at most.
        package var maxBatchSize = 128
        /// How long the writer may wait for more writes before a commit while writes keep arriving,
        /// so that one fsync covers several of them (zero: never wait). An idle writer never waits.
        package var groupCommitLinger: Duration = .milliseconds(2)
        /// How often expired items are purged in the background (nil: never on its own).
        package var purgeInterval: Duration? = .seconds(60)
        /// Items deleted per purge transaction, so a purge never holds the writer for long.
        package var purgeBatchSize = 1000
        /// Durability of commits.
        package var synchronous: Synchronous = .full
        /// SQLite's page cache per connection, in KiB (B-tree interior pages of a million items fit).
        package var pageCacheKiB = 8192
        /// How often a background connection checkpoints the WAL into the database file.
        package var checkpointInterval: Duration = .seconds(1)
        /// Test hook: runs on the database thread before each read and inside each write batch.
        var beforeEachBatch: (@Sendable () -> Void)?
        /// Test hook: runs on the writer thread after each successful commit with the batch's size.
        var afterEachCommit: (@Sendable (Int) -> Void)?

        /// Defaults for the database at `path`.
        package init(path: String) {
            self.path = path
        }
    }

    private let threads: DatabaseThreads
    private let clock: any WallClock
    private let path: String
    private let busyTimeout: Duration
    private let purgeBatchSize: Int
    private let purging = Locked<Task<Void, Never>?>(nil)

    private init(threads: DatabaseThreads, clock: any WallClock, configuration: Configuration) {
        self.threads = threads
        self.clock = clock
        self.path = configuration.path
        self.busyTimeout = configuration.busyTimeout
        self.purgeBatchSize = configuration.purgeBatchSize
        if let interval = configuration.purgeInterval {
            let task = PurgeSchedule.start(every: interval) { [weak self] in
                guard let self else { return false }
                _ = try? await self.purgeExpired()
                return true
            }
            purging.withLock { $0 = task }
        }
    }

    /// Bytes SQLite has allocated in this process (page caches of every connection, statements),
    /// for the metrics: the page caches grow with the file up to `pageCacheKiB` per connection.
    package static var memoryInUse: Int { SQLiteConnection.memoryInUse }

    /// Opens (creating if needed) the database with default settings.
    package static func open(path: String, clock: any WallClock = SystemClock()) async throws(StoreError) -> SQLiteStore
    {
        try await open(Configuration(path: path), clock: clock)
    }

    /// Opens (creating if needed) the database. The files are opened on a helper thread.
    package static func open(_ configuration: Configuration, clock: any WallClock = SystemClock())
        async throws(StoreError)
        -> SQLiteStore
    {
        guard configuration.readerCount >= 1, configuration.maxBatchSize >= 1, configuration.maxPendingOperations >= 1,
            configuration.purgeBatchSize >= 1, configuration.pageCacheKiB >= 0
        else { throw .invalid("reader count, batch sizes and queue capacity must be positive") }
        let busy = configuration.busyTimeout
        let opened = await onNewThread {
            () throws(StoreError) -> (SQLiteConnection, [SQLiteConnection], SQLiteConnection) in
            let writer = try SQLiteConnection(path: configuration.path, busyTimeout: busy)
            try ItemTable.prepareWriter(writer, synchronous: configuration.synchronous)
            try writer.execute("PRAGMA cache_size=-\(configuration.pageCacheKiB)")
            var readers: [SQLiteConnection] = []
            for _ in 0..<configuration.readerCount {
                let reader = try SQLiteConnection(path: configuration.path, busyTimeout: busy)
                try ItemTable.prepareReader(reader)
                try reader.execute("PRAGMA cache_size=-\(configuration.pageCacheKiB)")
                readers.append(reader)
            }
            let checkpointer = try SQLiteConnection(path: configuration.path, busyTimeout: busy)
            try ItemTable.prepareCheckpointer(checkpointer, synchronous: configuration.synchronous)
            return (writer, readers, checkpointer)
        }
        let (writer, readers, checkpointer) = try opened.get()
        let threads = DatabaseThreads(
            writer: writer, readers: readers, checkpointer: checkpointer, configuration: configuration)
        return SQLiteStore(threads: threads, clock: clock, configuration: configuration)
    }

    deinit {
        purging.withLock { $0?.cancel() }
        threads.shutdownInBackground()
    }

    /// For tests: the writer's queue.
    var writeQueue: JobQueue<WriteJob> { threads.writeQueue }

    /// Finishes queued work, then closes every connection (checkpointing the WAL). Later calls
    /// fail with `unavailable`.
    package func close() async {
        purging.withLock { $0?.cancel() }
        await threads.shutdown()
        // SQLite checkpoints and removes the WAL only when the connection closing sees no other
        // open, and the threads close theirs at the same moment: two closing together can each
        // see the other and leave the WAL behind. One more connection, alone now, does it as it
        // closes (a checkpoint that fails only leaves the WAL, which the next open replays). It never
        // creates the file: a database removed meanwhile stays removed.
        if let last = try? SQLiteConnection(path: path, busyTimeout: busyTimeout, create: false) {
            _ = try? last.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    package func get(_ key: ItemKey) async throws(StoreError) -> Item? {
        try StoreLimits.check(key)
        let clock = self.clock
        return try await threads.read { (connection) throws(StoreError) -> Item? in
            try ItemTable.fetchLive(connection, key, now: clock.epochSeconds())
        }
    }

    package func put(
        _ key: ItemKey, attributes: JSONObject, expiresAt: Int?, condition: WriteCondition
    ) async throws(StoreError) -> Item {
        let outcome = try await apply(
            StoreWrite(key: key, change: .put(attributes: attributes, expiresAt: expiresAt), condition: condition))
        guard case .store(let item, _) = outcome else { throw .invalid("put produced no item") }
        return item
    }

    package func update(_ key: ItemKey, _ update: ItemUpdate, condition: WriteCondition) async throws(StoreError)
        -> Item
    {
        let outcome = try await apply(StoreWrite(key: key, change: .update(update), condition: condition))
        guard case .store(let item, _) = outcome else { throw .invalid("update produced no item") }
        return item
    }

    package func delete(_ key: ItemKey, condition: WriteCondition) async throws(StoreError) -> Item? {
        let outcome = try await apply(StoreWrite(key: key, change: .delete, condition: condition))
        guard case .remove(let previous) = outcome else { throw .invalid("delete produced an item") }
        return previous
    }

    /// One job on the writer, so it commits in a group commit like any write (the same
    /// durability), inside a savepoint: a write that fails part-way (its condition, a statement)
    /// rolls back this transaction's earlier writes and nothing else of the batch.
    package func transact(_ writes: [StoreWrite]) async throws(StoreError) {
        try StoreWrite.validate(transaction: writes)
        let clock = self.clock
        try await threads.write { (connection) throws(StoreError) in
            let now = clock.epochSeconds()
            try connection.run(cached: "SAVEPOINT transact")
            do throws(StoreError) {
                for write in writes { _ = try Self.apply(write, on: connection, now: now) }
                try connection.run(cached: "RELEASE transact")
            } catch {
                try? connection.run(cached: "ROLLBACK TO transact")
                try? connection.run(cached: "RELEASE transact")
                throw error
            }
        }
    }

    package func query(_ query: Query) async throws(StoreError) -> QueryPage {
        try StoreLimits.check(query)
        let clock = self.clock
        return try await threads.read { (connection) throws(StoreError) -> QueryPage in
            try ItemTable.query(connection, query, now: clock.epochSeconds())
        }
    }

    package func scan(pkPrefix: String, cursor: ScanCursor?, limit: Int) async throws(StoreError) -> ScanPage {
        try StoreLimits.checkScan(pkPrefix: pkPrefix, cursor: cursor, limit: limit)
        let clock = self.clock
        return try await threads.read { (connection) throws(StoreError) -> ScanPage in
            try ItemTable.scan(connection, pkPrefix: pkPrefix, cursor: cursor, limit: limit, now: clock.epochSeconds())
        }
    }

    /// Deletes every expired item now, one bounded transaction at a time; returns how many.
    @discardableResult
    package func purgeExpired() async throws(StoreError) -> Int {
        let clock = self.clock
        let limit = purgeBatchSize
        var total = 0
        while true {
            let removed = try await threads.write { (connection) throws(StoreError) -> Int in
                try ItemTable.purge(connection, now: clock.epochSeconds(), limit: limit)
            }
            total += removed
            if removed < limit { return total }
        }
    }

    /// SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file, otherwise the problems found.
    package func integrityCheck() async throws(StoreError) -> [String] {
        try await threads.read { (connection) throws(StoreError) -> [String] in
            try connection.column("PRAGMA integrity_check")
        }
    }

    /// Rows in the table, expired ones included (what a purge has not removed yet).
    package func storedItemCount() async throws(StoreError) -> Int {
        try await threads.read { (connection) throws(StoreError) -> Int in try ItemTable.count(connection) }
    }

    private func apply(_ write: StoreWrite) async throws(StoreError) -> StoreWrite.Outcome {
        try write.validate()
        let clock = self.clock
        return try await threads.write { (connection) throws(StoreError) -> StoreWrite.Outcome in
            try Self.apply(write, on: connection, now: clock.epochSeconds())
        }
    }

    /// The general path of every write: the live row read, `StoreWrite.apply`'s rules, the outcome stored.
    private static func apply(_ write: StoreWrite, on connection: SQLiteConnection, now: Int) throws(StoreError)
        -> StoreWrite.Outcome
    {
        let current = try ItemTable.fetchLive(connection, write.key, now: now)
        let storedExpiry = current.map(\.expiresAt)
        // Handed over, not shared: an update then changes the row's attributes in place
        // instead of copying them first.
        let outcome = try write.apply(to: consume current)
        switch outcome {
        case .store(let item, let encoded):
            try ItemTable.store(connection, item, encoded: encoded, replacingExpiry: storedExpiry)
        case .remove: try ItemTable.remove(connection, write.key)  // also clears an expired row
        }
        return outcome
    }
}

/// Runs blocking `body` on a new thread (not the cooperative pool) and returns its result.
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T) async -> Result<T, StoreError> {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: Result { () throws(StoreError) -> T in try body() })
        }
        thread.name = "sqlite-open"
        thread.start()
    }
}

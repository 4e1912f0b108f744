import CSQLite
import RelaySync

/// One SQLite connection, owned by this class and closed in `deinit`, with its prepared statements.
///
/// `@unchecked Sendable`: a connection is opened on a helper thread and then handed to exactly
/// one database thread, which is the only one to use it from then on (SQLite runs in multi-thread
/// mode, `SQLITE_OPEN_NOMUTEX`, which allows that but not concurrent use).
final class SQLiteConnection: @unchecked Sendable {
    /// What `sqlite3_memory_used()` reports: SQLite's allocations across the process.
    static var memoryInUse: Int { Int(sqlite3_memory_used()) }

    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens the database at `path`, creating the file unless `create` is false.
    init(path: String, busyTimeout: Duration, create: Bool = true) throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw .unavailable("cannot open the database: \(Self.message(for: status))")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout.wholeMilliseconds))
    }

    deinit {
        statements.removeAll()  // finalize every statement before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (pragmas, schema, transaction control).
    func execute(_ sql: String) throws(StoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw Self.error(for: status) }
    }

    /// Runs SQL without results through a cached prepared statement (transaction control on the
    /// writer: parsed once, not on every batch as `execute` would).
    func run(cached sql: String) throws(StoreError) {
        try prepared(sql).run()
    }

    /// The first column of the first row of `sql` as text (for pragmas that answer).
    func scalarText(_ sql: String) throws(StoreError) -> String? {
        let statement = try prepared(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.text(0) : nil
    }

    /// Every row's first column as text.
    func column(_ sql: String) throws(StoreError) -> [String] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        var rows: [String] = []
        while try statement.step() { rows.append(statement.text(0) ?? "") }
        return rows
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else { throw Self.error(for: status) }
        let statement = SQLiteStatement(raw)
        statements[sql] = statement
        return statement
    }

    /// Whether a transaction is open (SQLite rolls back on its own after some I/O errors).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Maps a result code to a `StoreError`: lock contention and I/O trouble are `unavailable`.
    /// SQLite's generic text for the code is used, never `sqlite3_errmsg`, which can quote input.
    static func error(for status: Int32) -> StoreError {
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: .unavailable("database is busy (locked by another connection)")
        case SQLITE_TOOBIG: .invalid("value too large for the database")
        default: .unavailable(message(for: status))
        }
    }

    static func message(for status: Int32) -> String {
        "\(String(cString: sqlite3_errstr(status))) (SQLite code \(status))"
    }
}

/// A prepared statement, finalized in `deinit`. Used only by its connection's thread.
///
/// Text up to `maxSlotBytes` is bound from a buffer the statement owns, one per parameter and kept
/// for its next execution (`SQLITE_STATIC`): SQLite reads it in place. A slot is only written when its parameter is bound again and freed only
/// after the statement is finalized, so SQLite never holds a pointer to memory that changed or
/// went away. Longer text is copied by SQLite as before (`SQLITE_TRANSIENT`).
final class SQLiteStatement {
    private let handle: OpaquePointer
    private var slots: [UnsafeMutableRawBufferPointer]
    static let maxSlotBytes = 16 * 1024

    init(_ handle: OpaquePointer) {
        self.handle = handle
        slots = Array(
            repeating: UnsafeMutableRawBufferPointer(start: nil, count: 0),
            count: Int(sqlite3_bind_parameter_count(handle)))
    }

    deinit {
        sqlite3_finalize(handle)
        for slot in slots { slot.deallocate() }
    }

    func bind(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in bind(index, bytes) }
    }

    /// Binds raw bytes as TEXT; SQLite compares them with memcmp (BINARY collation).
    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { bind(index, $0) }
    }

    private func bind(_ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        let slot = Int(index) - 1
        guard slots.indices.contains(slot), bytes.count <= Self.maxSlotBytes else {
            // A non-nil pointer even for "" so SQLite binds an empty string, not NULL.
            let pointer = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)!
            sqlite3_bind_text(
                handle, index, pointer.assumingMemoryBound(to: CChar.self), Int32(bytes.count), relay_sqlite_transient()
            )
            return
        }
        var buffer = slots[slot]
        var replaced: UnsafeMutableRawBufferPointer?
        if buffer.count < max(bytes.count, 1) {
            replaced = buffer
            // Room to grow into, bounded: a slot never holds more than `maxSlotBytes`.
            buffer = UnsafeMutableRawBufferPointer.allocate(
                byteCount: max(64, min(bytes.count * 2, Self.maxSlotBytes)), alignment: 1)
            slots[slot] = buffer
        }
        if let source = bytes.baseAddress { buffer.baseAddress!.copyMemory(from: source, byteCount: bytes.count) }
        sqlite3_bind_text(
            handle, index, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        // The old slot goes only once the parameter no longer points into it.
        replaced?.deallocate()
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(handle, index, sqlite3_int64(value))
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { bind(index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Advances; true when a row is available, false when done.
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw SQLiteConnection.error(for: status)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(StoreError) {
        defer { reset() }
        _ = try step()
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with the column's bytes, valid only during the call (no copy).
    func withBytes<R>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws(StoreError) -> R) throws(StoreError)
        -> R
    {
        let pointer = sqlite3_column_text(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}

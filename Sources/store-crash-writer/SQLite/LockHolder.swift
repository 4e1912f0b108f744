import CSQLite
import Foundation

/// Opens the database directly and holds its write lock (`BEGIN EXCLUSIVE`) for `seconds`.
func holdWriteLock(path: String, seconds: Double) {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        FileHandle.standardError.write(Data("hold-lock: cannot open the database\n".utf8))
        exit(1)
    }
    sqlite3_busy_timeout(handle, 5000)
    guard sqlite3_exec(handle, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK else {
        FileHandle.standardError.write(Data("hold-lock: cannot take the write lock\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("locked\n".utf8))
    Thread.sleep(forTimeInterval: seconds)
    sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    sqlite3_close(handle)
}

import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A failed step of an acceptance scenario, with what was seen.
struct AcceptanceFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a Python script beside these tests and returns its standard output and error; throws
/// unless it exits 0.
func runPython(_ script: String, _ arguments: [String]) async throws -> String {
    let path = ChildProcess.repository.appendingPathComponent("Tests/AcceptanceTests/python/" + script).path
    let child = try ChildProcess(executable: "/usr/bin/env", ["python3", path] + arguments)
    let status = try await child.waitForExit(timeout: .seconds(60))
    guard status == 0 else { throw AcceptanceFailure("\(script) exited \(status): \(child.text)") }
    return child.text
}

/// `PRAGMA integrity_check` and the number of grants of a relay SQLite file (python3's sqlite3).
func inspectSQLite(_ path: String) async throws -> (integrity: [String], grants: Int) {
    let output = try await runPython("sqlite_check.py", [path])
    guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
        let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let integrity = json["integrity"] as? [String], let grants = json["grants"] as? Int
    else { throw AcceptanceFailure("sqlite_check.py: \(output)") }
    return (integrity, grants)
}

import Foundation
import RelayTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `mustdo-relay-demo` on a fresh data directory for a headless Chromium walk (`e2e/*_walk.py`,
/// Selenium): the relay's and the emulator's URLs, and `.build/artifacts/screenshots/` for the
/// walk's screenshots. The set-up every browser test shares.
struct BrowserDemo {
    /// The demo's data directory (the relay's SQLite files, the emulator's state).
    let data: String
    let demo: ChildProcess
    /// The relay's base URL (the connector URL without `/mcp`).
    let relay: String
    let emulator: String
    let screenshots: String

    /// Starts the demo on data directory `<name>-<UUID>` after removing the earlier screenshots whose
    /// names `mine` accepts (the other walks' stay).
    init(_ name: String, screenshots mine: (String) -> Bool) async throws {
        try await self.init(name, folder: nil, replacing: mine)
    }

    /// Starts the demo on data directory `<name>-<UUID>` with the walk's screenshots in a folder of their
    /// own, `.build/artifacts/screenshots/<folder>/`, emptied first.
    init(_ name: String, folder: String) async throws {
        try await self.init(name, folder: folder, replacing: { _ in true })
    }

    private init(_ name: String, folder: String?, replacing mine: (String) -> Bool) async throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        do {
            screenshots = try Self.screenshots(in: folder, replacing: mine)
            demo = try ChildProcess(product: "mustdo-relay-demo", ["--port", "0", "--data", data])
            relay = try await demo.waitForOutput(matching: #"Connector URL \(MCP\):\s+(\S+)/mcp"#)
            emulator = try await demo.waitForOutput(matching: #"emulator at (http://[0-9.]+:\d+)"#)
        } catch {
            try? FileManager.default.removeItem(atPath: data)
            throw error
        }
    }

    /// Runs `e2e/<script> --relay … --emulator … --out <screenshots>` and `extra` with python3.
    func walk(_ script: String, _ extra: [String] = [], timeout: Duration) async throws -> PythonScript.Outcome {
        try await PythonScript.run(
            try ChildProcess.tool("python3"), "Tests/EndToEndTests/e2e/" + script,
            ["--relay", relay, "--emulator", emulator, "--out", screenshots] + extra, timeout: timeout)
    }

    /// Stops the demo with SIGINT, as a developer's Ctrl-C does; returns its exit status.
    func stop() async throws -> Int32 {
        demo.signal(SIGINT)
        return try await demo.waitForExit()
    }

    /// Removes the data directory.
    func remove() { try? FileManager.default.removeItem(atPath: data) }

    /// Whether `file` starts with the PNG signature.
    static func isPNG(_ file: String) -> Bool {
        Array((FileManager.default.contents(atPath: file) ?? Data()).prefix(4)) == [0x89, 0x50, 0x4E, 0x47]
    }

    /// `.build/artifacts/screenshots/` (or its subfolder `folder`), with the earlier screenshots whose
    /// names `mine` accepts removed.
    private static func screenshots(in folder: String?, replacing mine: (String) -> Bool) throws -> String {
        let base = PythonScript.repository.appendingPathComponent(".build/artifacts/screenshots")
        let screenshots = (folder.map { base.appendingPathComponent($0) } ?? base).path
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: screenshots) where mine(name) {
            try? FileManager.default.removeItem(atPath: screenshots + "/" + name)
        }
        return screenshots
    }
}

import Foundation
import RelayTestSupport
import Testing

/// How a Python walk that hangs fails its test: with what it printed so far and the line each of its
/// threads waits on, not with an empty output after the time limit (a browser walk prints its report
/// only at the end).
struct PythonScriptTests {
    @Test func aScriptPastItsTimeShowsItsOutputAndWhereItWaits() async throws {
        let name = ".build/hang-\(UUID().uuidString).py"  // run() takes a path inside the repository
        let script = PythonScript.repository.appendingPathComponent(name)
        try Data(
            """
            import time
            print("step one done")
            def wait_for_the_browser():
                time.sleep(60)
            wait_for_the_browser()
            """.utf8
        ).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let started = ContinuousClock.now
        await #expect {
            _ = try await PythonScript.run(try ChildProcess.tool("python3"), name, [], timeout: .seconds(2))
        } throws: { error in
            let text = "\(error)"
            return text.contains("still running after") && text.contains("step one done")
                && text.contains("wait_for_the_browser")
        }
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}

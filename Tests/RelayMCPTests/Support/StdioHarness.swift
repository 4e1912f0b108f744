import Foundation
import RelayJSON
import RelayMCP

#if canImport(Glibc)
    import Glibc
#endif

/// An `MCPStdioServer` in this process, wired to two pipes as a client would wire a child's standard
/// input and output: the test writes lines and reads the lines the server writes.
final class StdioHarness: @unchecked Sendable {
    // @unchecked: the descriptors are set once; `buffer` is used by one test task at a time.
    let toServer: Int32
    let fromServer: Int32
    let finished: Task<Void, Never>
    private var buffer: [UInt8] = []

    /// A wait tool on top of the sample tools: sleeps `ms` milliseconds (cancellable), then answers.
    struct WaitTool: Tool {
        var definition: ToolDefinition {
            ToolDefinition(
                name: "wait", description: "Waits.", requiredScopes: ["todos:read"],
                inputSchema: [
                    "type": "object", "properties": ["ms": ["type": "integer", "minimum": 0]], "required": ["ms"],
                ])
        }

        func call(_ arguments: JSONObject, context: ToolContext<TestPrincipal>) async throws -> ToolResult {
            try await Task.sleep(for: .milliseconds(arguments["ms"]?.intValue ?? 0))
            return .text("waited")
        }
    }

    init(
        prompts: [Prompt] = SamplePrompts.all, maxBodyBytes: Int = 4096, drainTimeout: Duration = .milliseconds(300)
    ) throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw POSIXError(.EMFILE) }
        toServer = input[1]
        fromServer = output[0]
        let server = try MCPStdioServer(
            configuration: MCPEndpointConfiguration(
                serverInfo: MCPServerInfo(name: "test-local", title: "Test Local", version: "0.1.0"),
                instructions: "Call get_me first.", maxBodyBytes: maxBodyBytes, validatesOutput: true),
            tools: SampleTools.all + [WaitTool()], prompts: prompts, principal: TestPrincipal(user: "alice"),
            drainTimeout: drainTimeout
        ) { principal in
            ToolResult(error: ToolError(code: "NOT_SIGNED_IN", message: "\(principal.user) must sign in."))
        }
        let (serverInput, serverOutput) = (input[0], output[1])
        finished = Task {
            await server.run(input: serverInput, output: serverOutput)
            close(serverInput)
            close(serverOutput)
        }
    }

    /// Writes one line (a newline is added).
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(toServer, $0.baseAddress, $0.count) }
    }

    func send(_ json: JSONValue) { send(json.jsonString) }

    /// The next line the server writes, or nil when none comes within `timeout` (or the pipe closed).
    /// It polls without blocking and sleeps between polls: the server runs on the same cooperative pool.
    /// The default is long: the whole test process can stall for many seconds on a loaded two-core machine.
    func line(timeout: Duration = .seconds(60)) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try? JSONValue(parsing: line)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: fromServer, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else {
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fromServer, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Sends a request and returns the next line.
    func ask(_ json: JSONValue) async -> JSONValue? {
        send(json)
        return await line()
    }

    private var inputOpen = true

    /// Closes the server's input (end of file).
    func closeInput() {
        guard inputOpen else { return }
        inputOpen = false
        close(toServer)
    }

    /// Closes the server's input and waits for it to stop.
    func finish() async {
        closeInput()
        await finished.value
        close(fromServer)
    }
}

import Foundation
import RelayJSON
import RelayTestSupport
import Testing

@testable import RelayMCP

/// End to end with the official MCP Python SDK client, 1.x and 2.x, each in its own virtualenv
/// (`scripts/install-deps.sh` creates `.venv-mcp1` and `.venv-mcp2`). No OAuth here: the fake
/// authenticator accepts a static bearer token.
@Suite(.enabled(if: PythonSDK.pythonExists, "python3 is not installed; skipping the MCP Python SDK end-to-end tests"))
struct PythonSDKTests {
    @Test func sdk1xInitializesListsAndCallsTools() async throws {
        try await withServer(TestServer(pageSize: 2)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp1", port: server.port)
            #expect(summary["sdk"]?.stringValue?.hasPrefix("1.") == true)
            #expect(summary["protocolVersion"] == "2025-11-25")
            try PythonSDK.checkCommon(summary)
            #expect(summary["sessionId"] == .null)
            // The 1.x client tears the connection down on an HTTP error status; an unknown method must
            // therefore come back as a JSON-RPC error in a 200.
            #expect(summary["prompts"] == "McpError")
            #expect(server.exchanges.contains("POST prompts/list 200"))
            #expect(server.exchanges.first == "POST initialize 200")
            #expect(server.exchanges.contains("POST notifications/initialized 202"))
            #expect(!server.exchanges.contains { $0.hasPrefix("GET") || $0.hasPrefix("DELETE") })
        }
    }

    @Test func sdk2xInAutoModeNegotiates2026WithoutAHandshake() async throws {
        try await withServer(TestServer(pageSize: 2)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp2", port: server.port)
            #expect(summary["sdk"]?.stringValue?.hasPrefix("2.") == true)
            #expect(summary["protocolVersion"] == "2026-07-28")
            try PythonSDK.checkCommon(summary)
            #expect(summary["capabilities"] == ["tools": ["listChanged": false]])
            // The probe is answered: no fallback round trip, no initialize, nothing but POSTs.
            #expect(server.exchanges.first == "POST server/discover 200")
            #expect(!server.exchanges.contains { $0.contains("initialize") })
            #expect(server.exchanges.allSatisfy { $0.hasPrefix("POST ") })
            // prompts/list does not exist here: a 404 the client turns into an MCP error.
            #expect(summary["prompts"] == "MCPError")
            #expect(server.exchanges.contains("POST prompts/list 404"))
            // subscriptions/listen: acknowledged with nothing to send, then ended gracefully.
            #expect(summary["listen"] == ["honored": [:], "events": [], "end": "graceful"])
            #expect(server.exchanges.contains("POST subscriptions/listen 200"))
        }
    }

    @Test func sdk2xForcedToTheLegacyRevisionInitializesAsBefore() async throws {
        try await withServer(TestServer(pageSize: 2)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp2", port: server.port, mode: "legacy")
            #expect(summary["protocolVersion"] == "2025-11-25")
            try PythonSDK.checkCommon(summary)
            #expect(server.exchanges.first == "POST initialize 200")
            #expect(!server.exchanges.contains { $0.contains("server/discover") })
            #expect(summary["prompts"] == "MCPError")
            #expect(server.exchanges.contains("POST prompts/list 200"))
            #expect(server.exchanges.contains("POST notifications/initialized 202"))
            #expect(summary["listen"] == nil)
        }
    }
}

/// The same SDK runs against a server with prompts: listed with their arguments, rendered, and every
/// argument error an MCP error with -32602 (in a 200 for 2025 sessions, with 400 in 2026), the
/// connection alive throughout.
@Suite(.enabled(if: PythonSDK.pythonExists, "python3 is not installed; skipping the MCP Python SDK end-to-end tests"))
struct PythonSDKPromptTests {
    static let errors: JSONValue = [
        "unknown": -32602, "missing": -32602, "unknownArgument": -32602, "badValue": -32602,
    ]

    func check(_ summary: JSONValue, titles: Bool) throws {
        try PythonSDK.checkCommon(summary)
        #expect(summary["prompts"] == "answered")
        let list = try #require(summary["promptList"]?.arrayValue)
        #expect(list.map { $0["name"] } == ["greet", "warm_up"])
        #expect(list.first?["arguments"] == ["name", "style"])
        #expect(list.first?["title"] == (titles ? "Greet" : .null))
        #expect(summary["greet"] == ["description": "A greeting", "messages": [["user", "SAY HELLO TO ANN!"]]])
        #expect(summary["promptErrors"] == Self.errors)
    }

    @Test func sdk1x() async throws {
        try await withServer(TestServer(pageSize: 2, prompts: SamplePrompts.all)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp1", port: server.port)
            #expect(summary["protocolVersion"] == "2025-11-25")
            try check(summary, titles: true)
            #expect(server.exchanges.contains("POST prompts/get 200"))
        }
    }

    @Test func sdk2xModern() async throws {
        try await withServer(TestServer(pageSize: 2, prompts: SamplePrompts.all)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp2", port: server.port)
            #expect(summary["protocolVersion"] == "2026-07-28")
            #expect(summary["capabilities"]?["prompts"] == ["listChanged": false])
            #expect(summary["capabilities"]?["tools"] == ["listChanged": false])
            try check(summary, titles: true)
            #expect(server.exchanges.contains("POST prompts/get 400"))
            #expect(server.exchanges.contains("POST prompts/get 200"))
        }
    }

    @Test func sdk2xLegacy() async throws {
        try await withServer(TestServer(pageSize: 2, prompts: SamplePrompts.all)) { server in
            let summary = try await PythonSDK.run(venv: ".venv-mcp2", port: server.port, mode: "legacy")
            #expect(summary["protocolVersion"] == "2025-11-25")
            try check(summary, titles: true)
            #expect(!server.exchanges.contains("POST prompts/get 400"))
        }
    }
}

enum PythonSDK {
    static let folder = "Tests/RelayMCPTests/e2e/"

    static var pythonExists: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `e2e/sdk_client.py` with the venv's interpreter and returns its JSON summary.
    static func run(venv: String, port: Int, mode: String = "auto") async throws -> JSONValue {
        let outcome = try await PythonScript.run(
            try PythonScript.virtualenv(venv), folder + "sdk_client.py",
            ["http://127.0.0.1:\(port)/mcp", TestServer.token, mode])
        guard outcome.status == 0, let line = outcome.reportLine else {
            throw Failure(description: "\(venv) client exited with \(outcome.status)\n\(outcome.output)")
        }
        return try JSONValue(parsing: line)
    }

    /// What both SDK lines must have seen.
    static func checkCommon(_ summary: JSONValue) throws {
        #expect(summary["serverName"] == "test-relay")
        #expect(summary["instructions"] == "Call get_me first.")
        #expect(summary["tools"] == ["echo", "schedule", "fail", "noop.one", "noop-two"])
        #expect(summary["pages"] == 3)
        #expect(summary["echo"]?["isError"] == false)
        #expect(summary["echo"]?["structured"] == ["echo": "hi hi", "user": "alice"])
        #expect(summary["echo"]?["text"] == [#"{"echo":"hi hi","user":"alice"}"#])
        #expect(summary["invalid"]?["isError"] == true)
        #expect(summary["invalid"]?["structured"]?["error"]?["field"] == "times")
        #expect(summary["invalid"]?["structured"]?["error"]?["code"] == "INVALID_ARGUMENT")
        #expect(summary["afterError"]?["structured"]?["echo"] == "still here")
    }
}

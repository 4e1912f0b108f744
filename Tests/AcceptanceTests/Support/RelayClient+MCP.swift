import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Testing

/// What a `tools/call` came back with.
enum ToolOutcome: Sendable, Equatable, CustomStringConvertible {
    /// A result (its `structuredContent`).
    case result(JSONValue)
    /// An `isError` result: its code and `retryAfter`.
    case toolError(code: String, retryAfter: Int?)
    /// An HTTP refusal (401 after a grant ended, 503, …) and its body.
    case http(status: Int, body: String)

    var isResult: Bool {
        if case .result = self { return true }
        return false
    }

    var toolErrorCode: String? {
        if case .toolError(let code, _) = self { return code }
        return nil
    }

    var description: String {
        switch self {
        case .result(let json): "result \(json.jsonString.prefix(120))"
        case .toolError(let code, let retryAfter): "tool error \(code) retryAfter=\(retryAfter.map(String.init) ?? "-")"
        case .http(let status, let body): "HTTP \(status) \(body.prefix(200))"
        }
    }
}

extension RelayClient {
    /// One stateless `tools/call` to `/mcp` at `base` with `accessToken`. Transport failures
    /// (connection refused, timeout) are thrown as `ClientError`.
    func callTool(
        _ name: String, _ arguments: JSONValue = [:], access accessToken: String, at base: String,
        timeout: Duration = .seconds(30)
    ) async throws(ClientError) -> ToolOutcome {
        let response = try await http.send(
            Self.toolCall(name, arguments, access: accessToken, at: base, version: "2025-06-18", timeout: timeout))
        guard response.status == 200, let json = try? JSONValue(parsing: response.body), let result = json["result"]
        else { return .http(status: response.status, body: response.text) }
        if result["isError"]?.boolValue == true {
            let error = result["structuredContent"]?["error"]
            return .toolError(
                code: error?["code"]?.stringValue ?? "?", retryAfter: error?["retryAfter"]?.intValue)
        }
        return .result(result["structuredContent"] ?? .null)
    }
}

extension RelayClient {
    /// The POST of one stateless `tools/call` as a client of `version` sends it.
    static func toolCall(
        _ name: String, _ arguments: JSONValue, access: String, at base: String, version: String,
        accept: String = "application/json, text/event-stream", timeout: Duration? = nil
    ) -> ClientRequest {
        let body: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": ["name": .string(name), "arguments": arguments],
        ]
        return ClientRequest(
            method: .post, url: base + "/mcp",
            headers: [
                "Content-Type": "application/json", "Accept": accept, "MCP-Protocol-Version": version,
                "Authorization": "Bearer " + access,
            ],
            body: body.bytes, timeout: timeout)
    }
}

/// The standalone `cloudkit-emulator` and its loopback control API.
final class EmulatorProcess: Sendable {
    let child: ChildProcess
    let base: String
    let http: HTTPClient
    static let apiToken = "acceptance-api-token"
    static let container = "iCloud.test.mustdo"

    /// Starts the emulator on a free port; Apple's callback goes to `callback`.
    init(http: HTTPClient, rotation: String = "invalidate", callback: String = "http://127.0.0.1/oauth/apple/callback")
        async throws
    {
        self.http = http
        child = try ChildProcess(
            product: "cloudkit-emulator",
            [
                "--port", "0", "--api-token", Self.apiToken, "--container", Self.container, "--callback", callback,
                "--rotation", rotation, "--token-lifetime", "0",
            ])
        base = try await child.waitForOutput(matching: #"listening on (http://127\.0\.0\.1:\d+)"#)
    }

    /// A control call: POST `path` with `body`, or GET when `body` is nil. Throws unless 200.
    @discardableResult
    func control(_ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        var request = ClientRequest(url: base + "/control/" + path)
        if let body {
            request.method = .post
            request.headers = ["Content-Type": "application/json"]
            request.body = body.bytes
        }
        let response = try await http.send(request)
        guard response.status == 200 else {
            throw AcceptanceFailure("emulator control \(path): \(response.status) \(response.text)")
        }
        return try JSONValue(parsing: response.body)
    }

    /// The emulator's counters (`/control/stats`).
    func stats() async throws -> JSONValue { try await control("stats") }
}

/// Fails the test unless `outcome` is a tool result (an ordinary call, so its argument may `await`).
func expectResult(_ outcome: ToolOutcome, _ message: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(outcome.isResult, "\(outcome) \(message)", sourceLocation: sourceLocation)
}

import RelayHTTP
import RelayJSON
import RelayMCP
import RelayTestSupport

/// The endpoint behind a real `Server` on a free loopback port, with the fake authenticator and
/// the sample tools, mounted on a `Router` as the relay mounts it.
final class TestServer: Sendable {
    static let token = "test-token"

    let server: Server
    let authenticator: FakeAuthenticator
    let endpoint: MCPEndpoint<TestPrincipal>

    var port: Int { server.port }

    init(
        authenticator: FakeAuthenticator = FakeAuthenticator(),
        pageSize: Int = 100,
        maxBodyBytes: Int = 4096,
        tools: [any Tool<TestPrincipal>] = SampleTools.all,
        prompts: [Prompt] = [],
        resources: [Resource] = [],
        extensions: JSONObject = [:]
    ) throws {
        let records = Recorder<ToolCallRecord>()
        let errors = Recorder<String>()
        self.authenticator = authenticator
        let configuration = MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(name: "test-relay", title: "Test Relay", version: "0.1.0"),
            instructions: "Call get_me first.",
            allowedHosts: ["127.0.0.1", "localhost"],
            allowedOrigins: ["https://relay.example", "http://localhost:6274"],
            maxBodyBytes: maxBodyBytes,
            pageSize: pageSize,
            validatesOutput: true,
            onToolCall: { record in records.append(record) },
            onError: { tool, error in errors.append("\(tool): \(error)") }
        )
        endpoint = try MCPEndpoint(
            configuration: configuration, tools: tools, prompts: prompts, resources: resources,
            extensions: extensions, authenticator: authenticator)
        var router = Router()
        router.get("/healthz", immediate: { _ in .text("ok") })
        endpoint.mount(on: &router)
        let responder = router.responder
        let exchanges = Recorder<String>()
        exchangesBox = exchanges
        let logged = responder.mapResponse { request, response in
            exchanges.append(Self.summary(request, response))
            return response
        }
        var limits = HTTPParserLimits()
        limits.maxBodyBytes = 64 * 1024
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1, limits: limits),
            responder: logged
        )
        recordsBox = records
        errorsBox = errors
        try server.start()
    }

    private let exchangesBox: Recorder<String>
    private let recordsBox: Recorder<ToolCallRecord>
    private let errorsBox: Recorder<String>

    /// Every `onToolCall` report so far.
    var records: [ToolCallRecord] { recordsBox.all }
    /// Every request answered so far, as "POST tools/list 200" (the JSON-RPC method, or the
    /// methods of a batch joined by "+", or "-" when the body has none).
    var exchanges: [String] { exchangesBox.all }

    private static func summary(_ request: Request, _ response: Response) -> String {
        var method = "-"
        if let body = try? JSONValue(parsing: request.body) {
            let messages = body.arrayValue ?? [body]
            let names = messages.compactMap { $0["method"]?.stringValue }
            if !names.isEmpty { method = names.joined(separator: "+") }
        }
        return "\(request.method) \(method) \(response.status.code)"
    }

    /// Every `onError` report so far.
    var reportedErrors: [String] { errorsBox.all }

    func stop() async {
        server.shutdown()
        await server.waitUntilStopped()
    }

    /// Sends a request built from parts; headers default to what a well-behaved client sends.
    func send(
        _ method: String = "POST",
        path: String = "/mcp",
        body: String? = nil,
        bytes rawBody: [UInt8]? = nil,
        headers: [(String, String)]? = nil,
        token: String = TestServer.token,
        extra: [(String, String)] = []
    ) async throws -> RawResponse {
        var lines = ["\(method) \(path) HTTP/1.1"]
        let fields =
            headers ?? [
                ("Host", "127.0.0.1:\(port)"),
                ("Authorization", "Bearer \(token)"),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ]
        for (name, value) in fields + extra { lines.append("\(name): \(value)") }
        let bytes = rawBody ?? Array((body ?? "").utf8)
        if body != nil || rawBody != nil || method == "POST" { lines.append("Content-Length: \(bytes.count)") }
        lines.append("Connection: close")
        return try await RawHTTP.send(port: port, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + bytes)
    }

    /// POSTs one JSON value with the default headers (bearer `token`) plus `extra`.
    func post(_ json: JSONValue, token: String = TestServer.token, extra: [(String, String)] = []) async throws
        -> RawResponse
    {
        try await send(body: json.jsonString, token: token, extra: extra)
    }

    /// A JSON-RPC request object.
    static func request(_ method: String, id: JSONValue = 1, params: JSONObject? = nil) -> JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
        if let params { object["params"] = .object(params) }
        return .object(object)
    }

    /// A JSON-RPC notification object.
    static func notification(_ method: String) -> JSONValue {
        ["jsonrpc": "2.0", "method": .string(method)]
    }

    static func initialize(_ version: String, id: JSONValue = 1) -> JSONValue {
        request(
            "initialize", id: id,
            params: [
                "protocolVersion": .string(version), "capabilities": [:],
                "clientInfo": ["name": "test", "version": "1"],
            ])
    }

    static func call(_ tool: String, _ arguments: JSONValue, id: JSONValue = 1) -> JSONValue {
        request("tools/call", id: id, params: ["name": .string(tool), "arguments": arguments])
    }
}

/// Runs `body` against a fresh server and always stops it.
func withServer(
    _ server: @autoclosure () throws -> TestServer, _ body: (TestServer) async throws -> Void
) async throws {
    let server = try server()
    try await withCleanup {
        try await body(server)
    } cleanup: {
        await server.stop()
    }
}

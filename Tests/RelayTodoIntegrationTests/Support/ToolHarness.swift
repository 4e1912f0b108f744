import Foundation
import RelayCloudKit
import RelayCrypto
import RelayEmulator
import RelayHTTP
import RelayJSON
import RelayMCP
import RelaySync
import RelayTodo
import Testing

/// The whole tool path on loopback sockets: an MCP client (the RelayHTTP client) → `Server` → `MCPEndpoint`
/// with the nine tools → `CloudKitClient` → the in-process CloudKit emulator. Users connect through the
/// emulator's control API; their grants carry a `MemoryCloudKitSession`. CloudKit's production environment
/// with the relay's schema (`deploy/cloudkit/schema.ckdb`) unless a test passes another, or says why it needs
/// the lenient one.
final class ToolHarness: Sendable {
    let emulator: Emulator
    let http: HTTPClient
    let client: CloudKitClient
    let authenticator = FakeGrantAuthenticator()
    let serializer: GrantSerializer
    let clock: FakeClock
    let server: Server
    private let reports = Reports()

    init(
        now: String = "2026-06-10T12:00:00Z", timeout: Duration = .seconds(15), maxWaiting: Int = 32,
        settings: EmulatorSettings = EmulatorSettings(), schema: ContainerSchema = .relay, lenientSchema: Bool = false,
        cursorKey: SymmetricKey? = nil
    ) throws {
        emulator = try Emulator(
            configuration: EmulatorConfiguration(schema: schema, lenientSchema: lenientSchema, settings: settings))
        try emulator.start()
        http = try HTTPClient()
        client = CloudKitClient(
            configuration: CloudKitConfiguration(
                baseURL: emulator.baseURL, container: "iCloud.jp.lightning.mustdo", environment: .production,
                apiToken: CloudKitAPIToken("emulator-api-token"), timeout: timeout,
                retry: CloudKitRetryPolicy(
                    maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10),
                    maxRetryAfter: .milliseconds(50))),
            http: http)
        serializer = GrantSerializer(maxWaiting: maxWaiting)
        let clock = FakeClock(instant(now))
        self.clock = clock
        let reports = self.reports
        let configuration = MCPEndpointConfiguration(
            serverInfo: MCPServerInfo(name: "mustdo-relay-test", version: "0"), allowedHosts: ["127.0.0.1"],
            validatesOutput: true,
            onToolCall: { record in reports.state.withLock { $0.calls.append(record) } },
            onError: { tool, error in reports.state.withLock { $0.errors.append("\(tool): \(error)") } })
        let tools: [any Tool<TestGrant>] = TodoTools.tools(client: client, clock: { clock.now }, cursorKey: cursorKey)
        let endpoint = try MCPEndpoint(configuration: configuration, tools: tools, authenticator: authenticator)
        // The tools' clock, for a client in another process (the SDK end-to-end script): POST
        // /test/clock {"now": "<ISO 8601 with offset>"}. Test code only; the relay has no such route.
        var router = Router()
        endpoint.mount(on: &router)
        router.on(
            .post, "/test/clock",
            immediate: { request in
                guard let text = (try? JSONValue(parsing: request.body))?["now"]?.stringValue,
                    let date = ISO8601DateFormatter().date(from: text)
                else { return Response.json(["error": "expected {\"now\": ISO 8601}"], status: .badRequest) }
                clock.set(date)
                return Response.json(["now": .string(text)])
            })
        server = Server(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, eventLoops: 1),
            responder: router.responder)
        try server.start()
    }

    deinit {
        server.shutdown()
        emulator.shutdown()
    }

    /// What the endpoint reported to `onToolCall` (tool, duration, outcome code).
    var toolCalls: [ToolCallRecord] { reports.state.withLock { $0.calls } }
    /// What the endpoint reported to `onError`.
    var reportedErrors: [String] { reports.state.withLock { $0.errors } }

    /// Signs `appleID` in on the emulator and connects it: the bearer token to call tools with.
    @discardableResult
    func connect(
        _ appleID: String = "alice@example.com", session: (any CloudKitSession)? = nil,
        scopes: [String] = [TodoScope.read, TodoScope.write]
    ) throws -> User {
        let signedIn = try emulator.createSession(appleID: appleID)
        let memory = MemoryCloudKitSession(
            token: CloudKitWebAuthToken(signedIn.webAuthToken), grantID: appleID, serializer: serializer)
        let bearer = "bearer-\(UUID().uuidString)"
        authenticator.register(bearer, TestGrant(user: appleID, session: session ?? memory, scopes: scopes))
        return User(appleID: appleID, bearer: bearer, session: memory)
    }

    /// A connected user.
    struct User: Sendable {
        let appleID: String
        let bearer: String
        let session: MemoryCloudKitSession
    }

    /// Writes the user's Account record.
    func seedAccount(_ user: User, _ fields: JSONObject) throws {
        try emulator.seed(
            user.appleID, records: [["recordName": "account", "recordType": "Account", "fields": .object(fields)]])
    }

    /// Writes a Todo record as the app would, returning it as saved.
    @discardableResult
    func seedTodo(_ user: User, _ id: String, _ fields: JSONObject) throws -> JSONValue {
        try emulator.seed(
            user.appleID, records: [["recordName": .string(id), "recordType": "Todo", "fields": .object(fields)]])[0]
    }

    /// The user's records of `type` as the emulator stores them, by record name.
    func stored(_ user: User, _ type: String) throws -> [String: JSONValue] {
        var byName: [String: JSONValue] = [:]
        for record in try emulator.records(of: user.appleID, recordType: type) {
            byName[record["recordName"]?.stringValue ?? ""] = record
        }
        return byName
    }

    /// Calls `tool` over HTTP as `user` (MCP 2025-06-18, so results carry `structuredContent`).
    func call(_ tool: String, _ arguments: JSONValue = [:], as user: User) async throws -> ToolReply {
        try await call(tool, arguments, bearer: user.bearer)
    }

    func call(_ tool: String, _ arguments: JSONValue, bearer: String) async throws -> ToolReply {
        let body: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": ["name": .string(tool), "arguments": arguments],
        ]
        let request = ClientRequest(
            method: .post, url: "http://127.0.0.1:\(server.port)/mcp",
            headers: [
                "Authorization": "Bearer \(bearer)", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18",
            ],
            body: body.bytes, timeout: .seconds(30))
        let response = try await http.send(request)
        return ToolReply(
            status: response.status, headers: response.headers, json: try? JSONValue(parsing: response.body))
    }
}

/// One HTTP answer to `tools/call`.
struct ToolReply: CustomStringConvertible {
    let status: Int
    let headers: HTTPHeaders
    let json: JSONValue?

    var result: JSONValue? { json?["result"] }
    var isError: Bool { result?["isError"]?.boolValue ?? false }
    /// `structuredContent` of a result.
    var content: JSONValue { result?["structuredContent"] ?? .null }
    /// `structuredContent.error.code` of a failed result.
    var errorCode: String? { content["error"]?["code"]?.stringValue }
    var errorField: String? { content["error"]?["field"]?.stringValue }
    /// The text block.
    var text: String { result?["content"]?.arrayValue?.first?["text"]?.stringValue ?? "" }

    var description: String { "HTTP \(status) \(json?.jsonString ?? "-")" }
}

/// What the endpoint reported.
final class Reports: Sendable {
    let state = Locked<(calls: [ToolCallRecord], errors: [String])>(([], []))
}

/// A clock tests set.
final class FakeClock: Sendable {
    private let instant: Locked<Date>
    init(_ start: Date) { instant = Locked(start) }
    var now: Date { instant.withLock { $0 } }
    func set(_ text: String) { set(RelayTodoIntegrationTests.instant(text)) }
    func set(_ date: Date) { instant.withLock { $0 = date } }
}

/// An instant from ISO 8601 with offset, parsed by Foundation (not by the code under test).
func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("bad fixture instant \(text)") }
    return date
}

/// Milliseconds since 1970 of an ISO 8601 instant, as CloudKit stores TIMESTAMPs.
func millis(_ text: String) -> JSONValue { .int(Int((instant(text).timeIntervalSince1970 * 1000).rounded())) }

/// `{"value": …, "type": …}`.
func field(_ value: JSONValue, _ type: String = "STRING") -> JSONValue { ["value": value, "type": .string(type)] }

/// A TIMESTAMP field from ISO 8601.
func timestamp(_ text: String) -> JSONValue { field(millis(text), "TIMESTAMP") }

extension ToolHarness {
    /// Seeds a to-do as the app writes it: pending, from the app, changed well before the tests' clocks.
    @discardableResult
    func seedAppTodo(
        _ user: User, _ id: String, title: String = "From the app", due: String = "2026-06-12T09:00:00Z",
        zone: String = "UTC", extra: JSONObject = [:]
    ) throws -> JSONValue {
        var fields: JSONObject = [
            "title": field(.string(title)), "dueAt": timestamp(due), "timeZone": field(.string(zone)),
            "sound": field("chime"), "status": field("pending"), "source": field("app"),
            "createdAt": timestamp("2026-05-01T00:00:00Z"), "changedAt": timestamp("2026-05-01T00:00:00Z"),
        ]
        for (key, value) in extra { fields[key] = value }
        return try seedTodo(user, id, fields)
    }

    /// Seeds the Occurrence `<todoId>|<date>` as the app writes it.
    func seedOccurrence(
        _ user: User, _ todoId: String, _ date: String, state: String, snoozedUntil: String? = nil,
        changedAt: String = "2026-05-01T00:00:00Z"
    ) throws {
        var fields: JSONObject = [
            "todoId": field(.string(todoId)), "date": field(.string(date)), "state": field(.string(state)),
            "changedAt": timestamp(changedAt),
        ]
        if let snoozedUntil { fields["snoozedUntil"] = timestamp(snoozedUntil) }
        try emulator.seed(
            user.appleID,
            records: [
                ["recordName": .string("\(todoId)|\(date)"), "recordType": "Occurrence", "fields": .object(fields)]
            ])
    }

    /// The stored fields of one record.
    func fields(_ user: User, _ name: String, type: String = "Todo") throws -> JSONValue {
        try stored(user, type)[name]?["fields"] ?? .null
    }

    /// The stored change tag of one record.
    func changeTag(_ user: User, _ name: String, type: String = "Todo") throws -> String? {
        try stored(user, type)[name]?["recordChangeTag"]?.stringValue
    }
}

/// A daily repeat rule as the app stores it.
let dailyRule = field(.string(#"{"kind":"daily","interval":1,"weekdays":[],"end":{"kind":"never"}}"#))

import Foundation
import RelayJSON
import RelayTestSupport
import Testing

@testable import RelayMCP

/// The official Python SDK 2.x server in 2026-07-28 mode is the reference: it serves the relay's
/// sample tools from the same JSON definitions (the relay's own `tools/list`), and for the same
/// requests (discover, tools/list, tools/call, and the errors) both answers must have the same
/// status, content type and shape, field by field. Values that differ by design are skipped: error
/// messages, and `data` except on -32022 (optional in JSON-RPC; the SDK puts the method name there),
/// the wording of tool errors, and `data.supported` of -32022 and discover's `supportedVersions`, where
/// the relay also names the 2025 revisions it serves through `initialize` (the modern one must be in both).
///
/// Not compared, because the two differ on purpose (docs/architecture.md): `subscriptions/listen`
/// (the reference without a subscription bus answers 404; the relay acknowledges an empty filter
/// and closes), and a 2026 `_meta` with no version header (the SDK serves it as 2025-03-26; the
/// relay refuses the missing header with -32020, as the revision says).
@Suite(.enabled(if: PythonSDK.pythonExists, "python3 is not installed; skipping the conformance comparison"))
struct ConformanceTests {
    struct Exchange: CustomStringConvertible, Sendable {
        var description: String
        var body: JSONValue
        var headers: [(String, String)]

        /// A well-formed 2026 request.
        static func modern(_ description: String, _ method: String, id: JSONValue = 1, params: JSONObject = [:])
            -> Exchange
        {
            Exchange(
                description: description, body: TestServer.modern(method, id: id, params: params),
                headers: TestServer.modernHeaders(method, name: params["name"]?.stringValue))
        }
    }

    static let call = "tools/call"
    static let exchanges: [Exchange] = [
        .modern("discover", "server/discover", id: "d-1"),
        .modern("tools/list", "tools/list", id: 2),
        .modern("a call", call, id: 3, params: ["name": "echo", "arguments": ["text": "hi", "times": 2]]),
        .modern("invalid arguments", call, id: 4, params: ["name": "echo", "arguments": ["text": "hi", "times": 9]]),
        .modern("a tool error", call, id: 5, params: ["name": "fail", "arguments": ["mode": "tool"]]),
        .modern("a tool without output", call, id: 6, params: ["name": "noop.one", "arguments": [:]]),
        .modern("an unknown tool", call, id: 7, params: ["name": "nope", "arguments": [:]]),
        .modern("ping (removed in 2026)", "ping", id: 8),
        .modern("an unknown method", "bogus/method", id: 9),
        Exchange(
            description: "a wrong Mcp-Name",
            body: TestServer.modern(call, id: 10, params: ["name": "echo", "arguments": ["text": "a"]]),
            headers: TestServer.modernHeaders(call, name: "fail")),
        Exchange(
            description: "no Mcp-Method", body: TestServer.modern("tools/list", id: 11),
            headers: [("MCP-Protocol-Version", "2026-07-28")]),
        Exchange(
            description: "a body version unlike the header",
            body: TestServer.modern("tools/list", id: 12, version: "2099-01-01"),
            headers: TestServer.modernHeaders("tools/list")),
        Exchange(
            description: "an unsupported version",
            body: TestServer.modern("tools/list", id: 13, version: "2099-01-01"),
            headers: TestServer.modernHeaders("tools/list", version: "2099-01-01")),
        Exchange(
            description: "no _meta", body: TestServer.request("tools/list", id: 14),
            headers: TestServer.modernHeaders("tools/list")),
        Exchange(
            description: "a 2026 body under a 2025 header", body: TestServer.modern("tools/list", id: 16),
            headers: [("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Method", "tools/list")]),
        .modern("prompts/list", "prompts/list", id: 20),
        .modern(
            "a prompt", "prompts/get", id: 21,
            params: ["name": "greet", "arguments": ["name": "Ann", "style": "loud"]]),
        .modern("a prompt without arguments", "prompts/get", id: 22, params: ["name": "warm_up"]),
        .modern("an unknown prompt", "prompts/get", id: 23, params: ["name": "nope"]),
        .modern("a missing prompt argument", "prompts/get", id: 24, params: ["name": "greet", "arguments": [:]]),
        .modern(
            "an undeclared prompt argument", "prompts/get", id: 25,
            params: ["name": "greet", "arguments": ["name": "A", "mood": "x"]]),
        .modern(
            "a refused prompt argument", "prompts/get", id: 26,
            params: ["name": "greet", "arguments": ["name": "A", "style": "shouty"]]),
        Exchange(
            description: "a notification",
            body: ["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": 1]],
            headers: TestServer.modernHeaders("notifications/cancelled")),
        Exchange(
            description: "a posted response", body: ["jsonrpc": "2.0", "id": 1, "result": [:]],
            headers: TestServer.modernHeaders("tools/list")),
        Exchange(
            description: "a batch", body: [TestServer.modern("tools/list", id: 15)],
            headers: TestServer.modernHeaders("tools/list")),
    ]

    @Test func theRelayAnswersLikeTheSDKServer() async throws {
        try await withServer(TestServer(prompts: SamplePrompts.all)) { relay in
            let listed = try await relay.postModern("tools/list")
            let tools = try #require(listed.json?["result"]?["tools"])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tools-\(UUID().uuidString).json")
            try Data(tools.bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let prompts = try #require(try await relay.postModern("prompts/list").json?["result"]?["prompts"])
            let promptFile = FileManager.default.temporaryDirectory.appendingPathComponent(
                "prompts-\(UUID().uuidString).json")
            try Data(prompts.bytes).write(to: promptFile)
            defer { try? FileManager.default.removeItem(at: promptFile) }
            let reference = try ReferenceServer(tools: file.path, prompts: promptFile.path)
            defer { reference.stop() }
            let port = try await reference.port()
            for exchange in Self.exchanges {
                let ours = try await relay.post(exchange.body, extra: exchange.headers)
                let theirs = try await ReferenceServer.post(port: port, exchange.body, headers: exchange.headers)
                #expect(ours.status == theirs.status, "\(exchange): status")
                #expect(ours.mediaType == theirs.mediaType, "\(exchange): Content-Type")
                #expect(ours.body.isEmpty == theirs.body.isEmpty, "\(exchange): body")
                guard !ours.body.isEmpty, let mine = ours.json, let reference = theirs.json else { continue }
                let differences = Shape.differences(Shape.normalized(mine), Shape.normalized(reference), path: [])
                #expect(
                    differences.isEmpty,
                    "\(exchange): \(differences)\nrelay: \(mine.jsonString)\nsdk:   \(reference.jsonString)")
            }
            // GET has no body to compare: both refuse it.
            let get = try await relay.send("GET", extra: TestServer.modernHeaders("tools/list"))
            let referenceGet = try await ReferenceServer.send(
                "GET", port: port, body: nil, headers: TestServer.modernHeaders("tools/list"))
            #expect(get.status == 405 && referenceGet.status == 405)
        }
    }
}

/// Field-by-field comparison of two JSON-RPC messages.
enum Shape {
    /// Where `relay` and `reference` differ, as readable paths; empty when they agree.
    static func differences(_ relay: JSONValue, _ reference: JSONValue, path: [String]) -> [String] {
        let here = path.isEmpty ? "$" : path.joined(separator: ".")
        if skipsValue(path) {
            return relay.typeName == reference.typeName ? [] : ["\(here): \(relay.typeName) vs \(reference.typeName)"]
        }
        if path.last == "supported" || path.last == "supportedVersions" { return supported(relay, reference, here) }
        switch (relay, reference) {
        case (.object(var mine), .object(var theirs)):
            // `data` is optional on a JSON-RPC error; only -32022 must have it (its schema requires it).
            if path == ["error"], mine["code"] != -32022 {
                mine["data"] = nil
                theirs["data"] = nil
            }
            let missing = Set(theirs.keys).subtracting(mine.keys).sorted().map { "\(here).\($0): missing" }
            let extra = Set(mine.keys).subtracting(theirs.keys).sorted().map { "\(here).\($0): not in the reference" }
            return missing + extra
                + mine.keys.filter { theirs[$0] != nil }.flatMap { key in
                    differences(mine[key]!, theirs[key]!, path: path + [key])
                }
        case (.array(let mine), .array(let theirs)):
            guard mine.count == theirs.count else { return ["\(here): \(mine.count) elements vs \(theirs.count)"] }
            return zip(mine, theirs).enumerated().flatMap { index, pair in
                differences(pair.0, pair.1, path: path + ["\(index)"])
            }
        case (.int(let mine), .double(let theirs)) where Double(mine) == theirs: return []
        default:
            return relay == reference ? [] : ["\(here): \(relay.jsonString) vs \(reference.jsonString)"]
        }
    }

    /// Prose and implementation detail: a JSON-RPC error's message and data.
    private static func skipsValue(_ path: [String]) -> Bool {
        path.count == 2 && path[0] == "error" && (path[1] == "message" || path[1] == "data")
    }

    /// `message` with the wording of a tool error blanked (the reference's validator words its
    /// messages its own way); the shape, codes and fields stay.
    static func normalized(_ message: JSONValue) -> JSONValue {
        guard case .object(var envelope) = message, case .object(var result)? = envelope["result"],
            result["isError"] == true
        else { return message }
        if case .array(let blocks)? = result["content"] {
            result["content"] = .array(
                blocks.map { block in
                    guard case .object(var object) = block else { return block }
                    object["text"] = ""
                    return .object(object)
                })
        }
        if case .object(var structured)? = result["structuredContent"], case .object(var error)? = structured["error"] {
            error["message"] = ""
            structured["error"] = .object(error)
            result["structuredContent"] = .object(structured)
        }
        envelope["result"] = .object(result)
        return .object(envelope)
    }

    /// The relay names every version it serves; both must name the modern one.
    private static func supported(_ relay: JSONValue, _ reference: JSONValue, _ here: String) -> [String] {
        let mine = Set(relay.arrayValue?.compactMap(\.stringValue) ?? [])
        let theirs = Set(reference.arrayValue?.compactMap(\.stringValue) ?? [])
        return theirs.isSubset(of: mine) && !theirs.isEmpty
            ? [] : ["\(here): \(relay.jsonString) vs \(reference.jsonString)"]
    }
}

/// `e2e/sdk_server.py` in the 2.x virtualenv.
final class ReferenceServer: Sendable {
    let process: Subprocess

    init(tools: String, prompts: String? = nil) throws {
        process = try Subprocess(
            try PythonScript.virtualenv(".venv-mcp2"),
            [PythonScript.path(PythonSDK.folder + "sdk_server.py"), tools] + (prompts.map { [$0] } ?? []))
    }

    func port() async throws -> Int {
        let port = try await process.waitForOutput(matching: #"listening on (\d+)"#, timeout: .seconds(60))
        return Int(port)!
    }

    /// Asks the reference server to stop; it is waited for (and killed if it lingers) on a thread
    /// of its own, since this runs in a `defer` of an async test on the cooperative pool.
    func stop() {
        let process = process
        process.signal(SIGTERM)
        Thread { if (try? process.waitBlocking(timeout: .seconds(10))) == nil { process.signalGroup(SIGKILL) } }
            .start()
    }

    static func post(port: Int, _ body: JSONValue, headers: [(String, String)]) async throws -> RawResponse {
        try await send("POST", port: port, body: body.bytes, headers: headers)
    }

    static func send(_ method: String, port: Int, body: [UInt8]?, headers: [(String, String)]) async throws
        -> RawResponse
    {
        var lines = ["\(method) /mcp HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]
        if let body {
            lines += [
                "Content-Type: application/json", "Accept: application/json, text/event-stream",
                "Content-Length: \(body.count)",
            ]
        }
        lines += headers.map { "\($0.0): \($0.1)" }
        return try await RawHTTP.send(
            port: port, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + (body ?? []))
    }
}

extension RawResponse {
    /// The media type of the body, without parameters.
    var mediaType: String? {
        header("Content-Type").map {
            String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}

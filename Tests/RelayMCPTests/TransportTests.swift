import RelayJSON
import Testing

@testable import RelayMCP

/// The HTTP status rules of the stateless Streamable HTTP endpoint (MCP 2025-11-25 `basic/transports`;
/// docs/architecture.md, "The MCP endpoint"), through a real server.
@Suite struct TransportTests {
    @Test func initializeAnswers200WithJSONAndNoSessionID() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.post(TestServer.initialize("2025-11-25"))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Mcp-Session-Id") == nil)
            #expect(response.json?["id"] == 1)
            #expect(response.json?["result"]?["protocolVersion"] == "2025-11-25")
        }
    }

    @Test func trailingSlashIsServedWithoutRedirect() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.send(path: "/mcp/", body: TestServer.request("ping").jsonString)
            #expect(response.status == 200)
            #expect(response.header("Location") == nil)
            #expect(response.json?["result"] == [:])
        }
    }

    @Test func everyMethodButPostIs405AfterAuthentication() async throws {
        try await withServer(TestServer()) { server in
            for method in ["GET", "DELETE", "PUT", "PATCH", "HEAD"] {
                let response = try await server.send(method, body: nil, extra: [])
                #expect(response.status == 405, "\(method)")
                #expect(response.header("Allow") == "POST, OPTIONS", "\(method)")
                #expect(response.header("Access-Control-Allow-Origin") == "*", "\(method)")
            }
        }
    }

    @Test(arguments: [true, false])
    func unauthenticatedRequestsGetTheChallengeOnEveryMethod(immediate: Bool) async throws {
        let authenticator = FakeAuthenticator(immediate: immediate)
        try await withServer(TestServer(authenticator: authenticator)) { server in
            for method in ["POST", "GET", "DELETE", "PUT"] {
                for token in [nil, "wrong"] {
                    var headers = [("Host", "127.0.0.1:\(server.port)"), ("Content-Type", "application/json")]
                    if let token { headers.append(("Authorization", "Bearer \(token)")) }
                    let body = method == "POST" ? TestServer.request("server/discover").jsonString : nil
                    let response = try await server.send(method, body: body, headers: headers)
                    #expect(response.status == 401, "\(method) \(token ?? "none")")
                    let challenge = response.header("WWW-Authenticate") ?? ""
                    #expect(challenge.hasPrefix("Bearer resource_metadata="))
                    #expect(challenge.contains("invalid_token") == (token != nil))
                    #expect(response.header("Access-Control-Allow-Origin") == "*")
                    #expect(response.header("Access-Control-Expose-Headers")?.contains("WWW-Authenticate") == true)
                }
            }
        }
    }

    @Test func preflightNeedsNoTokenAndAllowsTheMCPHeaders() async throws {
        try await withServer(TestServer()) { server in
            let response = try await server.send(
                "OPTIONS", body: nil,
                headers: [
                    ("Host", "127.0.0.1:\(server.port)"), ("Origin", "http://localhost:6274"),
                    ("Access-Control-Request-Method", "POST"),
                ])
            #expect(response.status == 204)
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.header("Access-Control-Allow-Methods")?.contains("POST") == true)
            let allowed = (response.header("Access-Control-Allow-Headers") ?? "").lowercased()
            for name in ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"] {
                #expect(allowed.contains(name), "\(name)")
            }
            let echoed = try await server.send(
                "OPTIONS", body: nil,
                headers: [
                    ("Host", "localhost"), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "authorization, mcp-param-region"),
                ])
            #expect(echoed.status == 204)
            #expect(echoed.header("Access-Control-Allow-Headers") == "authorization, mcp-param-region")
        }
    }

    @Test func contentTypeMustBeJSON() async throws {
        try await withServer(TestServer()) { server in
            let body = TestServer.request("ping").jsonString
            for type in ["text/plain", "application/x-www-form-urlencoded", nil] {
                var headers = [("Host", "localhost"), ("Authorization", "Bearer test-token")]
                if let type { headers.append(("Content-Type", type)) }
                let response = try await server.send(body: body, headers: headers)
                #expect(response.status == 415, "\(type ?? "none")")
            }
            let withCharset = try await server.send(
                body: body,
                headers: [
                    ("Host", "localhost"), ("Authorization", "Bearer test-token"),
                    ("Content-Type", "application/json; charset=utf-8"),
                ])
            #expect(withCharset.status == 200)
        }
    }

    @Test func malformedJSONIs400WithParseError() async throws {
        try await withServer(TestServer()) { server in
            for body in ["{", "{\"jsonrpc\": \"2.0\",}", "", "nul"] {
                let response = try await server.send(body: body)
                #expect(response.status == 400, "\(body)")
                #expect(response.json?["error"]?["code"] == -32700)
                #expect(response.json?["id"] == .null)
            }
        }
    }

    @Test func invalidUTF8IsAParseErrorAndNonASCIIIsKept() async throws {
        try await withServer(TestServer()) { server in
            let prefix = Array(
                #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":""#.utf8)
            let suffix = Array(#""}}}"#.utf8)
            let invalid = try await server.send(bytes: prefix + [0x61, 0xFF, 0x62] + suffix)
            #expect(invalid.status == 400)
            #expect(invalid.json?["error"]?["code"] == -32700)
            let valid = try await server.send(bytes: prefix + Array("日本語".utf8) + suffix)
            #expect(valid.json?["result"]?["content"]?[0]?["text"] == #"{"echo":"日本語","user":"alice"}"#)
        }
    }

    @Test func mediaTypesAreReadByteWiseWithParametersAndCase() {
        typealias Endpoint = MCPEndpoint<TestPrincipal>
        #expect(MediaType.isJSON("application/json"))
        #expect(MediaType.isJSON("Application/JSON ; charset=UTF-8"))
        #expect(!MediaType.isJSON("application/json-seq"))
        #expect(!MediaType.isJSON("text/plain, application/json"))
        #expect(!MediaType.isJSON(""))
        #expect(!MediaType.isJSON(nil))
        #expect(Endpoint.format(accepting: "text/event-stream, application/json;q=0.9") == .json)
        #expect(Endpoint.format(accepting: " TEXT/EVENT-STREAM ") == .eventStream)
        #expect(Endpoint.format(accepting: "text/*") == .eventStream)
        #expect(Endpoint.format(accepting: "application/*") == .json)
        #expect(Endpoint.format(accepting: "image/png, text/html") == nil)
        #expect(Endpoint.format(accepting: ",,") == nil)
        #expect(Endpoint.format(accepting: "") == .json)
    }

    @Test func bodyOverTheLimitIs413() async throws {
        try await withServer(TestServer(maxBodyBytes: 512)) { server in
            let big = TestServer.call("echo", ["text": .string(String(repeating: "x", count: 600))])
            let response = try await server.post(big)
            #expect(response.status == 413)
            let small = try await server.post(TestServer.request("ping"))
            #expect(small.status == 200)
        }
    }

    @Test func acceptIsLenientAboutJSONAndRefusesNeither() async throws {
        try await withServer(TestServer()) { server in
            func send(_ accept: String?) async throws -> RawResponse {
                var headers = [
                    ("Host", "localhost"), ("Authorization", "Bearer test-token"), ("Content-Type", "application/json"),
                ]
                if let accept { headers.append(("Accept", accept)) }
                return try await server.send(body: TestServer.request("ping", id: 7).jsonString, headers: headers)
            }
            for accept in ["application/json", "application/json, text/event-stream", "*/*", nil] {
                let response = try await send(accept)
                #expect(response.status == 200, "\(accept ?? "none")")
                #expect(response.header("Content-Type") == "application/json")
                #expect(response.json?["id"] == 7)
            }
            let eventStream = try await send("text/event-stream")
            #expect(eventStream.status == 200)
            #expect(eventStream.header("Content-Type") == "text/event-stream")
            #expect(eventStream.text.hasPrefix("event: message\ndata: {"))
            #expect(eventStream.json?["result"] == [:])
            let neither = try await send("text/html")
            #expect(neither.status == 406)
        }
    }

    @Test func invalidJSONRPCMessagesAre400InvalidRequest() async throws {
        try await withServer(TestServer()) { server in
            let cases: [(JSONValue, JSONValue)] = [
                (["id": 1, "method": "ping"], 1),
                (["jsonrpc": "1.0", "id": 2, "method": "ping"], 2),
                (["jsonrpc": "2.0", "id": nil, "method": "ping"], nil),
                (["jsonrpc": "2.0", "id": true, "method": "ping"], nil),
                (["jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1, 2]], 3),
                (["jsonrpc": "2.0", "id": 4, "method": 5], 4),
                (["jsonrpc": "2.0", "id": 5], 5),
                ("ping", nil),
            ]
            for (body, id) in cases {
                let response = try await server.post(body)
                #expect(response.status == 400, "\(body.jsonString)")
                #expect(response.json?["error"]?["code"] == -32600, "\(body.jsonString)")
                #expect(response.json?["id"] == id, "\(body.jsonString)")
            }
        }
    }

    @Test func notificationsAndResponsesGet202WithAnEmptyBody() async throws {
        try await withServer(TestServer()) { server in
            let bodies: [JSONValue] = [
                TestServer.notification("notifications/initialized"),
                ["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": 1]],
                TestServer.notification("notifications/never-heard-of"),
                ["jsonrpc": "2.0", "id": 9, "result": [:]],
                ["jsonrpc": "2.0", "id": "x", "error": ["code": -1, "message": "no"]],
            ]
            for body in bodies {
                let response = try await server.post(body, extra: [("MCP-Protocol-Version", "2025-06-18")])
                #expect(response.status == 202, "\(body.jsonString)")
                #expect(response.body.isEmpty)
                #expect(response.header("Mcp-Session-Id") == nil)
            }
        }
    }
}

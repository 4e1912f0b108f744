import RelayHTTP
import RelayJSON
import Testing

@testable import RelayMCP

/// The 2026-07-28 envelope and routing headers: every way a request can disagree with itself gets
/// its 400 and the revision's code, and no tool runs.
@Suite struct HeaderValidationTests {
    struct Case: CustomStringConvertible, Sendable {
        var description: String
        var headers: [(String, String)]
        var meta: JSONObject? = TestServer.modernMeta()
        var code: Int

        static func headers(name: String? = "echo", method: String = "tools/call", version: String = "2026-07-28")
            -> [(String, String)]
        {
            TestServer.modernHeaders(method, name: name, version: version)
        }
    }

    static let cases: [Case] = [
        Case(
            description: "no version header", headers: [("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")],
            code: -32020),
        Case(description: "an unknown version header", headers: Case.headers(version: "2099-01-01"), code: -32020),
        Case(
            description: "a body version unlike the header", headers: Case.headers(),
            meta: TestServer.modernMeta(version: "2025-11-25"), code: -32020),
        Case(
            description: "no Mcp-Method", headers: [("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Name", "echo")],
            code: -32020),
        Case(description: "another Mcp-Method", headers: Case.headers(method: "tools/list"), code: -32020),
        Case(description: "Mcp-Method in another case", headers: Case.headers(method: "Tools/Call"), code: -32020),
        Case(description: "no Mcp-Name", headers: Case.headers(name: nil), code: -32020),
        Case(description: "another Mcp-Name", headers: Case.headers(name: "schedule"), code: -32020),
        Case(description: "Mcp-Name in another case", headers: Case.headers(name: "Echo"), code: -32020),
        Case(
            description: "Mcp-Name encoding another name", headers: Case.headers(name: "=?base64?ZmFpbA==?="),
            code: -32020),
        Case(description: "a malformed sentinel", headers: Case.headers(name: "=?base64?ZWNobw?="), code: -32020),
        Case(description: "a non-canonical sentinel", headers: Case.headers(name: "=?base64?ZWNobx==?="), code: -32020),
        Case(
            description: "two Mcp-Method headers", headers: Case.headers() + [("Mcp-Method", "tools/call")],
            code: -32020),
        Case(
            description: "two version headers", headers: Case.headers() + [("MCP-Protocol-Version", "2026-07-28")],
            code: -32020),
        Case(description: "two Mcp-Name headers", headers: Case.headers() + [("Mcp-Name", "echo")], code: -32020),
        Case(description: "no _meta", headers: Case.headers(), meta: nil, code: -32602),
        Case(
            description: "no client capabilities", headers: Case.headers(),
            meta: ["io.modelcontextprotocol/protocolVersion": "2026-07-28"], code: -32602),
        Case(
            description: "capabilities that are not an object", headers: Case.headers(),
            meta: [
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": true,
            ], code: -32602),
        Case(
            description: "client info that is not an object", headers: Case.headers(),
            meta: TestServer.modernMeta().merging(["io.modelcontextprotocol/clientInfo": "me"]), code: -32602),
        Case(
            description: "a version no one serves, in both", headers: Case.headers(version: "2099-01-01"),
            meta: TestServer.modernMeta(version: "2099-01-01"), code: -32022),
    ]

    @Test(arguments: cases)
    func aRequestThatDisagreesWithItselfIsRefused(_ refused: Case) async throws {
        try await withServer(TestServer()) { server in
            var params: JSONObject = ["name": "echo", "arguments": ["text": "hi"]]
            if let meta = refused.meta { params["_meta"] = .object(meta) }
            let body = TestServer.request("tools/call", id: 21, params: params)
            let response = try await server.post(body, extra: refused.headers)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.json?["id"] == 21)
            #expect(response.json?["error"]?["code"] == .int(refused.code))
            if refused.code == -32022 {
                #expect(response.json?["error"]?["data"]?["supported"]?.arrayValue?.contains("2026-07-28") == true)
                #expect(
                    response.json?["error"]?["data"]?["requested"]
                        == refused.meta?["io.modelcontextprotocol/protocolVersion"])
            }
            #expect(server.records.isEmpty, "a tool ran")
        }
    }

    /// claude.ai connectors send the 2026 `_meta` under `MCP-Protocol-Version: 2025-11-25`
    /// (anthropics/claude-code#93290); the Python SDK routes on the header and serves it as 2025, and
    /// so does the relay, still holding any routing header the request carries to its body.
    @Test func a2026BodyUnderA2025HeaderIsServedInThatRevision() async throws {
        try await withServer(TestServer()) { server in
            let body = TestServer.modern("tools/call", params: ["name": "echo", "arguments": ["text": "hi"]])
            let served = try await server.post(body, extra: Case.headers(version: "2025-11-25"))
            #expect(served.status == 200)
            #expect(served.json?["result"]?["structuredContent"]?["echo"] == "hi")
            #expect(served.json?["result"]?["resultType"] == nil)
            #expect(served.json?["result"]?["isError"] == nil)
            let bare = try await server.post(body, extra: [("MCP-Protocol-Version", "2025-06-18")])
            #expect(bare.status == 200)
            for headers in [
                Case.headers(name: "schedule", version: "2025-11-25"),
                Case.headers(method: "tools/list", version: "2025-11-25"),
                Case.headers(version: "2025-11-25") + [("Mcp-Name", "echo")],
                [("MCP-Protocol-Version", "2025-11-25"), ("Mcp-Name", "=?base64?ZWNobx==?=")],
            ] {
                let refused = try await server.post(body, extra: headers)
                #expect(refused.status == 400, "\(headers)")
                #expect(refused.json?["error"]?["code"] == -32020, "\(headers)")
            }
            #expect(server.records.count == 2)
        }
    }

    @Test func anEncodedNameMatchesItsDecodedValue() async throws {
        try await withServer(TestServer()) { server in
            let params: JSONObject = ["name": "noop.one", "arguments": [:], "_meta": .object(TestServer.modernMeta())]
            // "noop.one" as the sentinel: the header is decoded before it is compared.
            let encoded = try await server.post(
                TestServer.request("tools/call", params: params),
                extra: TestServer.modernHeaders("tools/call", name: "=?base64?bm9vcC5vbmU=?="))
            #expect(encoded.status == 200)
            #expect(encoded.json?["result"]?["content"]?[0]?["text"] == "noop.one")
        }
    }

    @Test func headerValuesDecodeAsTheSpecExamplesSay() {
        #expect(HeaderValue.decode("us-west1") == "us-west1")
        #expect(HeaderValue.decode("=?base64?SGVsbG8sIOS4lueVjA==?=") == "Hello, 世界")
        #expect(HeaderValue.decode("=?base64?IHBhZGRlZCA=?=") == " padded ")
        #expect(HeaderValue.decode("=?base64?bGluZTEKbGluZTI=?=") == "line1\nline2")
        #expect(HeaderValue.decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=") == "=?base64?literal?=")
        #expect(HeaderValue.decode("=?base64??=") == "")
        for bad in [
            "=?base64?QQ?=", "=?base64?QR==?=", "=?base64?Q===?=", "=?base64?/w==?=", "=?base64?a*b=?=",
            "=?base64?QQ==QQ==?=",
        ] {
            #expect(HeaderValue.decode(bad) == nil, "\(bad)")
        }
        #expect(HeaderValue.isPlain("tools/call"))
        #expect(!HeaderValue.isPlain("caf\u{E9}"))
    }

    @Test func theEnvelopeIsCheckedWithoutAServerToo() {
        let call = JSONRPCRequest(
            id: .int(1), method: "tools/list", params: ["_meta": .object(TestServer.modernMeta())])
        let headers = HTTPHeaders([("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/list")])
        let envelope = try? ModernEnvelope.check(call, headers: headers).get()
        #expect(envelope?.version == .v2026_07_28)
        #expect(envelope?.clientInfo?["name"] == "test-client")
        #expect(envelope?.clientCapabilities == [:])
        #expect(ModernEnvelope.isNamed(by: call.params))
        let legacyMeta: JSONObject = ["_meta": ["progressToken": 1]]
        #expect(!ModernEnvelope.isNamed(by: legacyMeta))
        #expect(!ModernEnvelope.isNamed(by: nil))
    }
}

extension JSONObject {
    /// This object with `other`'s members set over it (test shorthand).
    func merging(_ other: JSONObject) -> JSONObject {
        var result = self
        for (key, value) in other { result[key] = value }
        return result
    }
}

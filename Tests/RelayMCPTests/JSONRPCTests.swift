import RelayJSON
import Testing

@testable import RelayMCP

/// Reading messages and writing responses, as pure values.
@Suite struct JSONRPCTests {
    @Test func parsesTheFourKindsOfMessage() throws {
        let request = JSONRPCMessage.parse([
            "jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": ["cursor": "c"],
        ])
        #expect(
            request
                == .message(.request(JSONRPCRequest(id: .string("a"), method: "tools/list", params: ["cursor": "c"]))))
        let notification = JSONRPCMessage.parse(["jsonrpc": "2.0", "method": "notifications/initialized"])
        #expect(notification == .message(.notification(JSONRPCNotification(method: "notifications/initialized"))))
        #expect(JSONRPCMessage.parse(["jsonrpc": "2.0", "id": 3, "result": [:]]) == .message(.response(id: .int(3))))
        #expect(
            JSONRPCMessage.parse(["jsonrpc": "2.0", "id": 4, "error": ["code": 1, "message": "x"]])
                == .message(.response(id: .int(4))))
        #expect(
            JSONRPCMessage.parse(["jsonrpc": "2.0", "id": 2.0, "method": "ping"])
                == .message(.request(JSONRPCRequest(id: .int(2), method: "ping"))))
    }

    @Test func refusesWhatMCPForbids() {
        let cases: [(JSONValue, JSONRPCID?)] = [
            (["jsonrpc": "2.0", "id": nil, "method": "ping"], nil),
            (["jsonrpc": "2.0", "id": ["x"], "method": "ping"], nil),
            (["jsonrpc": "2.0", "id": 1.5, "method": "ping"], nil),
            (["jsonrpc": "2.0", "id": 1, "method": ""], .int(1)),
            (["jsonrpc": "2.0", "id": 1, "method": "ping", "params": "x"], .int(1)),
            (["jsonrpc": "2.0", "id": 1, "result": [:], "error": [:]], .int(1)),
            (["jsonrpc": 2, "id": 1, "method": "ping"], .int(1)),
            ([1, 2], nil),
        ]
        for (value, id) in cases {
            guard case .invalid(let gotID, let error) = JSONRPCMessage.parse(value) else {
                Issue.record("accepted \(value.jsonString)")
                continue
            }
            #expect(gotID == id, "\(value.jsonString)")
            #expect(error.code == -32600)
        }
    }

    @Test func writesResponsesAndSplicesIDs() throws {
        let result = JSONRPCEncoding.result(id: .string("x\"y"), ["ok": true])
        #expect(String(decoding: result, as: UTF8.self) == #"{"jsonrpc":"2.0","id":"x\"y","result":{"ok":true}}"#)
        let error = JSONRPCEncoding.error(id: nil, .parseError())
        #expect(
            String(decoding: error, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
        let preencoded = PreencodedResult(["tools": []])
        #expect(preencoded.bytes(id: .int(42)) == JSONRPCEncoding.result(id: .int(42), ["tools": []]))
        let batch = JSONRPCEncoding.batch([result, error])
        #expect(try JSONValue(parsing: batch).arrayValue?.count == 2)
    }
}

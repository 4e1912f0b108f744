import RelayJSON
import Testing

@testable import RelayService

/// The byte writer of log lines against the general JSON writer, the request IDs, and the name
/// filter that keeps runtime data out of logs.
@Suite struct LogEventTests {
    private let time = InlineTimestamp(year: 2026, month: 11, day: 30, hour: 1, minute: 2, second: 3, millisecond: 45)

    /// What the line must be: the same members through `JSONValue`'s writer.
    private func reference(_ members: [(String, JSONValue)]) -> [UInt8] {
        var object = JSONObject()
        for (key, value) in [("time", JSONValue.string(time.description))] + members { object[key] = value }
        return JSONValue.object(object).bytes + [0x0A]
    }

    @Test func everyFieldMatchesTheGeneralWriter() {
        var event = LogEvent(.error, "mcp.tool_call")
        let id = RequestID.random()
        event.requestID = id
        event.route = StaticOrRoute(name: "/mcp")
        event.status = 503
        event.durationMilliseconds = 12.345_678
        event.user = UserTag(userID: "ABCDEF0123456789")
        #expect(event.user != nil)
        event.client = ClientTag(clientID: "https://client.example.com/metadata.json")
        event.tool = StaticOrRoute(name: "get_me")
        event.outcome = StaticOrRoute(name: "SESSION_ENDED")
        event.count = 7
        #expect(
            event.jsonLine(time: time)
                == reference([
                    ("level", "error"), ("event", "mcp.tool_call"), ("request_id", .string(id.description)),
                    ("route", "/mcp"), ("status", 503), ("duration_ms", 12.346), ("user", "ABCDEF012345"),
                    ("client", "client.example.com"), ("tool", "get_me"), ("outcome", "SESSION_ENDED"), ("count", 7),
                ]))
    }

    @Test func durationsAndMinimalEvents() {
        var whole = LogEvent(.info, "http.request")
        whole.durationMilliseconds = 2
        #expect(
            whole.jsonLine(time: time) == reference([("level", "info"), ("event", "http.request"), ("duration_ms", 2)]))
        #expect(
            LogEvent(.debug, "x").jsonLine(time: time) == reference([("level", "debug"), ("event", "x")]))
        #expect(
            String(decoding: LogEvent(.warning, "a.b").jsonLine(time: time), as: UTF8.self)
                == #"{"time":"2026-11-30T01:02:03.045Z","level":"warning","event":"a.b"}"# + "\n")
    }

    @Test func requestIDsAreSixteenHexDigitsAndDistinct() async {
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<25_000).map { _ in RequestID.random().description } } }
            var all: [String] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && $0.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) } })
        #expect(RequestID(value: 0xDEAD_BEEF).description == "00000000deadbeef")
        #expect(RequestID(value: .max).description == "ffffffffffffffff")
    }

    @Test func namesKeepOnlyHarmlessCharacters() {
        #expect(StaticOrRoute(name: "/oauth/apple/callback").description == "/oauth/apple/callback")
        #expect(StaticOrRoute(name: "JSONRPC_-32602").description == "JSONRPC_-32602")
        #expect(StaticOrRoute(name: "a b\"c\\d\n{e}?f=g&h").description == "abcdefgh")
        #expect(StaticOrRoute(name: "ツールget_me é").description == "get_me")
        #expect(StaticOrRoute(name: String(repeating: "x", count: 80)).description.count == 64)
        #expect(StaticOrRoute(name: String(repeating: "é", count: 10) + "ok").description == "ok")
        #expect(StaticOrRoute(name: "").description == "")
    }
}

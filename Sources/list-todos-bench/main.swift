// `bench/list-todos`: `list_todos` latency and CloudKit calls for accounts of several sizes (issue 42), the tool
// called in process (as the MCP endpoint calls it) against the in-process CloudKit emulator over loopback HTTP
// with injected latency (50 ms, like Apple's), the production schema and the query-index lag on. Each scenario
// gets its own user; every call is checked (the live to-dos all listed, `complete` as expected) before it counts.
// The first call of each scenario is shown apart: it also reads the Account, which later calls take from memory
// while the change feed shows it unchanged (`ListingMemory`).
import Foundation
import RelayCloudKit
import RelayEmulator
import RelayHTTP
import RelayJSON
import RelayMCP
import RelayTodo

struct Options {
    var latencyMilliseconds = 50
    var rounds = 5
    var pageSizes = [100, 200]

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--latency-ms": latencyMilliseconds = Int(value) ?? latencyMilliseconds
            case "--rounds": rounds = max(1, Int(value) ?? rounds)
            case "--page-sizes": pageSizes = value.split(separator: ",").compactMap { Int($0) }
            default:
                print("usage: list-todos-bench [--latency-ms 50] [--rounds 5] [--page-sizes 100,200]")
                exit(64)
            }
        }
    }
}

/// The principal the tools run for: a session on one emulator user.
struct BenchGrant: TodoPrincipal {
    let session: any CloudKitSession
    var scopes: [String] { [TodoScope.read] }
}

/// An account's records: `live` pending one-offs, `deleted` soft-deleted ones, `completed` done ones.
struct Scenario {
    let name: String
    let live: Int
    let deleted: Int
    let completed: Int
}

func records(_ prefix: String, _ count: Int, _ extra: JSONObject) -> [JSONValue] {
    (0..<count).map { index in
        var fields: JSONObject = [
            "title": ["value": "Bench errand", "type": "STRING"], "status": ["value": "pending", "type": "STRING"],
            "source": ["value": "app", "type": "STRING"], "timeZone": ["value": "UTC", "type": "STRING"],
            "dueAt": ["value": .int(1_780_272_000_000 + index * 60_000), "type": "TIMESTAMP"],
        ]
        for (key, value) in extra { fields[key] = value }
        return [
            "recordName": .string(String(format: "\(prefix)%05d", index)), "recordType": "Todo",
            "fields": .object(fields),
        ]
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let options = Options(CommandLine.arguments)
let emulator = try Emulator(configuration: EmulatorConfiguration(eventLoops: 2))
try emulator.start()
let http = try HTTPClient()
let client = CloudKitClient(
    configuration: CloudKitConfiguration(
        baseURL: emulator.baseURL, container: "iCloud.jp.lightning.mustdo", environment: .production,
        apiToken: CloudKitAPIToken("emulator-api-token")),
    http: http)
let tools: [any Tool<BenchGrant>] = TodoTools.tools(client: client)
guard let listTodos = tools.first(where: { $0.definition.name == "list_todos" }) else { fatalError("no list_todos") }
let scenarios = [
    Scenario(name: "10 live", live: 10, deleted: 0, completed: 0),
    Scenario(name: "500 live", live: 500, deleted: 0, completed: 0),
    Scenario(name: "5,000 live", live: 5000, deleted: 0, completed: 0),
    Scenario(name: "5 live, fresh account", live: 5, deleted: 0, completed: 0),
    Scenario(name: "5 live + 5,000 soft-deleted", live: 5, deleted: 5000, completed: 0),
    Scenario(name: "5 live + 5,000 deleted + 2,000 done", live: 5, deleted: 5000, completed: 2000),
]
let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
print(
    "list_todos, in process, emulator latency \(options.latencyMilliseconds) ms, index lag on (3 s), "
        + "\(options.rounds) rounds; load average at start: \(load?.joined(separator: " ") ?? "?")")
print(
    "page  scenario                                 calls(1st, then)  ms(1st)  ms(median, then)  ms(min)  complete  items"
)
var failures = 0
for pageSize in options.pageSizes {
    emulator.updateSettings { $0.queryPageSize = pageSize }
    var freshMedian = 0.0
    for (index, scenario) in scenarios.enumerated() {
        let appleID = "bench-\(pageSize)-\(index)@example.com"
        let signedIn = try emulator.createSession(appleID: appleID)
        var all = records("live", scenario.live, [:])
        let gone: JSONValue = ["value": 1_780_000_000_000, "type": "TIMESTAMP"]
        all += records("gone", scenario.deleted, ["deletedAt": gone])
        all += records("done", scenario.completed, ["status": ["value": "done", "type": "STRING"]])
        try emulator.seed(appleID, records: all)
        let session = MemoryCloudKitSession(token: CloudKitWebAuthToken(signedIn.webAuthToken), grantID: appleID)
        let context = ToolContext(
            principal: BenchGrant(session: session), protocolVersion: .latestLegacy, requestID: .int(1))
        emulator.setLatency(milliseconds: options.latencyMilliseconds)
        var times: [Double] = []
        var calls = 0
        var firstCalls = 0
        var complete = true
        var items = 0
        for _ in 0..<options.rounds {
            let before = emulator.statistics()["databaseRequests"]?.intValue ?? 0
            let start = ContinuousClock.now
            let result = try await listTodos.call([:], context: context)
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            calls = (emulator.statistics()["databaseRequests"]?.intValue ?? 0) - before
            if times.count == 1 { firstCalls = calls }
            let content = result.structuredContent ?? [:]
            complete = content["complete"]?.boolValue ?? false
            items = content["items"]?.arrayValue?.count ?? 0
            // Every live one is listed (200 a page), or the answer says it is not complete.
            if items != min(scenario.live, 200) || (complete && scenario.live > 200 && content["nextCursor"] == nil) {
                print("FAIL \(scenario.name): \(items) items, complete \(complete)")
                failures += 1
            }
        }
        emulator.setLatency(milliseconds: 0)
        // The first call of a person in a process also reads the Account; the later ones are the steady state.
        let later = times.count > 1 ? Array(times.dropFirst()) : times
        let middle = median(later)
        if scenario.name.hasSuffix("fresh account") { freshMedian = middle }
        let name = scenario.name.padding(toLength: 40, withPad: " ", startingAt: 0)
        print(
            String(
                format: "%4d  %@ %8d, %-6d  %7.1f  %16.1f  %7.1f  %8@  %5d", pageSize, name, firstCalls, calls,
                times[0], middle, later.min() ?? 0, complete ? "true" : "false", items))
        if scenario.deleted > 0, freshMedian > 0 {
            print(
                String(
                    format:
                        "      ratio to the fresh account with the same 5 live (medians after the first call): %.2fx "
                        + "(goal <= 2)", middle / freshMedian))
        }
    }
}
let end = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
print("load average at end: \(end?.joined(separator: " ") ?? "?")")
emulator.shutdown()
exit(failures == 0 ? 0 : 1)

// `bench/list-todos`: `list_todos` latency and CloudKit calls for accounts of several sizes (issue 42), the tool
// called in process (as the MCP endpoint calls it) against the CloudKit emulator over loopback HTTP with injected
// latency (50 ms, like Apple's), the production schema and the query-index lag on. The emulator runs as a process of
// its own (`--emulator URL --emulator-pid PID`, what `bench/list-todos` does), so the CPU each side spends per
// listing is measured apart, or inside this process (`--in-process`: one CPU figure for both). Each scenario gets
// its own user; every call is checked (the live to-dos all listed, `complete` as expected) before it counts.
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
    var emulatorURL: String?
    var emulatorPID: String?
    /// The scenarios to run, by their position in the table (1-based); all when nil.
    var scenarios: Set<Int>?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--latency-ms": latencyMilliseconds = Int(value) ?? latencyMilliseconds
            case "--rounds": rounds = max(2, Int(value) ?? rounds)
            case "--page-sizes": pageSizes = value.split(separator: ",").compactMap { Int($0) }
            case "--emulator": emulatorURL = value
            case "--emulator-pid": emulatorPID = value
            case "--scenarios": scenarios = Set(value.split(separator: ",").compactMap { Int($0) })
            default:
                print(
                    "usage: list-todos-bench [--latency-ms 50] [--rounds 5] [--page-sizes 100,200] "
                        + "[--scenarios 4,5] [--emulator URL --emulator-pid PID]")
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

/// The emulator the calls go to: in this process, or a `cloudkit-emulator` process reached through its control API.
enum Upstream {
    case inProcess(Emulator)
    case process(url: String, pid: String, control: HTTPClient)

    var baseURL: String {
        switch self {
        case .inProcess(let emulator): emulator.baseURL
        case .process(let url, _, _): url
        }
    }

    /// The emulator's process (its CPU is read apart), nil when it is this one.
    var pid: String? {
        if case .process(_, let pid, _) = self { return pid }
        return nil
    }

    func setPageSize(_ size: Int) async throws {
        switch self {
        case .inProcess(let emulator): emulator.updateSettings { $0.queryPageSize = size }
        case .process: _ = try await control("/control/settings", ["queryPageSize": .int(size)])
        }
    }

    func setLatency(_ milliseconds: Int) async throws {
        switch self {
        case .inProcess(let emulator): emulator.setLatency(milliseconds: milliseconds)
        case .process: _ = try await control("/control/latency", ["milliseconds": .int(milliseconds)])
        }
    }

    /// Signs `appleID` in and writes `records` for it; the session's web auth token.
    func account(_ appleID: String, records: [JSONValue]) async throws -> String {
        switch self {
        case .inProcess(let emulator):
            let signedIn = try emulator.createSession(appleID: appleID)
            try emulator.seed(appleID, records: records)
            return signedIn.webAuthToken
        case .process:
            let session = try await control("/control/users/\(appleID)/sessions", [:])
            var start = 0
            while start < records.count {
                let chunk = Array(records[start..<min(start + 1000, records.count)])
                _ = try await control("/control/users/\(appleID)/records", ["records": .array(chunk)])
                start += chunk.count
            }
            return session["webAuthToken"]?.stringValue ?? ""
        }
    }

    func databaseRequests() async throws -> Int {
        switch self {
        case .inProcess(let emulator): emulator.statistics()["databaseRequests"]?.intValue ?? 0
        case .process: try await control("/control/stats")["databaseRequests"]?.intValue ?? 0
        }
    }

    private func control(_ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        guard case .process(let url, _, let http) = self else { return .null }
        let request = ClientRequest(
            method: body == nil ? .get : .post, url: url + path, headers: ["Content-Type": "application/json"],
            body: body?.bytes ?? [])
        let response = try await http.send(request)
        guard response.status == 200 else {
            throw ClientError.transport(
                "control \(path): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONValue(parsing: response.body)
    }
}

/// CPU time (user + system) a process has used, in nanoseconds: the sum of its threads' `schedstat` (finer than
/// `/proc/PID/stat`'s 10 ms ticks; a thread that ended during a run is missed, and these processes keep theirs).
func cpuNanoseconds(_ pid: String) -> Int {
    let directory = "/proc/\(pid)/task"
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return tasks.reduce(0) { sum, task in
        let text = (try? String(contentsOfFile: "\(directory)/\(task)/schedstat", encoding: .utf8)) ?? ""
        return sum + (text.split(separator: " ").first.flatMap { Int($0) } ?? 0)
    }
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

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
}

let options = Options(CommandLine.arguments)
let upstream: Upstream
if let url = options.emulatorURL, let pid = options.emulatorPID {
    upstream = .process(url: url, pid: pid, control: try HTTPClient())
} else {
    let emulator = try Emulator(configuration: EmulatorConfiguration(eventLoops: 2))
    try emulator.start()
    upstream = .inProcess(emulator)
}
let http = try HTTPClient()
let client = CloudKitClient(
    configuration: CloudKitConfiguration(
        baseURL: upstream.baseURL, container: "iCloud.jp.lightning.mustdo", environment: .production,
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
    "list_todos, emulator \(upstream.pid == nil ? "in this process" : "in its own process"), latency "
        + "\(options.latencyMilliseconds) ms, index lag on (3 s), \(options.rounds) rounds; load average at start: "
        + "\(load?.joined(separator: " ") ?? "?")")
print(
    "CPU ms per listing (after the first): "
        + (upstream.pid == nil
            ? "relay and emulator together (one process)" : "the relay's (this process) and the emulator's process"))
print(
    "page  scenario                                 calls(1st, then)  ms(1st)  ms(median, then)  ms(min)  "
        + "cpu relay  cpu emulator  complete  items")
var failures = 0
for pageSize in options.pageSizes {
    try await upstream.setPageSize(pageSize)
    var freshMedian = 0.0
    for (index, scenario) in scenarios.enumerated() where options.scenarios?.contains(index + 1) ?? true {
        let appleID = "bench-\(pageSize)-\(index)@example.com"
        var all = records("live", scenario.live, [:])
        let gone: JSONValue = ["value": 1_780_000_000_000, "type": "TIMESTAMP"]
        all += records("gone", scenario.deleted, ["deletedAt": gone])
        all += records("done", scenario.completed, ["status": ["value": "done", "type": "STRING"]])
        let token = try await upstream.account(appleID, records: all)
        let session = MemoryCloudKitSession(token: CloudKitWebAuthToken(token), grantID: appleID)
        let context = ToolContext(
            principal: BenchGrant(session: session), protocolVersion: .latestLegacy, requestID: .int(1))
        try await upstream.setLatency(options.latencyMilliseconds)
        var times: [Double] = []
        var calls = 0
        var firstCalls = 0
        var complete = true
        var items = 0
        var relayCPU = 0
        var emulatorCPU = 0
        for round in 0..<options.rounds {
            let before = try await upstream.databaseRequests()
            let relayBefore = cpuNanoseconds("self")
            let emulatorBefore = upstream.pid.map(cpuNanoseconds) ?? 0
            let start = ContinuousClock.now
            let result = try await listTodos.call([:], context: context)
            let elapsed = ContinuousClock.now - start
            if round > 0 {
                relayCPU += cpuNanoseconds("self") - relayBefore
                emulatorCPU += (upstream.pid.map(cpuNanoseconds) ?? 0) - emulatorBefore
            }
            times.append(milliseconds(elapsed))
            calls = try await upstream.databaseRequests() - before
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
        try await upstream.setLatency(0)
        // The first call of a person in a process also reads the Account; the later ones are the steady state.
        let later = Array(times.dropFirst())
        let middle = median(later)
        if scenario.name.hasSuffix("fresh account") { freshMedian = middle }
        let name = scenario.name.padding(toLength: 40, withPad: " ", startingAt: 0)
        let perListing = Double(later.count) * 1e6
        let emulatorColumn = (upstream.pid == nil ? "-" : String(format: "%.2f", Double(emulatorCPU) / perListing))
            .padding(toLength: 12, withPad: " ", startingAt: 0)
        print(
            String(
                format: "%4d  %@ %8d, %-6d  %7.1f  %16.1f  %7.1f  %9.2f  %@  %@  %5d", pageSize, name, firstCalls,
                calls, times[0], middle, later.min() ?? 0, Double(relayCPU) / perListing, emulatorColumn,
                complete ? "true    " : "false   ", items))
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
if case .inProcess(let emulator) = upstream { emulator.shutdown() }
exit(failures == 0 ? 0 : 1)

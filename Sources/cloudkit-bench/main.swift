// `bench/cloudkit`: N concurrent users each run sequential `records/lookup` calls through
// `CloudKitClient` against the emulator with injected latency, every call carrying the token the
// previous one rotated to. Prints throughput as a fraction of the ideal (N / latency) and how many
// TCP connections the client opened.
import Foundation
import RelayCloudKit
import RelayEmulator
import RelayHTTP
import RelayJSON

struct Options {
    var emulatorURL: String?
    /// Where the CloudKit calls go when not to the emulator itself (nginx with TLS in front of it).
    var cloudKitURL: String?
    /// Extra trust anchors for `cloudKitURL`.
    var caFile: String?
    var concurrency = 64
    var latencyMilliseconds = 50
    var rounds = 20
    var trials = 5

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next() ?? ""
            switch argument {
            case "--emulator": emulatorURL = value
            case "--cloudkit": cloudKitURL = value
            case "--ca-file": caFile = value
            case "--concurrency": concurrency = Int(value) ?? concurrency
            case "--latency-ms": latencyMilliseconds = Int(value) ?? latencyMilliseconds
            case "--rounds": rounds = Int(value) ?? rounds
            case "--trials": trials = max(1, Int(value) ?? trials)
            default:
                print(
                    "usage: cloudkit-bench [--emulator URL [--cloudkit URL --ca-file PEM]] [--concurrency 64] "
                        + "[--latency-ms 50] [--rounds 20] [--trials 5]"
                )
                exit(64)
            }
        }
    }
}

func control(_ http: HTTPClient, _ base: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
    let request = ClientRequest(
        method: body == nil ? .get : .post, url: base + path, headers: ["Content-Type": "application/json"],
        body: body?.bytes ?? [])
    let response = try await http.send(request)
    guard response.status == 200 else { throw ClientError.transport("control \(path): HTTP \(response.status)") }
    return try JSONValue(parsing: response.body)
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

let options = Options(CommandLine.arguments)
var inProcess: Emulator?
let base: String
if let url = options.emulatorURL {
    base = url
} else {
    let emulator = try Emulator(configuration: EmulatorConfiguration(eventLoops: 2))
    try emulator.start()
    inProcess = emulator
    base = emulator.baseURL
}

let controlClient = try HTTPClient()
let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: options.caFile))
let client = CloudKitClient(
    configuration: CloudKitConfiguration(
        baseURL: options.cloudKitURL ?? base, container: "iCloud.bench", environment: .production,
        apiToken: CloudKitAPIToken("emulator-api-token")),
    http: http)

_ = try await control(controlClient, base, "/control/reset", [:])
var tokens: [CloudKitWebAuthToken] = []
for index in 0..<options.concurrency {
    let user = "bench\(index)@example.com"
    let todo = TodoRecord(id: "todo-\(index)", title: "Benchmark to-do \(index)", dueAt: Date(), status: .pending)
    let record: JSONValue = [
        "recordName": .string(todo.id), "recordType": "Todo",
        "fields": .object(JSONObject(todo.record().fields.map { ($0.key, $0.value.json) })),
    ]
    _ = try await control(controlClient, base, "/control/users/\(user)/records", ["records": [record]])
    let session = try await control(controlClient, base, "/control/users/\(user)/sessions", [:])
    tokens.append(CloudKitWebAuthToken(session["webAuthToken"]?.stringValue ?? ""))
}
_ = try await control(controlClient, base, "/control/latency", ["milliseconds": .int(options.latencyMilliseconds)])

/// One round per user; returns each call's latency in ms and the users' next tokens.
func round(_ tokens: [CloudKitWebAuthToken], calls: Int) async throws -> ([Double], [CloudKitWebAuthToken]) {
    try await withThrowingTaskGroup(of: ([Double], Int, CloudKitWebAuthToken).self) { group in
        for (index, start) in tokens.enumerated() {
            group.addTask {
                var token = start
                var latencies: [Double] = []
                for _ in 0..<calls {
                    let began = ContinuousClock.now
                    let response = try await client.lookup(["todo-\(index)"], token: token)
                    guard response.value.first?.record != nil else { throw ClientError.transport("lookup failed") }
                    token = response.nextToken(after: token)
                    let elapsed = ContinuousClock.now - began
                    latencies.append(
                        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                }
                return (latencies, index, token)
            }
        }
        var latencies: [Double] = []
        var next = tokens
        for try await (some, index, token) in group {
            latencies += some
            next[index] = token
        }
        return (latencies, next)
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
        + Double(usage.ru_stime.tv_usec) / 1e6
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

var (_, current) = try await round(tokens, calls: 1)
let warmConnections = http.statistics.connectionsOpened
let ideal = Double(options.concurrency) / (Double(options.latencyMilliseconds) / 1000)
let callsPerTrial = options.concurrency * options.rounds
print(
    "cloudkit bench: \(options.concurrency) users, each \(options.rounds) sequential records/lookup per trial "
        + "(\(callsPerTrial) calls), \(options.latencyMilliseconds) ms injected latency, ideal \(Int(ideal)) lookups/s, "
        + "emulator \(inProcess == nil ? "external" : "in-process")"
        + (options.cloudKitURL.map { ", CloudKit calls through \($0)" } ?? ""))
var ratios: [Double] = []
var latencies: [Double] = []
let emulatorCPUBefore = try await control(controlClient, base, "/control/stats")["processCPUSeconds"]?.doubleValue ?? 0
let clientCPUBefore = cpuSeconds()
for trial in 1...options.trials {
    let started = ContinuousClock.now
    let (some, next) = try await round(current, calls: options.rounds)
    let elapsed = seconds(ContinuousClock.now - started)
    current = next
    latencies += some
    let throughput = Double(callsPerTrial) / elapsed
    ratios.append(throughput / ideal)
    print(
        String(format: "trial %d: %.3f s  %.0f lookups/s  ratio %.3f", trial, elapsed, throughput, throughput / ideal))
}
let timedCalls = Double(callsPerTrial * options.trials)
let clientCPU = (cpuSeconds() - clientCPUBefore) / timedCalls * 1e6
let stats = try await control(controlClient, base, "/control/stats")
let emulatorCPU = ((stats["processCPUSeconds"]?.doubleValue ?? 0) - emulatorCPUBefore) / timedCalls * 1e6
let opened = http.statistics.connectionsOpened
let sortedRatios = ratios.sorted()
let sorted = latencies.sorted()
print(
    String(
        format: "ratio median %.3f  best %.3f  worst %.3f  (goal >= 0.90)", sortedRatios[sortedRatios.count / 2],
        sortedRatios.last ?? 0, sortedRatios.first ?? 0))
print(
    String(
        format: "latency p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms", percentile(sorted, 0.5),
        percentile(sorted, 0.9), percentile(sorted, 0.99), sorted.last ?? 0))
print(String(format: "CPU per call: client %.0f us, emulator %.0f us", clientCPU, emulatorCPU))
print(
    "TCP connections opened by the client: \(opened) (\(warmConnections) in the warm-up round, "
        + "\(opened - warmConnections) during the trials); emulator: \(stats["openConnections"]?.intValue ?? -1) open, "
        + "peak \(stats["peakOpenConnections"]?.intValue ?? -1), \(stats["databaseRequests"]?.intValue ?? -1) database requests"
)
var load = ""
if let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
    load = text.split(separator: " ").prefix(3).joined(separator: " ")
}
print("load average during the run: \(load) (\(ProcessInfo.processInfo.activeProcessorCount) cores)")
_ = try await control(controlClient, base, "/control/latency", ["milliseconds": 0])
inProcess?.shutdown()

import Foundation
import RelayHTTP
import RelayJSON
import RelayTestSupport
import Synchronization

/// Counts completed operations across concurrent clients.
final class OperationCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// One connected client running a steady mix of tool calls and refreshes against one relay
/// address, the way an AI client does: when a request fails because the relay is gone, it waits
/// until the relay answers `/healthz` again and retries that request once. A second failure, or
/// any answer that means the grant is lost (401, `invalid_grant`), ends the run with a failure.
struct LoadClient: Sendable {
    let client: RelayClient
    var tokens: RelayClient.Tokens
    let base: String
    let name: String

    /// What the run saw.
    struct Report: Sendable {
        var operations = 0
        var retries = 0
        var tokens: RelayClient.Tokens
    }

    func run(operations: Int, progress: OperationCounter) async throws -> Report {
        var report = Report(tokens: tokens)
        for index in 0..<operations {
            do {
                try await step(index, &report)
            } catch let lost as Lost {
                throw AcceptanceFailure(lost.description)
            } catch {
                // The relay went away under this request: wait for it, then one retry.
                report.retries += 1
                try await waitUntilHealthy()
                do {
                    try await step(index, &report)
                } catch {
                    throw AcceptanceFailure(
                        "\(name): operation \(index) failed again after the relay returned: \(error)")
                }
            }
            report.operations += 1
            progress.increment()
        }
        return report
    }

    /// One operation: every fourth a refresh, the others tool calls (reads and writes).
    private func step(_ index: Int, _ report: inout Report) async throws {
        switch index % 4 {
        case 3:
            switch try await client.refresh(report.tokens.refresh, at: base) {
            case .success(let next): report.tokens = next
            case .failure(let error) where error.status >= 500: throw error
            case .failure(let error): throw Lost(description: "\(name): refresh refused: \(error)")
            }
        default:
            let outcome =
                index % 4 == 1
                ? try await client.callTool(
                    "add_todo", ["title": .string("\(name) \(index)")], access: report.tokens.access, at: base,
                    timeout: .seconds(10))
                : try await client.callTool("get_me", access: report.tokens.access, at: base, timeout: .seconds(10))
            switch outcome {
            case .result: return
            case .http(let status, _) where status >= 500: throw AcceptanceFailure("\(name): HTTP \(status)")
            default: throw Lost(description: "\(name): \(outcome)")
            }
        }
    }

    private func waitUntilHealthy() async throws {
        try await waitUntil("the relay at \(base) answers /healthz", timeout: .seconds(30)) {
            (try? await client.http.send(ClientRequest(url: base + "/healthz", timeout: .seconds(1))))?.status == 200
        }
    }

    /// The grant is gone: no retry can help.
    struct Lost: Error, CustomStringConvertible {
        let description: String
    }
}

import RelayJSON
import RelayStore
import RelaySync

/// The behaviour every `Store` must share, as named cases a test target runs against its backend:
///
/// ```swift
/// @Test(arguments: StoreConformance.cases)
/// func sqlite(_ check: StoreConformance.Case) async throws { try await check.run(on: sqliteHarness) }
/// ```
///
/// Cases use their own random partition keys, so a shared table (DynamoDB) needs no cleanup
/// between them, and read time only from the `ManualClock` they are given. Failures throw
/// `ConformanceFailure`, so the suite needs no test framework.
package enum StoreConformance {
    /// How to make the store under test.
    package struct Harness: Sendable {
        /// Makes a store that reads time from the clock; returns it with a cleanup to run afterwards.
        package let makeStore:
            @Sendable (ManualClock) async throws -> (store: any Store, cleanup: @Sendable () async -> Void)

        /// A harness from a factory.
        package init(
            makeStore:
                @escaping @Sendable (ManualClock) async throws -> (
                    store: any Store, cleanup: @Sendable () async -> Void
                )
        ) {
            self.makeStore = makeStore
        }
    }

    /// One named behaviour.
    package struct Case: Sendable, CustomStringConvertible {
        /// What the case checks.
        package let name: String
        let body: @Sendable (Context) async throws -> Void

        package var description: String { name }

        /// Runs the case against a fresh store from `harness`.
        package func run(on harness: Harness) async throws {
            let clock = ManualClock()
            let (store, cleanup) = try await harness.makeStore(clock)
            do {
                try await body(Context(store: store, clock: clock))
            } catch {
                await cleanup()
                throw error
            }
            await cleanup()
        }
    }

    /// What a case works with.
    struct Context: Sendable {
        let store: any Store
        let clock: ManualClock
        /// A random partition key unique to this run, so cases never see each other's items.
        func partition(_ name: String) -> String {
            "CONFORMANCE#\(name)#\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
        }
        var now: Int { clock.epochSeconds() }
    }

    /// Every case.
    package static var cases: [Case] {
        writeCases + conditionCases + updateSetCases + incrementCases + queryCases + scanCases + expiryCases
            + concurrencyCases + transactCases
    }
}

/// A conformance expectation that did not hold.
package struct ConformanceFailure: Error, CustomStringConvertible {
    /// What went wrong.
    package let message: String
    /// Where the expectation is.
    package let location: String

    package var description: String { "\(location): \(message)" }
}

/// Fails the case unless `condition` holds.
func expect(
    _ condition: Bool, _ message: @autoclosure () -> String, fileID: StaticString = #fileID, line: UInt = #line
) throws {
    guard condition else { throw ConformanceFailure(message: message(), location: "\(fileID):\(line)") }
}

/// Fails the case unless `body` throws exactly `expected`.
func expectError<T>(
    _ expected: StoreError, fileID: StaticString = #fileID, line: UInt = #line,
    _ body: () async throws -> T
) async throws {
    let outcome = await capture(body)
    try expect(outcome == .failure(expected), "expected \(expected), got \(outcome)", fileID: fileID, line: line)
}

/// Fails the case unless `body` throws `StoreError.invalid`.
func expectInvalid<T>(
    fileID: StaticString = #fileID, line: UInt = #line, _ body: () async throws -> T
) async throws {
    let outcome = await capture(body)
    guard case .failure(.invalid) = outcome else {
        throw ConformanceFailure(message: "expected invalid, got \(outcome)", location: "\(fileID):\(line)")
    }
}

/// What `body` returned or threw, with the value reduced to a description for messages; an error
/// that is not a `StoreError` (a backend must never throw one) becomes `unavailable` with its text.
private func capture<T>(_ body: () async throws -> T) async -> Result<String, StoreError> {
    do {
        return .success("\(try await body())")
    } catch let error as StoreError {
        return .failure(error)
    } catch {
        return .failure(.unavailable("not a StoreError: \(error)"))
    }
}

/// Whether two JSON values are equal ignoring object member order (DynamoDB maps have none).
func sameJSON(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.object(let a), .object(let b)):
        return a.count == b.count
            && a.allSatisfy { member in b[member.key].map { sameJSON(member.value, $0) } ?? false }
    case (.array(let a), .array(let b)):
        return a.count == b.count && zip(a, b).allSatisfy { sameJSON($0, $1) }
    default:
        return lhs == rhs
    }
}

/// Whether two items are equal ignoring attribute member order.
func sameItem(_ lhs: Item?, _ rhs: Item?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    return lhs.key == rhs.key && lhs.version == rhs.version && lhs.expiresAt == rhs.expiresAt
        && sameJSON(.object(lhs.attributes), .object(rhs.attributes))
}

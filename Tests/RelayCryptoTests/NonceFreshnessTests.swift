import Foundation
import Testing

@testable import RelayCrypto

/// Every seal takes a fresh 96-bit nonce from OpenSSL's CSPRNG (NIST SP 800-38D §8.2.2): no two
/// boxes share one, on one thread or on several at once, and each box still opens.
struct NonceFreshnessTests {
    static let key = SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))
    static let plaintext = Array("the same CloudKit token".utf8)

    /// The nonce of a box sealed without a prefix: its first 12 bytes.
    static func sealedNonce() throws -> [UInt8] {
        Array(try AES256GCM.seal(plaintext, key: key).prefix(AES256GCM.nonceByteCount))
    }

    @Test func noNonceRepeatsOnOneThread() throws {
        var seen = Set<[UInt8]>()
        for _ in 0..<5_000 { seen.insert(try Self.sealedNonce()) }
        #expect(seen.count == 5_000)
        #expect(!seen.contains([UInt8](repeating: 0, count: 12)))
    }

    @Test func noNonceRepeatsAcrossThreads() async throws {
        let perThread = 2_000
        let results = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        Thread {
                            continuation.resume(
                                with: Result { try (0..<perThread).map { _ in try Self.sealedNonce() } })
                        }.start()
                    }
                }
            }
            var all: [[UInt8]] = []
            for try await nonces in group { all += nonces }
            return all
        }
        #expect(results.count == 4 * perThread)
        #expect(Set(results).count == results.count)
    }

    @Test func sealingTwiceGivesTwoBoxesThatBothOpen() throws {
        let first = try AES256GCM.seal(Self.plaintext, key: Self.key)
        let second = try AES256GCM.seal(Self.plaintext, key: Self.key)
        #expect(first != second)
        #expect(Array(first.prefix(12)) != Array(second.prefix(12)))
        #expect(try AES256GCM.open(first, key: Self.key) == Self.plaintext)
        #expect(try AES256GCM.open(second, key: Self.key) == Self.plaintext)
    }
}

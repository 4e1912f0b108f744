import Foundation
import Testing

@testable import RelayCrypto

/// GCM nonces come from a per-thread pool of CSPRNG blocks: every nonce handed out is new, on
/// every thread, across refills and after a fork, and sealing still gives a fresh box each time.
struct NoncePoolTests {
    static func nonce() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 12) { buffer, count in
            NoncePool.fill(buffer)
            count = 12
        }
    }

    @Test func noNonceRepeatsAcrossRefills() {
        let before = NoncePool.refillsOnThisThread
        var seen = Set<[UInt8]>()
        for _ in 0..<5_000 { seen.insert(Self.nonce()) }
        #expect(seen.count == 5_000)
        // 60,000 bytes from 4,096-byte blocks: at least 14 refills, and not one per nonce.
        let refills = NoncePool.refillsOnThisThread - before
        #expect((14...17).contains(refills), "\(refills) refills")  // +1 if another test simulates a fork
        #expect(!seen.contains([UInt8](repeating: 0, count: 12)))
    }

    @Test func threadsDrawFromTheirOwnPools() async {
        let perThread = 2_000
        let results = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        let thread = Thread {
                            continuation.resume(returning: (0..<perThread).map { _ in Self.nonce() })
                        }
                        thread.start()
                    }
                }
            }
            var all: [[UInt8]] = []
            for await nonces in group { all += nonces }
            return all
        }
        #expect(results.count == 4 * perThread)
        #expect(Set(results).count == results.count)
    }

    @Test func aForkedChildDrawsAFreshBlock() {
        _ = Self.nonce()  // a block drawn on this thread, most of it unused
        let before = NoncePool.refillsOnThisThread
        _ = Self.nonce()
        #expect(NoncePool.refillsOnThisThread == before)
        NoncePool.forked()
        _ = Self.nonce()
        #expect(NoncePool.refillsOnThisThread == before + 1)
    }

    @Test func sealingTwiceGivesTwoBoxesThatBothOpen() throws {
        let key = SymmetricKey(bytes: [UInt8](repeating: 7, count: 32))
        let plaintext = Array("the same CloudKit token".utf8)
        let first = try AES256GCM.seal(plaintext, key: key)
        let second = try AES256GCM.seal(plaintext, key: key)
        #expect(first != second)
        #expect(Array(first.prefix(12)) != Array(second.prefix(12)))
        #expect(try AES256GCM.open(first, key: key) == plaintext)
        #expect(try AES256GCM.open(second, key: key) == plaintext)
    }
}

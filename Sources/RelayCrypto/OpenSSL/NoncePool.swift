import COpenSSL
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// AES-GCM nonces from a per-thread pool of CSPRNG output, refilled 4 KB at a time.
///
/// `RAND_bytes` for each 12-byte nonce cost ~1.5 µs (OpenSSL 3 runs its CTR-DRBG's generate and
/// update, re-keying AES, per request: 1.5 % of the relay's CPU per tool call, which re-seals the
/// rotated CloudKit token). Drawn in 4 KB blocks, the same generator's output serves 341 nonces per
/// call. The nonces stay random (96 bits from the CSPRNG, NIST SP 800-38D §8.2.2), so instances
/// sealing under one data key need no coordination, which a counter would.
///
/// Safe because: each thread has its own pool and takes each byte once, in order; nonces are
/// public (they are written in front of every box), so pooled bytes reveal nothing about a key or
/// a plaintext; a forked child would inherit its parent's unused bytes, so `pthread_atfork`
/// bumps a generation and a pool from an older generation is refilled before its next nonce (the
/// relay starts children with `posix_spawn`, which runs a new program, but a library must not
/// rely on it). The pool is freed when its thread exits.
enum NoncePool {
    /// Bytes drawn from the CSPRNG per refill.
    static let blockSize = 4096

    /// Fills `buffer` (at most `blockSize` bytes) with unused pool bytes.
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count <= blockSize)
        current().take(into: buffer)
    }

    /// The fork generation: bumped in every child a fork makes.
    private static let generation = Atomic<Int>(0)

    private static let forkHandlers: Void = {
        let status = pthread_atfork(nil, nil) { NoncePool.generation.add(1, ordering: .relaxed) }
        precondition(status == 0, "pthread_atfork failed")
    }()

    /// What `pthread_atfork`'s child handler does (for tests: a real fork of a multithreaded Swift
    /// test process cannot run Swift code safely).
    static func forked() { generation.add(1, ordering: .relaxed) }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pool in
            if let pool { Unmanaged<Pool>.fromOpaque(pool).release() }
        }
        precondition(status == 0, "pthread_key_create failed")
        return key
    }()

    private static func current() -> Pool {
        if let existing = pthread_getspecific(key) { return Unmanaged<Pool>.fromOpaque(existing).takeUnretainedValue() }
        _ = forkHandlers
        let pool = Pool()
        let status = pthread_setspecific(key, Unmanaged.passRetained(pool).toOpaque())
        precondition(status == 0, "pthread_setspecific failed")
        return pool
    }

    /// Refills so far on this thread (tests).
    static var refillsOnThisThread: Int { current().refills }

    final class Pool {
        private let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: NoncePool.blockSize)
        /// The first unused byte; `blockSize` when the block is used up (a new pool starts empty).
        private var next = NoncePool.blockSize
        private var drawnIn = -1
        private(set) var refills = 0

        deinit { bytes.deallocate() }

        func take(into buffer: UnsafeMutableBufferPointer<UInt8>) {
            let generation = NoncePool.generation.load(ordering: .relaxed)
            if next + buffer.count > bytes.count || drawnIn != generation {
                LibCrypto.fillRandom(bytes)
                next = 0
                drawnIn = generation
                refills += 1
            }
            buffer.baseAddress!.update(from: bytes.baseAddress! + next, count: buffer.count)
            next += buffer.count
        }
    }
}

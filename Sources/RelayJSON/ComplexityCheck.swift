#if canImport(Glibc)
    import Glibc
#endif

/// Whether a parser's work grows linearly with its input: the cost per input byte of one adversarial
/// shape at a small size and at a size `factor` times larger, measured side by side in one run.
///
/// A linear parser keeps the ratio near 1 (caches and allocation make it drift up a little); a
/// quadratic one multiplies it by the size factor (27,000 distinct keys cost 95 times what 2,700 did
/// before issue 38). Absolute times mean nothing on a shared machine, so nothing here compares a
/// time with a constant: each size is timed in the thread's own CPU time, as the fastest of several
/// rounds that alternate small and large, which is what a loaded machine disturbs least.
package struct ComplexityCheck: Sendable {
    /// One adversarial input, made at any size (roughly `size` bytes).
    package struct Shape: Sendable {
        package let name: String
        package let make: @Sendable (_ size: Int) -> [UInt8]

        package init(_ name: String, make: @escaping @Sendable (_ size: Int) -> [UInt8]) {
            self.name = name
            self.make = make
        }
    }

    /// What one shape measured.
    package struct Measurement: Sendable, CustomStringConvertible {
        package let shape: String
        package let smallBytes: Int
        package let largeBytes: Int
        /// Nanoseconds per byte, at each size (fastest round).
        package let smallNanosPerByte: Double
        package let largeNanosPerByte: Double

        /// Cost per byte at the large size over cost per byte at the small one (1: linear).
        package var ratio: Double { largeNanosPerByte / max(smallNanosPerByte, 1e-9) }

        package var description: String {
            let ratioText = (ratio * 100).rounded() / 100
            return "\(shape): \(smallBytes) B \(Self.format(smallNanosPerByte)) ns/B, "
                + "\(largeBytes) B \(Self.format(largeNanosPerByte)) ns/B, per-byte ratio \(ratioText)"
        }

        private static func format(_ value: Double) -> String { "\((value * 100).rounded() / 100)" }
    }

    /// Size of the small input in bytes.
    package var smallSize: Int
    /// The large input is this many times the small one.
    package var factor: Int
    /// Rounds of (small, large); each size's fastest round counts.
    package var rounds: Int

    package init(smallSize: Int = 20_000, factor: Int = 10, rounds: Int = 7) {
        self.smallSize = smallSize
        self.factor = factor
        self.rounds = rounds
    }

    /// Measures `work` on `shape` at both sizes. `work` must do the whole job on its input (parse it,
    /// or fail it) and return something derived from it so it cannot be optimised away.
    package func measure(_ shape: Shape, _ work: ([UInt8]) -> Int) -> Measurement {
        let small = shape.make(smallSize)
        let large = shape.make(smallSize * factor)
        // Each timing covers at least ~`factor` runs of the small input, so both sizes see the same
        // clock resolution and warm caches.
        var bestSmall = Double.infinity
        var bestLarge = Double.infinity
        var sink = 0
        for _ in 0..<rounds {
            bestSmall = min(bestSmall, Self.time(repeats: factor) { sink &+= work(small) })
            bestLarge = min(bestLarge, Self.time(repeats: 1) { sink &+= work(large) })
        }
        precondition(sink != Int.min, "keeps the work observable")
        return Measurement(
            shape: shape.name, smallBytes: small.count, largeBytes: large.count,
            smallNanosPerByte: bestSmall / Double(max(small.count, 1)),
            largeNanosPerByte: bestLarge / Double(max(large.count, 1)))
    }

    /// Nanoseconds of this thread's CPU time per run of `body`, over `repeats` runs. CPU time, not
    /// wall time: on a loaded machine (other builds, other tests) a wall clock counts the time the
    /// thread waited for a core, which has nothing to do with the work.
    private static func time(repeats: Int, _ body: () -> Void) -> Double {
        let started = threadNanoseconds()
        for _ in 0..<repeats { body() }
        return Double(threadNanoseconds() - started) / Double(repeats)
    }

    private static func threadNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

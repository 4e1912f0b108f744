import CMalloc
import RelayStore
import RelaySync

/// Gives back to the system the memory malloc keeps for reuse after a burst. glibc returns freed
/// memory by itself only from the top of the main heap, so after 2,000 calls in flight at once
/// (bench/soak's burst) the relay kept about 140 MB resident of which it used 25. Every `interval`
/// this compares anonymous resident memory with the bytes in use and, when more than `slack` is
/// resident but free, calls `malloc_trim(0)`, which releases every free page of every arena. What
/// a trim cannot release (free space on pages that also hold live objects) stays as the new floor:
/// the next trim waits until the free memory has grown by another `slack` beyond it (as caches
/// filled by the burst expire), so a fragmented heap is not trimmed in vain every interval. It
/// does not run on a request path; a trim takes the arena locks for about a millisecond per
/// hundred megabytes released. `relay_heap_trims_total` counts trims; each logs `memory.trimmed`
/// with the bytes released.
final class MemoryTrimmer: Sendable {
    /// How often the relay looks.
    static let interval: Duration = .seconds(10)
    /// Resident-but-free bytes tolerated (thread stacks and other anonymous mappings count too).
    static let slack = 16.0 * 1024 * 1024

    private let logger: Logger
    private let trims: Metrics.Counter
    private let task = Locked<Task<Void, Never>?>(nil)
    /// Resident-but-free bytes left after the last trim (0 once the heap is back within `slack`).
    private let floor = Locked<Double>(0)

    init(logger: Logger, metrics: Metrics) {
        self.logger = logger
        trims = metrics.declareCounter(
            "relay_heap_trims_total", help: "Times free memory malloc kept was given back to the system.")
    }

    /// Looks every interval from now on (idempotent).
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task.detached(priority: .background) { [weak self] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: Self.interval) } catch { return }
                    guard let self else { return }
                    self.trimIfWorthIt()
                }
            }
        }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    /// One look: trims when more than `slack` bytes are resident but not in use, and that is
    /// `slack` more than the last trim left. Returns the bytes of resident memory released (0 when
    /// it did not trim).
    @discardableResult
    func trimIfWorthIt(slack: Double = MemoryTrimmer.slack) -> Int {
        let free = ProcessMemory.residentAnonymous - ProcessMemory.heapInUse
        let due = floor.withLock { floor -> Bool in
            if free <= slack { floor = 0 }
            return free > slack && free > floor + slack
        }
        guard due else { return 0 }
        let before = ProcessMemory.resident
        malloc_trim(0)
        let released = Int(max(0, before - ProcessMemory.resident))
        let left = ProcessMemory.residentAnonymous - ProcessMemory.heapInUse
        floor.withLock { $0 = left }
        trims.increment()
        var event = LogEvent(.info, "memory.trimmed")
        event.count = released
        logger.log(event)
        return released
    }
}

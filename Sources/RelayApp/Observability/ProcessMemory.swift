import CMalloc
import Foundation

/// The process's memory as the metrics listener reports it: resident pages, and glibc's heap split
/// into bytes the program holds and bytes malloc keeps for reuse. A leak shows as `heapInUse`
/// rising without bound; malloc's arenas filling after start-up show as `heapHeld` rising and then
/// staying put; mapped code and libraries being paged in show only in `resident`.
enum ProcessMemory {
    /// Resident set size in bytes (`/proc/self/statm`, second field, in pages); 0 if unreadable.
    static var resident: Double {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes allocated through malloc and not yet freed (in arenas and in their own mappings).
    static var heapInUse: Double {
        let info = mallinfo2()
        return Double(info.uordblks + info.hblkhd)
    }

    /// Bytes malloc has taken from the system (arenas and large mappings), in use or kept for reuse.
    static var heapHeld: Double {
        let info = mallinfo2()
        return Double(info.arena + info.hblkhd)
    }

    static func declareGauges(on metrics: Metrics) {
        metrics.declareGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") { resident }
        metrics.declareGauge(
            "relay_heap_in_use_bytes", help: "Bytes allocated with malloc and not freed (glibc mallinfo2)."
        ) { heapInUse }
        metrics.declareGauge(
            "relay_heap_held_bytes", help: "Bytes malloc holds from the system, in use or free for reuse."
        ) { heapHeld }
    }
}

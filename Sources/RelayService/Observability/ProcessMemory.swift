import CMalloc
import Foundation

/// The process's memory as the metrics listener reports it: resident pages, and glibc's heap split
/// into bytes the program holds and bytes malloc keeps for reuse. A leak shows as `heapInUse`
/// rising without bound; malloc's arenas filling after start-up show as `heapHeld` rising and then
/// staying put; mapped code and libraries being paged in show only in `resident`.
package enum ProcessMemory {
    /// Caps glibc's malloc arenas at one per core (at least 2) unless the operator chose a number
    /// (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in `GLIBC_TUNABLES`). glibc's default is 8 per
    /// core, and each arena keeps the memory freed into it for reuse by the threads that share it,
    /// so a server whose requests hop between event-loop and pool threads slowly spreads free space
    /// over many arenas: the bench/soak run held 2.8 MB more than it used after six minutes with
    /// the default and 0.8 MB with this. Threads' own malloc caches keep the arena locks cold.
    /// Call it first thing in `main`, before threads start.
    package static func limitMallocArenas() {
        let environment = ProcessInfo.processInfo.environment
        guard environment["MALLOC_ARENA_MAX"] == nil,
            environment["GLIBC_TUNABLES"]?.contains("arena_max") != true
        else { return }
        mallopt(M_ARENA_MAX, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
    }

    /// Resident set size in bytes (`/proc/self/statm`, second field, in pages); 0 if unreadable.
    static var resident: Double {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Anonymous resident memory in bytes (`RssAnon` in `/proc/self/status`: the heap, thread
    /// stacks, anonymous mappings); 0 if unreadable.
    static var residentAnonymous: Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
            let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
                Double($0)
            })
        else { return 0 }
        return kib * 1024
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

    /// malloc's arenas (glibc's `malloc_info` lists one `<heap>` per arena); 0 if unreadable.
    static var arenas: Double {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return 0 }
        let written = malloc_info(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard written == 0, let buffer else { return 0 }
        return Double(String(cString: buffer).components(separatedBy: "<heap nr=").count - 1)
    }

    static func declareGauges(on metrics: Metrics) {
        metrics.declareGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") { resident }
        metrics.declareGauge(
            "relay_heap_in_use_bytes", help: "Bytes allocated with malloc and not freed (glibc mallinfo2)."
        ) { heapInUse }
        metrics.declareGauge(
            "relay_heap_held_bytes", help: "Bytes malloc holds from the system, in use or free for reuse."
        ) { heapHeld }
        metrics.declareGauge("relay_heap_arenas", help: "malloc arenas (capped at one per core, at least 2).") {
            arenas
        }
    }
}

import Foundation
import Testing

@testable import RelayService

#if canImport(Glibc)
    import Glibc
#endif

/// After a burst, free memory malloc kept goes back to the system; a quiet heap is left alone, and
/// what one trim could not release does not make the next look trim again.
struct MemoryTrimmerTests {
    @Test func freeMemoryMallocKeptIsGivenBackOncePerGrowth() throws {
        let metrics = Metrics()
        let trimmer = MemoryTrimmer(logger: Logger(minimumLevel: .error), metrics: metrics)
        let mebibyte = 1024.0 * 1024
        // 96 MiB in blocks malloc serves from its heap (below the mmap threshold), touched so they
        // are resident; then a third of them freed: holes between blocks in use, which glibc keeps.
        let blockSize = 64 * 1024
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<1536 {
            let block = try #require(malloc(blockSize))
            memset(block, 0x5a, blockSize)
            blocks.append(block)
        }
        defer { for index in blocks.indices where index % 3 == 2 { free(blocks[index]) } }
        let residentWithBlocks = ProcessMemory.resident
        for index in blocks.indices where index % 3 == 0 { free(blocks[index]) }
        #expect(ProcessMemory.resident > residentWithBlocks - 8 * mebibyte, "glibc kept the freed blocks resident")

        let released = trimmer.trimIfWorthIt(slack: 16 * mebibyte)
        #expect(released > 24 * 1024 * 1024, "released \(released) bytes")
        #expect(metrics.value("relay_heap_trims_total") == 1)
        #expect(trimmer.trimIfWorthIt(slack: 16 * mebibyte) == 0, "nothing new to give back")
        #expect(metrics.value("relay_heap_trims_total") == 1)

        // Another third freed (the holes widen, the last block still pins the top): trimmed again.
        for index in blocks.indices where index % 3 == 1 { free(blocks[index]) }
        let again = trimmer.trimIfWorthIt(slack: 16 * mebibyte)
        #expect(again > 24 * 1024 * 1024, "released \(again) bytes")
        #expect(metrics.value("relay_heap_trims_total") == 2)
    }

    /// Free space on pages that still hold live objects cannot be given back: after one trim finds
    /// that, the trimmer waits for the free memory to grow rather than trimming every interval.
    @Test func aFragmentedHeapIsNotTrimmedInVain() throws {
        let metrics = Metrics()
        let trimmer = MemoryTrimmer(logger: Logger(minimumLevel: .error), metrics: metrics)
        // ~48 MiB of 100-byte objects, three in four freed: every page keeps live objects.
        var objects: [UnsafeMutableRawPointer] = []
        objects.reserveCapacity(400_000)
        for _ in 0..<400_000 {
            let object = try #require(malloc(100))
            memset(object, 0x5a, 100)
            objects.append(object)
        }
        defer { for index in objects.indices where index % 4 == 3 { free(objects[index]) } }
        for index in objects.indices where index % 4 != 3 { free(objects[index]) }
        trimmer.trimIfWorthIt(slack: 16 * 1024 * 1024)
        #expect(metrics.value("relay_heap_trims_total") == 1, "a first trim tries")
        #expect(trimmer.trimIfWorthIt(slack: 16 * 1024 * 1024) == 0)
        #expect(metrics.value("relay_heap_trims_total") == 1, "the second look does not trim again")
    }

    @Test func aHeapWithinTheSlackIsLeftAlone() {
        let metrics = Metrics()
        let trimmer = MemoryTrimmer(logger: Logger(minimumLevel: .error), metrics: metrics)
        #expect(trimmer.trimIfWorthIt(slack: 1e15) == 0)
        #expect(metrics.value("relay_heap_trims_total") == 0)
    }
}

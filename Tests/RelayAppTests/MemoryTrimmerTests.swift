import Foundation
import Testing

@testable import RelayApp

#if canImport(Glibc)
    import Glibc
#endif

/// After a burst, free memory malloc kept goes back to the system; a quiet heap is left alone.
struct MemoryTrimmerTests {
    @Test func freeMemoryMallocKeptIsGivenBack() throws {
        let metrics = Metrics()
        let trimmer = MemoryTrimmer(logger: Logger(minimumLevel: .error), metrics: metrics)
        // 128 MiB in blocks malloc serves from its heap (below the mmap threshold), touched so they
        // are resident; then every other one freed: holes between blocks in use, which glibc keeps.
        let blockSize = 64 * 1024
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<2048 {
            let block = try #require(malloc(blockSize))
            memset(block, 0x5a, blockSize)
            blocks.append(block)
        }
        defer { for block in blocks.indices where block % 2 == 1 { free(blocks[block]) } }
        let residentWithBlocks = ProcessMemory.resident
        for block in blocks.indices where block % 2 == 0 { free(blocks[block]) }
        #expect(ProcessMemory.resident > residentWithBlocks - 16 * 1024 * 1024, "glibc kept the freed blocks resident")

        let released = trimmer.trimIfWorthIt(slack: 32 * 1024 * 1024)
        #expect(released > 48 * 1024 * 1024, "released \(released) bytes")
        #expect(metrics.value("relay_heap_trims_total") == 1)
    }

    @Test func aHeapWithinTheSlackIsLeftAlone() {
        let metrics = Metrics()
        let trimmer = MemoryTrimmer(logger: Logger(minimumLevel: .error), metrics: metrics)
        #expect(trimmer.trimIfWorthIt(slack: 1e15) == 0)
        #expect(metrics.value("relay_heap_trims_total") == 0)
    }
}

import RelayHTTP

#if FUZZING
    /// libFuzzer entry point: feeds the input to the parser in up to three pieces, the split
    /// points taken from the first byte, so incremental parsing is exercised as well.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        ParserFuzzing.run(bytes)
        return 0
    }
#else
    import Foundation

    /// Without `-DFUZZING` the target is a plain program that replays files given as arguments,
    /// so `swift build` succeeds and a crash file can be reproduced under a debugger.
    @main
    struct ReplayFuzzInputs {
        static func main() throws {
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                ParserFuzzing.run(Array(data))
                print("\(path): ok")
            }
        }
    }
#endif

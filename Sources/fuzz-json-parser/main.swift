import RelayJSON

#if FUZZING
    /// libFuzzer entry point: every input goes through `JSONFuzzing.run`, which stops the process
    /// when a property of the parser and writer does not hold.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzJSONParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        JSONFuzzing.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
#else
    import Foundation

    /// Without `-DFUZZING` the target is a plain program that replays files given as arguments,
    /// so `swift build` succeeds and a crash file can be reproduced under a debugger.
    @main
    struct ReplayFuzzInputs {
        static func main() throws {
            // `--complexity`: the parser's complexity check (issue 38), a table of cost per byte at
            // two sizes for every adversarial shape; exits 1 when a shape is not linear.
            if CommandLine.arguments.dropFirst().first == "--complexity" {
                let report = JSONFuzzing.complexityReport()
                for line in report.lines { print(line) }
                let linear = report.worstRatio <= 4 && report.keysRatio <= 15
                print(linear ? "complexity: linear" : "complexity: NOT LINEAR")
                exit(linear ? 0 : 1)
            }
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                JSONFuzzing.run(Array(data))
                print("\(path): ok")
            }
        }
    }
#endif

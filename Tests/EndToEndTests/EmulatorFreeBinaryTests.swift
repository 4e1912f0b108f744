import Foundation
import RelayTestSupport
import Testing

extension EndToEndSuite {
    /// The program that serves people carries no CloudKit emulator: the emulator (a fake Apple with a
    /// sign-in page that accepts any Apple ID) is linked only into the demo, the emulator's own program and
    /// the tests. Read from the built binaries' symbol tables, so re-adding `import RelayEmulator` (or the
    /// dependency) anywhere on the `serve` path fails here.
    @Suite(.timeLimit(.minutes(10))) struct EmulatorFreeBinaryTests {
        /// Swift mangles a module name as its length and the name: every emulator symbol holds this.
        private static let emulatorModule = "13RelayEmulator"

        private func emulatorSymbols(in product: String) async throws -> (all: Int, emulator: [String]) {
            let binary = ChildProcess.productsDirectory.appendingPathComponent(product).path
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                throw ChildProcess.ChildProcessError.missing("\(binary) is not built; run `swift build` first")
            }
            let symbols = try await ChildProcess.run(try ChildProcess.tool("nm"), [binary], timeout: .seconds(300))
                .split(separator: "\n")
            return (symbols.count, symbols.filter { $0.contains(Self.emulatorModule) }.map(String.init))
        }

        @Test func testTheServiceAndTheOperatorsToolLinkNoEmulator() async throws {
            for product in ["mustdo-relay", "mustdo-relayctl"] {
                let (all, emulator) = try await emulatorSymbols(in: product)
                #expect(all > 1000, "\(product): nm read no symbol table")
                #expect(emulator.count == 0, "\(product) links the emulator: \(emulator.prefix(5))")
            }
        }

        /// The probe finds the emulator where it is meant to be, so an empty answer above means something.
        @Test func testTheProbeFindsTheEmulatorInTheDemo() async throws {
            for product in ["mustdo-relay-demo", "cloudkit-emulator"] {
                let (_, emulator) = try await emulatorSymbols(in: product)
                #expect(emulator.count > 100, "\(product): no emulator symbols found")
            }
        }
    }
}

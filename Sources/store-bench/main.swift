// Latency benchmarks for bench/store (run it, not this, to get the numbers with a release build).
//
//   store-bench sqlite <directory> <small items> <large items> <samples> <rounds>
//       Loads token-like items into two fresh SQLite stores in <directory>, then measures get-by-key
//       and conditional update (versionEquals) one call at a time on random keys, alternating the
//       two sizes for <rounds> rounds; the last lines are the medians over rounds.
//   store-bench vault <samples>
//       Measures Vault.unseal with a warm key cache and with no cache (a cold local key service).
import Foundation
import RelayCrypto
import RelayJSON
import RelayStore
import RelayVault

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "sqlite" where arguments.count == 7:
    try await SQLiteBench.run(
        directory: arguments[2], sizes: [Int(arguments[3]) ?? 10_000, Int(arguments[4]) ?? 1_000_000],
        samples: Int(arguments[5]) ?? 10_000, rounds: Int(arguments[6]) ?? 3)
case "vault" where arguments.count == 3:
    try await VaultBench.run(samples: Int(arguments[2]) ?? 10_000)
default:
    FileHandle.standardError.write(
        Data("usage: store-bench sqlite DIR SMALL LARGE SAMPLES ROUNDS | vault SAMPLES\n".utf8))
    exit(2)
}

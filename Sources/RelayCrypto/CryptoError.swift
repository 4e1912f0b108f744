/// Every failure RelayCrypto reports. Messages never contain key material, plaintext or tokens.
package enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Opening a sealed box failed: wrong key, wrong associated data, or altered bytes. The causes
    /// are deliberately indistinguishable.
    case authenticationFailed
    /// A key has the wrong length for the algorithm.
    case invalidKeySize(expected: Int, actual: Int)
    /// An input is malformed (too short, too long, out of range); the reason names which.
    case invalidInput(String)
    /// OpenSSL reported an internal failure in the named call.
    case library(String)

    package var description: String {
        switch self {
        case .authenticationFailed: "authentication failed"
        case .invalidKeySize(let expected, let actual): "invalid key size: expected \(expected) bytes, got \(actual)"
        case .invalidInput(let reason): "invalid input: \(reason)"
        case .library(let call): "OpenSSL call failed: \(call)"
        }
    }
}

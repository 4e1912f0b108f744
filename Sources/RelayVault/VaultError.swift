/// Every failure RelayVault reports. Messages never contain keys, tokens or sealed secrets.
package enum VaultError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A seal or wrap did not open: wrong key, wrong context, wrong token, or altered bytes. The
    /// causes are deliberately indistinguishable.
    case authenticationFailed
    /// Bytes that are not an envelope this build understands (truncated, unknown version).
    case malformed(String)
    /// A wrapped key names a key ID the key service does not have (the ID only).
    case unknownKey(String)
    /// The key service is down, failing or too slow.
    case keyServiceUnavailable(String)
    /// The key service refused for now (rate limit); retrying later may work.
    case keyServiceThrottled
    /// A key file is missing, unreadable, badly formed or readable by others.
    case keyFile(String)

    package var description: String {
        switch self {
        case .authenticationFailed: "vault authentication failed"
        case .malformed(let reason): "malformed vault envelope: \(reason)"
        case .unknownKey(let id): "unknown key ID \(id)"
        case .keyServiceUnavailable(let reason): "key service unavailable: \(reason)"
        case .keyServiceThrottled: "key service throttled"
        case .keyFile(let reason): "key file: \(reason)"
        }
    }
}

/// The container's API token. Its description is redacted so it cannot reach a log by accident.
public struct CloudKitAPIToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as CloudKit Console shows it.
    public let rawValue: String

    /// Wraps a token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
}

/// A user's web auth token: the credential that opens their private database. Opaque, about 1 KB,
/// full of `+ / =`. Its description is redacted so it cannot reach a log by accident.
public struct CloudKitWebAuthToken: Sendable, Hashable, CustomStringConvertible {
    /// The token exactly as CloudKit issued it (not percent-encoded).
    public let rawValue: String

    /// Wraps a token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
}

/// A call's value plus the token CloudKit rotated to, if it sent one. The caller must store
/// `rotatedToken` (sealed) before its next call for the same user: the old one may stop working.
public struct CloudKitResponse<Value: Sendable>: Sendable {
    /// What the call returned.
    public var value: Value
    /// The newest token from `X-Apple-CloudKit-Web-Auth-Token`, or nil when none came back.
    public var rotatedToken: CloudKitWebAuthToken?

    /// A response.
    public init(value: Value, rotatedToken: CloudKitWebAuthToken?) {
        self.value = value
        self.rotatedToken = rotatedToken
    }

    /// The token to use next: the rotated one, or `previous` when there was none.
    public func nextToken(after previous: CloudKitWebAuthToken) -> CloudKitWebAuthToken {
        rotatedToken ?? previous
    }
}
